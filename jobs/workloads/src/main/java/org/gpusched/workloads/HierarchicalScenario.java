package org.gpusched.workloads;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.gpusched.core.model.Cluster;
import org.gpusched.core.model.Node;
import org.gpusched.core.model.NodeType;
import org.gpusched.core.objective.ObjectiveParameters;
import org.gpusched.formats.ClusterSpec;
import org.gpusched.formats.FormatException;
import org.gpusched.formats.TraceJob;

/**
 * The cloud GPU-as-a-service protocol of the hierarchical paper (section V) and the thesis (chapter 4):
 * <ul>
 *   <li>the 9 VM types of Table II, each leased whole at its hourly price whatever the number of busy GPUs;</li>
 *   <li>N rightsizable nodes (the optimizer picks each node's VM type), named vm-1..vm-N;</li>
 *   <li>J = 10N jobs of AlexNet, ResNet, VGG, DeepSpeech with random epochs and batch sizes;</li>
 *   <li>Poisson arrivals with mean gap 45,000 / N s: the paper gives "45,000 s" for its N = 5..100 and, for its
 *       100-node setting, "an average inter-arrival time of 450 s", so 45,000 s is the gap seen by one node and the
 *       load per node is the same at every N (a fixed 45,000 s would leave the 100-node cluster almost idle while
 *       J = 10N grows);</li>
 *   <li>due date submission + U[min t, 2 max t] over all (VM type, GPUs); weight U[0.36, 1.08] $/h;</li>
 *   <li>rho = 100, H = 1 h, mu = 1.</li>
 * </ul>
 * The variant {@code hierarchical-tight} ({@link #tight}) changes only the due dates: submission + U[min t,
 * {@value #TIGHT_DUE_FACTOR} max t] (upper bound at least min t). Every other draw is the same, so a seed gives the
 * same jobs, arrivals and weights in both. Why {@value #TIGHT_DUE_FACTOR}: see jobs/workloads/README.md.
 */
public final class HierarchicalScenario implements Scenario {
    public static final double PAPER_MEAN_GAP_SECONDS = 45_000;
    public static final int NODES_PER_CONTROLLER = 5;
    public static final double WEIGHT_MIN = 0.36;
    public static final double WEIGHT_MAX = 1.08;
    public static final ObjectiveParameters OBJECTIVE = new ObjectiveParameters(100, 3600, 1);
    /**
     * Due-date factor of {@code hierarchical-tight}: the window [min t, 0.25 max t] gives a mean slack of ~3.5 x min t
     * with the profiled time model (max t / min t 4-60) and ~4.4 x min t with the amdahl one (14-44), about the
     * tightness of the andreas scenario (~4-6 x min t).
     */
    public static final double TIGHT_DUE_FACTOR = 0.25;

    /**
     * The VM types a node may take. {@code TABLE_II}: the nine of the paper's Table II. {@code AZURE}: the Azure VMs of
     * Table II alone (K80 as NC6/NC12/NC24, M60 as NV6/NV12/NV24), the catalog the GPUScheduler authors' newer
     * generator uses (script/py/generate_data_new.py leaves out "Quadro P600" and "GTX 1080Ti", the Custom VMs).
     */
    public enum VmCatalog {
        TABLE_II("table2", "the 9 VM types of Table II"),
        AZURE("azure", "the 6 Azure VM types of Table II (K80 and M60; no P600, no 1080Ti)");

        private final String option;
        private final String label;

        VmCatalog(String option, String label) {
            this.option = option;
            this.label = label;
        }

        public String option() {
            return option;
        }

        public String label() {
            return label;
        }

        List<Object[]> rows() {
            return this == TABLE_II
                    ? CATALOG
                    : CATALOG.stream()
                            .filter(r -> r[1].equals("K80") || r[1].equals("M60"))
                            .toList();
        }

        public static VmCatalog parse(String name) {
            for (VmCatalog c : values()) if (c.option.equalsIgnoreCase(name)) return c;
            throw new FormatException("--catalog must be table2 or azure, got '" + name + "'", "catalog");
        }
    }

    /** Table II: VM type, GPU model, GPUs, $/h. */
    static final List<Object[]> CATALOG = List.of(
            new Object[] {"NC6", "K80", 1, 0.56},
            new Object[] {"NC12", "K80", 2, 1.13},
            new Object[] {"NC24", "K80", 4, 2.25},
            new Object[] {"NV6", "M60", 1, 0.62},
            new Object[] {"NV12", "M60", 2, 1.24},
            new Object[] {"NV24", "M60", 4, 2.48},
            new Object[] {"Custom1", "P600", 2, 0.11},
            new Object[] {"Custom2", "1080Ti", 8, 1.13},
            new Object[] {"Custom3", "P600", 8, 0.44});

    private final int nodes;
    private final Double meanGapOverride;
    private final double dueFactor;
    private final VmCatalog vms;
    private final ApplicationCatalog catalog;
    private final List<JobTimes.TypeShape> shapes = new ArrayList<>();
    private final ClusterSpec cluster;

    public HierarchicalScenario(int nodes, ApplicationCatalog catalog) {
        this(nodes, null, catalog);
    }

    /** @param meanGapOverride mean inter-arrival in seconds instead of the protocol's (null = 45,000 / N) */
    public HierarchicalScenario(int nodes, Double meanGapOverride, ApplicationCatalog catalog) {
        this(nodes, meanGapOverride, VmCatalog.TABLE_II, catalog);
    }

    /** The protocol on another VM catalog: the same draws, times and due dates over that catalog's types only. */
    public HierarchicalScenario(int nodes, Double meanGapOverride, VmCatalog vms, ApplicationCatalog catalog) {
        this(nodes, meanGapOverride, SampledJobs.PAPER_DUE_FACTOR, vms, catalog);
    }

    /** {@code hierarchical-tight}: the protocol with due dates submission + U[min t, {@value #TIGHT_DUE_FACTOR} max t]. */
    public static HierarchicalScenario tight(int nodes, Double meanGapOverride, ApplicationCatalog catalog) {
        return new HierarchicalScenario(nodes, meanGapOverride, TIGHT_DUE_FACTOR, VmCatalog.TABLE_II, catalog);
    }

    private HierarchicalScenario(
            int nodes, Double meanGapOverride, double dueFactor, VmCatalog vms, ApplicationCatalog catalog) {
        if (nodes < 1) throw new IllegalArgumentException("--nodes must be >= 1, got " + nodes);
        this.nodes = nodes;
        this.meanGapOverride = meanGapOverride;
        this.dueFactor = dueFactor;
        this.vms = vms;
        this.catalog = catalog;
        List<NodeType> types = new ArrayList<>();
        for (Object[] row : vms.rows()) {
            types.add(NodeType.priced((String) row[0], (String) row[1], (Integer) row[2], (Double) row[3]));
            shapes.add(new JobTimes.TypeShape((String) row[0], (String) row[1], (Integer) row[2]));
        }
        List<Node> nodeList = new ArrayList<>();
        for (int i = 1; i <= nodes; i++) nodeList.add(Node.rightsizable("vm-" + i));
        this.cluster = new ClusterSpec(new Cluster(types, nodeList), OBJECTIVE);
    }

    public double meanGapSeconds() {
        return meanGapOverride != null ? meanGapOverride : PAPER_MEAN_GAP_SECONDS / nodes;
    }

    public double dueFactor() {
        return dueFactor;
    }

    private boolean isTight() {
        return dueFactor != SampledJobs.PAPER_DUE_FACTOR;
    }

    @Override
    public String name() {
        return isTight() ? "hierarchical-tight" : "hierarchical";
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
                catalog.applicationsFor("hierarchical"),
                SampledJobs.poisson(meanGapSeconds()),
                dueFactor,
                WEIGHT_MIN,
                WEIGHT_MAX,
                count,
                seed);
    }

    @Override
    public String describe() {
        return String.format(
                java.util.Locale.ROOT,
                "%s: %d rightsizable nodes over %s; Poisson arrivals, mean gap %.0f s "
                        + (meanGapOverride != null ? "(--mean-gap)" : "(45,000 s / N)")
                        + "; due U[min t, %s max t]%s; weight U[0.36, 1.08] $/h; rho 100, H 3600 s, mu 1",
                name(),
                nodes,
                vms.label,
                meanGapSeconds(),
                isTight() ? String.valueOf(dueFactor) : "2",
                isTight() ? " (tightened; the paper: 2 max t)" : "");
    }
}
