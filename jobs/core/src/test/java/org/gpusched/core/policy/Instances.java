package org.gpusched.core.policy;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.gpusched.core.model.Cluster;
import org.gpusched.core.model.Job;
import org.gpusched.core.model.JobState;
import org.gpusched.core.model.Node;
import org.gpusched.core.model.NodeType;
import org.gpusched.core.model.Placement;
import org.gpusched.core.model.SchedulingProblem;
import org.gpusched.core.objective.ObjectiveParameters;
import org.gpusched.core.random.RandomState;

/** Builders for hand-checked and random instances. */
final class Instances {
    private Instances() {}

    static final ObjectiveParameters PAPER = new ObjectiveParameters(100, 3600, 0);

    /** A node type whose cost grows with busy GPUs: rate[g] = perGpu x g (rate[0] = perGpu / 10). */
    static NodeType linear(String name, String model, int gpus, double perGpu) {
        double[] rate = new double[gpus + 1];
        rate[0] = perGpu / 10;
        for (int g = 1; g <= gpus; g++) rate[g] = perGpu * g;
        return new NodeType(name, model, gpus, rate);
    }

    /** times("A", 1, 3600.0, 2, 2000.0) -> {A: {1: 3600, 2: 2000}}. */
    static Map<String, Map<Integer, Double>> times(Object... spec) {
        Map<String, Map<Integer, Double>> m = new LinkedHashMap<>();
        String type = null;
        for (int i = 0; i < spec.length; ) {
            if (spec[i] instanceof String s) {
                type = s;
                m.put(type, new LinkedHashMap<>());
                i++;
            } else {
                m.get(type).put((Integer) spec[i], ((Number) spec[i + 1]).doubleValue());
                i += 2;
            }
        }
        return m;
    }

    static Job job(String id, double submit, double due, double weight, Map<String, Map<Integer, Double>> times) {
        return new Job(id, submit, due, weight, times);
    }

    /** A random small instance: 1-3 types, 1-4 nodes (fixed or rightsizable), 1-8 jobs, some running. */
    static SchedulingProblem random(long seed) {
        return random(seed, 4, 8);
    }

    /** The first {@link #random(long, int, int)} instance from {@code seed} on with at least {@code minJobs} jobs. */
    static SchedulingProblem randomWithAtLeast(long seed, int maxNodes, int minJobs, int maxJobs) {
        for (long s = seed; ; s++) {
            SchedulingProblem p = random(s, maxNodes, maxJobs);
            if (p.jobCount() >= minJobs) return p;
        }
    }

    /** A random instance with 1-maxNodes nodes and 1-maxJobs jobs. */
    static SchedulingProblem random(long seed, int maxNodes, int maxJobs) {
        RandomState r = new RandomState(seed);
        int typeCount = 1 + r.nextInt(3);
        String[] models = {"K80", "M60"};
        List<NodeType> types = new ArrayList<>();
        for (int t = 0; t < typeCount; t++) {
            int gpus = new int[] {1, 2, 4}[r.nextInt(3)];
            String model = models[r.nextInt(2)];
            types.add(
                    r.nextInt(2) == 0
                            ? NodeType.priced("T" + t, model, gpus, 0.3 + r.nextDouble() * gpus)
                            : linear("T" + t, model, gpus, 0.2 + r.nextDouble()));
        }
        int nodeCount = 1 + r.nextInt(maxNodes);
        List<Node> nodes = new ArrayList<>();
        for (int n = 0; n < nodeCount; n++) {
            if (r.nextInt(2) == 0) nodes.add(Node.fixed("n" + n, "T" + r.nextInt(typeCount)));
            else nodes.add(Node.rightsizable("n" + n));
        }
        Cluster cluster = new Cluster(types, nodes);
        double now = 1000 * r.nextInt(20);
        int jobCount = 1 + r.nextInt(maxJobs);
        List<Job> jobs = new ArrayList<>();
        String anchor = cluster.type(cluster.candidateTypes(0)[0]).name();
        for (int j = 0; j < jobCount; j++) {
            Map<String, Map<Integer, Double>> times = new LinkedHashMap<>();
            double base = 1800 + r.nextDouble() * 20000;
            for (NodeType type : types) {
                if (!type.name().equals(anchor) && r.nextDouble() < 0.3) continue;
                Map<Integer, Double> perG = new LinkedHashMap<>();
                for (int g = 1; g <= type.gpus(); g++) {
                    if (g == 1 && type.name().equals(anchor) || r.nextDouble() < 0.7) {
                        perG.put(g, base / Math.pow(g, 0.5 + 0.4 * r.nextDouble()) * (0.8 + 0.4 * r.nextDouble()));
                    }
                }
                if (!perG.isEmpty()) times.put(type.name(), perG);
            }
            double submit = r.nextDouble() * now;
            double due = submit + 1000 + r.nextDouble() * 30000;
            jobs.add(new Job("j" + j, submit, due, 0.36 + r.nextDouble() * 0.72, times));
        }
        // some jobs run already: a consistent current placement built node by node
        int[] nodeType = new int[nodeCount];
        int[] free = new int[nodeCount];
        java.util.Arrays.fill(nodeType, -1);
        List<JobState> states = new ArrayList<>();
        for (int j = 0; j < jobCount; j++) {
            Job job = jobs.get(j);
            Placement current = null;
            if (r.nextInt(3) == 0) {
                int n = r.nextInt(nodeCount);
                int[] candidates = cluster.candidateTypes(n);
                int t = nodeType[n] >= 0 ? nodeType[n] : candidates[r.nextInt(candidates.length)];
                int room = nodeType[n] >= 0 ? free[n] : cluster.type(t).gpus();
                for (int g = room; g >= 1; g--) {
                    if (!Double.isNaN(job.timeOn(cluster.type(t).name(), g))) {
                        current = new Placement(n, t, g);
                        if (nodeType[n] < 0) {
                            nodeType[n] = t;
                            free[n] = cluster.type(t).gpus();
                        }
                        free[n] -= g;
                        break;
                    }
                }
            }
            double done = current == null && r.nextInt(4) > 0 ? 0 : r.nextDouble() * 0.9;
            states.add(new JobState(job, done, current));
        }
        ObjectiveParameters params = new ObjectiveParameters(100, 3600, r.nextInt(2));
        return new SchedulingProblem(now, cluster, states, nodeType, params);
    }
}
