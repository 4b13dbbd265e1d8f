package org.gpusched.workloads;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.gpusched.core.model.Cluster;
import org.gpusched.core.model.EnergyModel;
import org.gpusched.core.model.Job;
import org.gpusched.core.model.Node;
import org.gpusched.core.model.NodeType;
import org.gpusched.core.objective.ObjectiveParameters;
import org.gpusched.core.random.RandomState;
import org.gpusched.formats.AlibabaCsv;
import org.gpusched.formats.ClusterSpec;
import org.gpusched.formats.FormatException;
import org.gpusched.formats.TraceJob;

/**
 * Converts the 2023 Alibaba GPU trace ("openb", ../shared/traces/alibaba-gpu-2023) into a gpusched trace and
 * cluster. No public trace carries due dates or weights, and the trace does not say which GPU model ran a task, so
 * these rules (all documented in jobs/workloads/README.md) fill the gaps:
 * <ul>
 *   <li><b>Tasks kept</b>: GPU tasks only (num_gpu >= 1); CPU-only tasks are skipped. Pending tasks (no
 *       scheduled_time) never ran, so their lifetime is queueing, not work: skipped.</li>
 *   <li><b>Whole GPUs</b>: a task holds num_gpu whole GPUs; a fractional task (gpu_milli < 1000) is rounded up to 1
 *       whole GPU, since the scheduling core allocates whole GPUs (fractional placement is the PWR/FGD module's).
 *       The GPU count is fixed: the trace's tasks are not elastic.</li>
 *   <li><b>Duration</b>: deletion_time - creation_time (at least 1 s). It is the time on a GPU of the fleet's average
 *       speed; on model m it is scaled by fleetSpeed / speed(m), speeds from the application model's GPU table for a
 *       balanced workload (computeBound 0.5), fleetSpeed the GPU-count-weighted mean over the nodes file.</li>
 *   <li><b>Cut-off</b>: tasks still running when the trace ends carry deletion_time = {@value #CUTOFF}; their
 *       lifetime is only a lower bound. {@code keep} (default) keeps them with that truncated duration and
 *       {@code "censored": true}; {@code drop} leaves them out.</li>
 *   <li><b>Configurations</b>: a task may run on every node type with at least num_gpu GPUs whose model its gpu_spec
 *       allows (empty = any). A task no node type can host is skipped and counted.</li>
 *   <li><b>Due date</b>: submission + U[min t, F x max t] over its configurations (the hierarchical paper's rule,
 *       F = 2 there; {@code --due-factor F}).</li>
 *   <li><b>Weight</b> (EUR per hour late): num_gpu x qosWeight x U[0.5, 1.5], qosWeight per GPU = Guaranteed 1.0,
 *       LS 0.5, Burstable 0.25, BE 0.1: about ten times a busy GPU's energy cost for latency-sensitive tasks, as
 *       the hierarchical paper sets weights to ten times the execution cost.</li>
 *   <li><b>Nodes</b>: every GPU node of the nodes file, fixed type "MODELxGPUS" (e.g. G2x8). Energy cost per node:
 *       (host + busy GPUs x max + idle GPUs x idle) W x 0.172 EUR/kWh x PUE 1.33 (the ANDREAS tariff); GPU idle/max
 *       power from the PWR paper's table; host = CPU sockets (16 cores, 2 vCPUs each) x 67.5 W, the midpoint of
 *       the Xeon E5-2682 v4's 15 W idle and 120 W TDP, sized on the largest node of the type.</li>
 * </ul>
 */
public final class AlibabaConverter {
    public static final long CUTOFF = 12_902_960L;
    public static final double PRICE_PER_KWH = 0.172;
    public static final double PUE = 1.33;
    public static final double SOCKET_WATTS = (15 + 120) / 2.0;
    public static final int VCPUS_PER_SOCKET = 32;
    static final Map<String, Double> QOS_WEIGHT = Map.of("Guaranteed", 1.0, "LS", 0.5, "Burstable", 0.25, "BE", 0.1);
    static final double BALANCED = 0.5;

    public enum Censored {
        KEEP,
        DROP;

        public static Censored parse(String s) {
            return switch (s.toLowerCase(Locale.ROOT)) {
                case "keep" -> KEEP;
                case "drop" -> DROP;
                default -> throw new FormatException("--censored must be keep or drop, got '" + s + "'", "censored");
            };
        }
    }

    public record Options(long limit, double dueFactor, long seed, Censored censored) {
        public Options {
            if (limit < 0) throw new FormatException("--limit must be >= 0 (0 = all), got " + limit, "limit");
            if (!(dueFactor >= 1))
                throw new FormatException("--due-factor must be >= 1, got " + dueFactor, "dueFactor");
        }
    }

    /** What was kept and why the rest was not. */
    public record Stats(
            long rows,
            long kept,
            long cpuOnly,
            long pending,
            long censoredKept,
            long censoredDropped,
            long fractionalRounded,
            long unplaceable,
            long zeroLength,
            int nodes,
            int nodeTypes) {}

    public record Result(ClusterSpec cluster, List<TraceJob> jobs, Stats stats) {}

    private record NodeRow(String sn, long cpuMilli, int gpus, String model) {}

    private record TypeInfo(String name, String model, int gpus, double speed) {}

    private final ApplicationCatalog catalog;

    public AlibabaConverter(ApplicationCatalog catalog) {
        this.catalog = catalog;
    }

    public Result convert(Path podsFile, Path nodesFile, Options options) {
        List<NodeRow> nodeRows = readNodes(nodesFile);
        if (nodeRows.isEmpty()) throw new FormatException(nodesFile + ": no GPU node (gpu >= 1)", null);
        Map<String, long[]> maxCpu = new LinkedHashMap<>();
        Map<String, TypeInfo> types = new TreeMap<>();
        double speedSum = 0;
        long gpuSum = 0;
        for (NodeRow n : nodeRows) {
            String name = n.model() + "x" + n.gpus();
            maxCpu.computeIfAbsent(name, k -> new long[1])[0] = Math.max(maxCpu.get(name)[0], n.cpuMilli());
            double speed = speed(n.model());
            types.putIfAbsent(name, new TypeInfo(name, n.model(), n.gpus(), speed));
            speedSum += speed * n.gpus();
            gpuSum += n.gpus();
        }
        double fleetSpeed = speedSum / gpuSum;
        List<NodeType> nodeTypes = new ArrayList<>();
        for (TypeInfo t : types.values()) {
            var gpu = catalog.gpu(t.model());
            long sockets = Math.max(1, (long) Math.ceil(maxCpu.get(t.name())[0] / 1000.0 / VCPUS_PER_SOCKET));
            nodeTypes.add(NodeType.energy(
                    t.name(),
                    t.model(),
                    t.gpus(),
                    new EnergyModel(gpu.idleWatts(), gpu.maxWatts(), sockets * SOCKET_WATTS, PRICE_PER_KWH, PUE)));
        }
        List<Node> nodes = new ArrayList<>();
        for (NodeRow n : nodeRows) nodes.add(Node.fixed(n.sn(), n.model() + "x" + n.gpus()));
        ClusterSpec cluster = new ClusterSpec(new Cluster(nodeTypes, nodes), new ObjectiveParameters(100, 3600, 0));

        // Submission order: by creation time (validated first, so a bad value is reported with its line), stable.
        List<AlibabaCsv.Row> pods = new ArrayList<>(AlibabaCsv.readAll(podsFile, POD_COLUMNS));
        Map<AlibabaCsv.Row, Long> creationOf = new java.util.IdentityHashMap<>();
        for (AlibabaCsv.Row p : pods) creationOf.put(p, p.integer("creation_time"));
        pods.sort(Comparator.comparingLong(creationOf::get));
        RandomState rng = RandomState.derive(options.seed(), 0xA11BABAL);
        List<TraceJob> jobs = new ArrayList<>();
        long rows = 0,
                cpuOnly = 0,
                pending = 0,
                censoredKept = 0,
                censoredDropped = 0,
                fractional = 0,
                unplaceable = 0,
                zero = 0;
        for (AlibabaCsv.Row p : pods) {
            rows++;
            if (options.limit() > 0 && jobs.size() >= options.limit()) continue;
            int numGpu = (int) p.integer("num_gpu");
            long gpuMilli = p.integer("gpu_milli");
            if (numGpu == 0) {
                cpuOnly++;
                continue;
            }
            if (p.text("scheduled_time").isEmpty()) {
                pending++;
                continue;
            }
            long creation = p.integer("creation_time");
            long deletion = p.integer("deletion_time");
            if (deletion < creation) throw p.error("deletion_time", deletion + " is before creation_time " + creation);
            boolean censored = deletion >= CUTOFF;
            if (censored && options.censored() == Censored.DROP) {
                censoredDropped++;
                continue;
            }
            double duration = deletion - creation;
            if (duration < 1) {
                zero++;
                duration = 1;
            }
            if (gpuMilli < 1000) fractional++;
            Set<String> allowed = spec(p.text("gpu_spec"));
            Map<String, Map<Integer, Double>> times = new LinkedHashMap<>();
            double min = Double.POSITIVE_INFINITY, max = 0;
            for (TypeInfo t : types.values()) {
                if (t.gpus() < numGpu || (!allowed.isEmpty() && !allowed.contains(t.model()))) continue;
                double s = JobTimes.round3(duration * fleetSpeed / t.speed());
                times.put(t.name(), Map.of(numGpu, s));
                min = Math.min(min, s);
                max = Math.max(max, s);
            }
            if (times.isEmpty()) {
                unplaceable++;
                continue;
            }
            if (censored) censoredKept++;
            String qos = p.text("qos");
            Double qosWeight = QOS_WEIGHT.get(qos);
            if (qosWeight == null)
                throw p.error("qos", "unknown qos '" + qos + "' (known: " + QOS_WEIGHT.keySet() + ")");
            double due = JobTimes.round3(creation + min + rng.nextDouble() * (options.dueFactor() * max - min));
            double weight = Math.round(numGpu * qosWeight * (0.5 + rng.nextDouble()) * 1e6) / 1e6;
            Map<String, Object> extras = new LinkedHashMap<>();
            extras.put("qos", qos);
            extras.put("gpuMilli", gpuMilli);
            extras.put("cpuMilli", p.integer("cpu_milli"));
            extras.put("memoryMib", p.integer("memory_mib"));
            if (!allowed.isEmpty()) extras.put("gpuSpec", p.text("gpu_spec"));
            extras.put("phase", p.text("pod_phase"));
            extras.put("traceSeconds", duration);
            if (censored) extras.put("censored", true);
            String name = p.required("name");
            try {
                jobs.add(new TraceJob(new Job(name, creation, due, weight, times), extras));
            } catch (RuntimeException e) {
                throw p.error(e.getMessage());
            }
        }
        Stats stats = new Stats(
                rows,
                jobs.size(),
                cpuOnly,
                pending,
                censoredKept,
                censoredDropped,
                fractional,
                unplaceable,
                zero,
                nodes.size(),
                nodeTypes.size());
        return new Result(cluster, jobs, stats);
    }

    /** Relative speed of a GPU model for a balanced workload (reference GPU = 1). */
    private double speed(String model) {
        var app = new ApplicationCatalog.Application(
                "balanced", List.of(), 1, 1, 0, BALANCED, 0, List.of(1, 1), List.of(1));
        return 1.0 / catalog.slowdown(app, catalog.gpu(model));
    }

    private static Set<String> spec(String gpuSpec) {
        if (gpuSpec == null || gpuSpec.isBlank()) return Set.of();
        return Set.of(java.util.Arrays.stream(gpuSpec.split("\\|"))
                .map(String::trim)
                .filter(s -> !s.isEmpty())
                .distinct()
                .toArray(String[]::new));
    }

    private List<NodeRow> readNodes(Path file) {
        List<NodeRow> out = new ArrayList<>();
        for (AlibabaCsv.Row r : AlibabaCsv.readAll(file, List.of("sn", "cpu_milli", "gpu", "model"))) {
            int gpus = (int) r.integer("gpu");
            if (gpus == 0) continue;
            if (gpus < 0) throw r.error("gpu", "must be >= 0, got " + gpus);
            String model = r.text("model");
            if (model.isEmpty()) throw r.error("model", "empty for a GPU node");
            if (!catalog.hasGpu(model))
                throw r.error("model", "GPU model '" + model + "' is not in the application model's gpuModels");
            out.add(new NodeRow(r.required("sn"), r.integer("cpu_milli"), gpus, model));
        }
        return out;
    }

    private static final List<String> POD_COLUMNS = List.of(
            "name",
            "cpu_milli",
            "memory_mib",
            "num_gpu",
            "gpu_milli",
            "gpu_spec",
            "qos",
            "pod_phase",
            "creation_time",
            "deletion_time",
            "scheduled_time");
}
