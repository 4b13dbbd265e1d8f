package org.gpusched.workloads;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import org.gpusched.core.model.Cluster;
import org.gpusched.core.model.EnergyModel;
import org.gpusched.core.model.Node;
import org.gpusched.core.model.NodeType;
import org.gpusched.core.objective.ObjectiveParameters;
import org.gpusched.formats.ClusterSpec;
import org.gpusched.formats.FormatException;
import org.gpusched.formats.TraceJob;

/**
 * The on-premise energy protocol of the ANDREAS simulations (section V.B):
 * <ul>
 *   <li>N fixed nodes, the first ceil(N/2) with Tesla V100s and the rest with Tesla T4s, in one of the paper's two
 *       shapes: {@code small} = 2xV100 or 1xT4 (first scenario), {@code large} = 4xV100 or 2xT4 (second);</li>
 *   <li>energy cost per node and busy GPUs: node watts x 0.172 EUR/kWh x PUE 1.33, the node's watts by
 *       {@link Energy}: by default ({@link Energy#MEASURED}) the ANDREAS authors' node measurements, 530 W for a V100
 *       node with one busy GPU + 170 W per further busy V100, 400 W + 70 W for T4 nodes;
 *       {@link Energy#DATASHEET} keeps the earlier data-sheet model;</li>
 *   <li>J = 10N jobs of EfficientNet, ConvNet, LSTM-big, LSTM-small with random epochs and batch sizes;</li>
 *   <li>"mixed rate" arrivals (the paper cites [15] without numbers): bursts and calm phases around a mean gap of
 *       {@value #MEAN_GAP_PER_NODE_SECONDS} s / N, i.e. one job per node-hour on average — the pace of the ARMIDA
 *       prototype, 3 nodes receiving a job every 1200 s;</li>
 *   <li>due date submission + U[min t, 2 max t] (the sibling paper's rule; ANDREAS gives none for its simulations);
 *       weight U[1, 5] EUR/h late, the range of Table V, about ten times a busy node's energy cost per hour as in
 *       the hierarchical paper's protocol;</li>
 *   <li>rho = 100 (paper), H = 1 h, mu = 0 (ANDREAS has no idle-GPU term).</li>
 * </ul>
 */
public final class AndreasScenario implements Scenario {
    public static final double PRICE_PER_KWH = 0.172;
    public static final double PUE = 1.33;
    public static final double HOST_WATTS = 100;
    public static final double MEAN_GAP_PER_NODE_SECONDS = 3600;
    public static final double PHASE_JOBS = 10;
    public static final double WEIGHT_MIN = 1;
    public static final double WEIGHT_MAX = 5;
    public static final ObjectiveParameters OBJECTIVE = new ObjectiveParameters(100, 3600, 0);

    /** How a node's power is modelled. */
    public enum Energy {
        /**
         * The ANDREAS authors' measured node power (GPUScheduler, build/data/GPU-cost_server_4-2.csv): with g >= 1 busy
         * GPUs a V100 node draws 530 + 170 (g - 1) W and a T4 node 400 + 70 (g - 1) W, host included; the node's idle
         * GPUs add nothing.
         */
        MEASURED,
        /**
         * Data-sheet figures: {@value #HOST_WATTS} W of host + busy GPUs at their maximum + idle GPUs at their idle power
         * (conf/applications.yaml: V100-PCIe 30/250 W, T4 10/70 W). Makes a shared node dearer than a T4 alone.
         */
        DATASHEET;

        public static Energy parse(String s) {
            return switch (s.toLowerCase(Locale.ROOT)) {
                case "measured" -> MEASURED;
                case "datasheet" -> DATASHEET;
                default ->
                    throw new FormatException("--energy must be measured or datasheet, got '" + s + "'", "energy");
            };
        }
    }

    /** Energy#MEASURED: watts of a node with one busy GPU, and per further busy GPU, by GPU model. */
    static final java.util.Map<String, double[]> MEASURED_WATTS =
            java.util.Map.of("V100", new double[] {530, 170}, "T4", new double[] {400, 70});

    public enum Shape {
        SMALL(2, 1),
        LARGE(4, 2);
        final int v100;
        final int t4;

        Shape(int v100, int t4) {
            this.v100 = v100;
            this.t4 = t4;
        }

        public static Shape parse(String s) {
            return switch (s.toLowerCase(Locale.ROOT)) {
                case "small", "2xv100|1xt4", "1" -> SMALL;
                case "large", "4xv100|2xt4", "2" -> LARGE;
                default ->
                    throw new FormatException(
                            "--shape must be small (2xV100 | 1xT4) or large (4xV100 | 2xT4), got '" + s + "'", "shape");
            };
        }
    }

    private final int nodes;
    private final Double meanGapOverride;
    private final Shape shape;
    private final Energy energy;
    private final ApplicationCatalog catalog;
    private final List<JobTimes.TypeShape> shapes;
    private final ClusterSpec cluster;

    public AndreasScenario(int nodes, Shape shape, ApplicationCatalog catalog) {
        this(nodes, shape, null, catalog);
    }

    /** @param meanGapOverride mean inter-arrival in seconds instead of the protocol's (null = 3600 / N) */
    public AndreasScenario(int nodes, Shape shape, Double meanGapOverride, ApplicationCatalog catalog) {
        this(nodes, shape, meanGapOverride, Energy.MEASURED, catalog);
    }

    public AndreasScenario(int nodes, Shape shape, Double meanGapOverride, Energy energy, ApplicationCatalog catalog) {
        if (nodes < 1) throw new IllegalArgumentException("--nodes must be >= 1, got " + nodes);
        this.nodes = nodes;
        this.meanGapOverride = meanGapOverride;
        this.shape = shape;
        this.energy = energy;
        this.catalog = catalog;
        String v100 = "V100x" + shape.v100;
        String t4 = "T4x" + shape.t4;
        this.shapes =
                List.of(new JobTimes.TypeShape(v100, "V100", shape.v100), new JobTimes.TypeShape(t4, "T4", shape.t4));
        List<NodeType> types = List.of(
                energyType(catalog, v100, "V100", shape.v100, energy), energyType(catalog, t4, "T4", shape.t4, energy));
        int v100Nodes = (nodes + 1) / 2;
        List<Node> nodeList = new ArrayList<>();
        for (int i = 1; i <= v100Nodes; i++) nodeList.add(Node.fixed("v100-" + i, v100));
        for (int i = 1; i <= nodes - v100Nodes; i++) nodeList.add(Node.fixed("t4-" + i, t4));
        this.cluster = new ClusterSpec(new Cluster(types, nodeList), OBJECTIVE);
    }

    static NodeType energyType(ApplicationCatalog catalog, String name, String gpuModel, int gpus, Energy energy) {
        if (energy == Energy.MEASURED) {
            double[] watts = MEASURED_WATTS.get(gpuModel);
            if (watts == null) throw new IllegalArgumentException("no measured node power for GPU model " + gpuModel);
            // 530 + 170 (g - 1) = (530 - 170) + 170 g: a host share and a per-busy-GPU step, idle GPUs free
            return NodeType.energy(
                    name, gpuModel, gpus, new EnergyModel(0, watts[1], watts[0] - watts[1], PRICE_PER_KWH, PUE));
        }
        var gpu = catalog.gpu(gpuModel);
        return NodeType.energy(
                name, gpuModel, gpus, new EnergyModel(gpu.idleWatts(), gpu.maxWatts(), HOST_WATTS, PRICE_PER_KWH, PUE));
    }

    public double meanGapSeconds() {
        return meanGapOverride != null ? meanGapOverride : MEAN_GAP_PER_NODE_SECONDS / nodes;
    }

    @Override
    public String name() {
        return "andreas";
    }

    @Override
    public ClusterSpec cluster() {
        return cluster;
    }

    @Override
    public int defaultJobs() {
        return 10 * nodes;
    }

    @Override
    public Iterator<TraceJob> jobs(long count, long seed) {
        return new SampledJobs(
                catalog,
                shapes,
                catalog.applicationsFor("andreas"),
                SampledJobs.mixed(meanGapSeconds(), PHASE_JOBS),
                WEIGHT_MIN,
                WEIGHT_MAX,
                count,
                seed);
    }

    @Override
    public String describe() {
        return String.format(
                "andreas (%s): %d x %s + %d x %s nodes, energy (%s node power) 0.172 EUR/kWh x PUE 1.33; mixed-rate arrivals, mean gap %.0f s; "
                        + "due U[min t, 2 max t]; weight U[1, 5] EUR/h; rho 100, H 3600 s, mu 0",
                shape.name().toLowerCase(Locale.ROOT),
                (nodes + 1) / 2,
                shapes.get(0).name(),
                nodes / 2,
                shapes.get(1).name(),
                energy.name().toLowerCase(Locale.ROOT),
                meanGapSeconds());
    }
}
