package org.gpusched.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.gpusched.core.model.Cluster;
import org.gpusched.core.model.EnergyModel;
import org.gpusched.core.model.Job;
import org.gpusched.core.model.JobState;
import org.gpusched.core.model.Node;
import org.gpusched.core.model.NodeType;
import org.gpusched.core.model.Placement;
import org.gpusched.core.model.SchedulingProblem;
import org.gpusched.core.objective.ObjectiveParameters;
import org.gpusched.core.random.RandomState;

/**
 * Seeded benchmark instances in the spirit of ANDREAS' on-premise cluster: fixed-type nodes, 60% with four V100s
 * and 40% with four T4s, energy-priced; jobs with execution times sublinear in the GPU count (t(g) = t1 x g^-s,
 * s in [0.5, 0.9]), slower on T4, a mix of tight and loose due dates, some already running (about half the GPUs
 * busy) and some preempted with progress done.
 */
public final class BenchInstances {
    public static final double NOW = 36_000;
    private static final int GPUS_PER_NODE = 4;

    private BenchInstances() {}

    public static SchedulingProblem andreasLike(long seed, int nodeCount, int jobCount) {
        return andreasLike(seed, nodeCount, jobCount, false);
    }

    /**
     * The same, with moves that cost when {@code chargedMoves}: a running or preempted job loses 5% of its work (its
     * progress since the last snapshot, at most what it has done) and restores for 300 s when moved, and f_OBJ charges
     * moves (the product's default); the quarter of tight due dates then puts the queue under deadline pressure.
     */
    public static SchedulingProblem andreasLike(long seed, int nodeCount, int jobCount, boolean chargedMoves) {
        RandomState random = new RandomState(seed);
        NodeType v100 = NodeType.energy("V100x4", "V100", GPUS_PER_NODE, new EnergyModel(40, 300, 250, 0.25, 1.3));
        NodeType t4 = NodeType.energy("T4x4", "T4", GPUS_PER_NODE, new EnergyModel(10, 70, 150, 0.25, 1.3));
        List<NodeType> types = List.of(v100, t4);
        List<Node> nodes = new ArrayList<>();
        int[] nodeType = new int[nodeCount];
        for (int n = 0; n < nodeCount; n++) {
            nodeType[n] = n % 5 < 3 ? 0 : 1;
            nodes.add(Node.fixed("node-" + n, types.get(nodeType[n]).name()));
        }
        Cluster cluster = new Cluster(types, nodes);

        int[] free = new int[nodeCount];
        java.util.Arrays.fill(free, GPUS_PER_NODE);
        int runningTarget = nodeCount * GPUS_PER_NODE / 2;
        int busy = 0;
        int cursor = 0;
        List<JobState> jobs = new ArrayList<>(jobCount);
        for (int j = 0; j < jobCount; j++) {
            double base = 1800 + random.nextDouble() * 5 * 3600; // one V100 GPU, 0.5 to 5.5 h
            double scaling = 0.5 + random.nextDouble() * 0.4;
            double slowdownT4 = 1.4 + random.nextDouble() * 1.2;
            Map<String, Map<Integer, Double>> times = new LinkedHashMap<>();
            for (NodeType type : types) {
                Map<Integer, Double> perGpus = new LinkedHashMap<>();
                double factor = type == t4 ? slowdownT4 : 1;
                for (int g = 1; g <= GPUS_PER_NODE; g++) perGpus.put(g, base * factor * Math.pow(g, -scaling));
                times.put(type.name(), perGpus);
            }
            double submit = random.nextDouble() * NOW;
            double slack = random.nextInt(4) == 0
                    ? -0.2 + random.nextDouble() * 0.6
                    : 0.8 + random.nextDouble() * 3; // a quarter tight
            double due = Math.max(submit, NOW + slack * base);
            double weight = 1 + random.nextInt(10);
            Job job = new Job("job-" + j, submit, due, weight, times);
            Placement current = null;
            double done = 0;
            if (busy < runningTarget && random.nextInt(2) == 0) {
                int g = 1 + random.nextInt(2);
                for (int tries = 0; tries < nodeCount && current == null; tries++, cursor = (cursor + 1) % nodeCount) {
                    if (free[cursor] >= g) {
                        current = new Placement(cursor, nodeType[cursor], g);
                        free[cursor] -= g;
                        busy += g;
                    }
                }
                done = random.nextDouble() * 0.8;
            } else if (random.nextInt(5) == 0) {
                done = random.nextDouble() * 0.5; // preempted earlier, progress kept
            }
            jobs.add(
                    chargedMoves && done > 0
                            ? new JobState(job, done, current, Math.max(0, done - 0.05), 300)
                            : new JobState(job, done, current));
        }
        return new SchedulingProblem(
                NOW, cluster, jobs, null, ObjectiveParameters.DEFAULTS.withChargedMoves(chargedMoves));
    }
}
