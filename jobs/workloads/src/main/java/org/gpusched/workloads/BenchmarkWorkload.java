package org.gpusched.workloads;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.gpusched.core.model.Job;
import org.gpusched.core.random.RandomState;
import org.gpusched.formats.TraceJob;
import org.gpusched.formats.TraceJson;

/**
 * The throughput benchmark's workload: a cluster of {@code nodes} fixed nodes in three node types (2, 4 and 8 GPUs)
 * and a trace of {@code jobs} jobs with Poisson arrivals sized so the cluster runs at about {@code load} of its GPU
 * capacity. Deterministic for a seed. Not a realistic scenario (the workloads module has those): it only has to be
 * big, valid and reproducible.
 */
public final class BenchmarkWorkload {
    /** name, GPUs per node, share of the nodes, relative speed, cost per hour with 0..G GPUs busy (idle + per GPU). */
    private record TypeSpec(String name, int gpus, double share, double speed, double idleCost, double costPerGpu) {}

    private static final TypeSpec[] TYPES = {
        new TypeSpec("K80x2", 2, 0.4, 1.0, 0.10, 0.45),
        new TypeSpec("V100x4", 4, 0.4, 2.5, 0.20, 1.10),
        new TypeSpec("A100x8", 8, 0.2, 4.0, 0.40, 1.90),
    };
    private static final int[] GPU_OPTIONS = {1, 2, 4, 8};

    private final int jobs;
    private final int nodes;
    private final double load;
    private final long seed;

    public BenchmarkWorkload(int jobs, int nodes, double load, long seed) {
        if (jobs < 1) throw new IllegalArgumentException("jobs must be >= 1, got " + jobs);
        if (nodes < TYPES.length)
            throw new IllegalArgumentException("nodes must be >= " + TYPES.length + ", got " + nodes);
        if (!(load > 0 && load <= 2)) throw new IllegalArgumentException("load must be in (0, 2], got " + load);
        this.jobs = jobs;
        this.nodes = nodes;
        this.load = load;
        this.seed = seed;
    }

    /** Writes the cluster file (YAML, see ClusterYaml) with {@code nodes} nodes. */
    public void writeCluster(Path file) {
        StringBuilder yaml = new StringBuilder("# Benchmark cluster: ")
                .append(nodes)
                .append(" nodes (BenchmarkWorkload)\nnodeTypes:\n");
        for (TypeSpec t : TYPES) {
            yaml.append("  ")
                    .append(t.name())
                    .append(": {gpuModel: ")
                    .append(t.name(), 0, t.name().indexOf('x'))
                    .append(", gpus: ")
                    .append(t.gpus())
                    .append(", costPerHour: [");
            for (int busy = 0; busy <= t.gpus(); busy++) {
                if (busy > 0) yaml.append(", ");
                yaml.append(String.format(Locale.ROOT, "%.2f", t.idleCost() + busy * t.costPerGpu()));
            }
            yaml.append("]}\n");
        }
        yaml.append("nodes:\n");
        int[] counts = nodeCounts();
        for (int i = 0; i < TYPES.length; i++) {
            yaml.append("  - {id: ")
                    .append(TYPES[i].name().toLowerCase(Locale.ROOT))
                    .append(", type: ")
                    .append(TYPES[i].name())
                    .append(", count: ")
                    .append(counts[i])
                    .append("}\n");
        }
        try {
            Files.writeString(file, yaml.toString(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }

    /** Writes the trace (JSON Lines, TraceJson) in submission order. */
    public void writeTrace(Path file) {
        RandomState random = RandomState.derive(seed, 0);
        int[] counts = nodeCounts();
        double gpuCapacity = 0;
        for (int i = 0; i < TYPES.length; i++) gpuCapacity += counts[i] * TYPES[i].gpus();
        double meanSeconds1GpuOnK80 = 2 * 3600;
        // Mean GPU-seconds a job occupies, on the mean speed, at the mean GPU count it is likely to get (~2).
        double meanGpuSeconds = meanSeconds1GpuOnK80 / 2.2 * 1.3;
        double arrivalsPerSecond = load * gpuCapacity / meanGpuSeconds;
        double clock = 0;
        try (BufferedWriter out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            for (int n = 0; n < jobs; n++) {
                clock += -Math.log(1 - random.nextDouble()) / arrivalsPerSecond;
                double submit = Math.round(clock * 1000) / 1000.0;
                double baseSeconds = meanSeconds1GpuOnK80 * (0.25 + 1.5 * random.nextDouble());
                int maxGpus = GPU_OPTIONS[random.nextInt(GPU_OPTIONS.length)];
                double parallelEfficiency = 0.75 + 0.2 * random.nextDouble();
                Map<String, Map<Integer, Double>> times = new LinkedHashMap<>();
                for (TypeSpec t : TYPES) {
                    Map<Integer, Double> perGpus = new TreeMap<>();
                    for (int g : GPU_OPTIONS) {
                        if (g > t.gpus() || g > maxGpus) continue;
                        double speedup = 1 + (g - 1) * parallelEfficiency;
                        perGpus.put(g, Math.round(baseSeconds / t.speed() / speedup * 10) / 10.0);
                    }
                    times.put(t.name(), perGpus);
                }
                double slack = baseSeconds / TYPES[1].speed() * (1.5 + 4 * random.nextDouble());
                double due = Math.round((submit + slack) * 1000) / 1000.0;
                double weight = Math.round((0.5 + 9.5 * random.nextDouble()) * 100) / 100.0;
                Job job = new Job(String.format(Locale.ROOT, "j%06d", n), submit, due, weight, times);
                out.write(TraceJson.write(new TraceJob(job, Map.of())));
                out.write('\n');
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }

    private int[] nodeCounts() {
        int[] counts = new int[TYPES.length];
        int assigned = 0;
        for (int i = 0; i < TYPES.length - 1; i++) {
            counts[i] = Math.max(1, (int) Math.round(nodes * TYPES[i].share()));
            assigned += counts[i];
        }
        counts[TYPES.length - 1] = nodes - assigned;
        return counts;
    }
}
