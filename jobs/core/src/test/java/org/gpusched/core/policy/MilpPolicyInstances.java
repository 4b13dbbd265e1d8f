package org.gpusched.core.policy;

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
import org.gpusched.core.model.Schedule;
import org.gpusched.core.model.SchedulingProblem;
import org.gpusched.core.objective.ObjectiveFunction;
import org.gpusched.core.objective.ObjectiveParameters;
import org.gpusched.core.random.RandomState;

/**
 * Tiny seeded instances for the milp and rg-ls tests and an exhaustive enumerator of their optimum.
 */
final class MilpPolicyInstances {
    private MilpPolicyInstances() {}

    static final double NOW = 7200;

    /** ANDREAS-like: fixed V100 and T4 nodes with energy costs; times sublinear in GPUs. */
    static SchedulingProblem andreasLike(long seed, int nodes, int jobs, int gpusPerNode, double mu) {
        RandomState random = new RandomState(seed);
        List<NodeType> types = List.of(
                NodeType.energy("V100x" + gpusPerNode, "V100", gpusPerNode, new EnergyModel(40, 300, 150, 0.25, 1.3)),
                NodeType.energy("T4x" + gpusPerNode, "T4", gpusPerNode, new EnergyModel(10, 70, 100, 0.25, 1.3)));
        List<Node> nodeList = new ArrayList<>();
        // node 0 is a V100 so that every job (each has a V100 time) can run somewhere
        for (int n = 0; n < nodes; n++)
            nodeList.add(Node.fixed(
                    "n" + n, types.get(n == 0 ? 0 : random.nextInt(2)).name()));
        Cluster cluster = new Cluster(types, nodeList);
        return new SchedulingProblem(
                NOW,
                cluster,
                randomJobs(random, jobs, types, gpusPerNode),
                null,
                new ObjectiveParameters(100, 3600, mu));
    }

    /** Cloud-like: rightsizable nodes choosing among VM types of different GPU models and sizes, whole-VM prices. */
    static SchedulingProblem rightsizable(long seed, int nodes, int jobs, double mu) {
        RandomState random = new RandomState(seed);
        List<NodeType> types = List.of(
                NodeType.priced("NC6", "K80", 1, 0.9),
                NodeType.priced("NC12", "K80", 2, 1.8),
                NodeType.priced("NC6s_v3", "V100", 1, 3.06),
                NodeType.priced("NC12s_v3", "V100", 2, 6.12));
        List<Node> nodeList = new ArrayList<>();
        for (int n = 0; n < nodes; n++) nodeList.add(Node.rightsizable("vm" + n));
        Cluster cluster = new Cluster(types, nodeList);
        return new SchedulingProblem(
                NOW, cluster, randomJobs(random, jobs, types, 2), null, new ObjectiveParameters(100, 3600, mu));
    }

    private static List<JobState> randomJobs(RandomState random, int count, List<NodeType> types, int maxGpus) {
        List<JobState> jobs = new ArrayList<>();
        for (int j = 0; j < count; j++) {
            double base = 1800 + random.nextDouble() * 12600; // one V100 GPU
            double scaling = 0.5 + random.nextDouble() * 0.4; // t(g) = base x g^-scaling
            double slowdownK80 = 2 + random.nextDouble() * 2;
            double slowdownT4 = 1.3 + random.nextDouble() * 1.5;
            Map<String, Map<Integer, Double>> times = new LinkedHashMap<>();
            for (int t = 0; t < types.size(); t++) {
                NodeType type = types.get(t);
                if (t > 0 && j % 2 == 1 && random.nextInt(4) == 0) continue; // some jobs cannot run on some types
                double factor = switch (type.gpuModel()) {
                    case "K80" -> slowdownK80;
                    case "T4" -> slowdownT4;
                    default -> 1;
                };
                Map<Integer, Double> perGpus = new LinkedHashMap<>();
                for (int g = 1; g <= Math.min(maxGpus, type.gpus()); g++)
                    perGpus.put(g, base * factor * Math.pow(g, -scaling));
                times.put(type.name(), perGpus);
            }
            double submit = random.nextDouble() * NOW;
            double due = Math.max(submit, NOW + (random.nextDouble() * 2.5 - 0.3) * base);
            double weight = 1 + random.nextInt(10);
            double done = random.nextInt(3) == 0 ? random.nextDouble() * 0.6 : 0;
            jobs.add(new JobState(new Job("j" + j, submit, due, weight, times), done, null));
        }
        return jobs;
    }

    /** The least f_OBJ over every schedule (each job postponed or on any node/type/GPU count that fits). */
    static double bruteForceOptimum(SchedulingProblem problem) {
        return bruteForceOptimum(problem, false);
    }

    /** The same over work-conserving schedules only ({@link WorkConservation}) when {@code workConserving}. */
    static double bruteForceOptimum(SchedulingProblem problem, boolean workConserving) {
        Cluster cluster = problem.cluster();
        int nodes = cluster.nodeCount();
        int[] nodeTypes = new int[nodes];
        double[] best = {Double.POSITIVE_INFINITY};
        enumerateTypes(problem, 0, nodeTypes, best, workConserving);
        return best[0];
    }

    private static void enumerateTypes(
            SchedulingProblem problem, int n, int[] nodeTypes, double[] best, boolean workConserving) {
        Cluster cluster = problem.cluster();
        if (n == cluster.nodeCount()) {
            int[] free = new int[cluster.nodeCount()];
            for (int i = 0; i < free.length; i++)
                free[i] = cluster.type(nodeTypes[i]).gpus();
            enumerateJobs(problem, 0, nodeTypes, free, new Placement[problem.jobCount()], best, workConserving);
            return;
        }
        for (int t : cluster.candidateTypes(n)) {
            nodeTypes[n] = t;
            enumerateTypes(problem, n + 1, nodeTypes, best, workConserving);
        }
    }

    private static void enumerateJobs(
            SchedulingProblem problem,
            int j,
            int[] nodeTypes,
            int[] free,
            Placement[] placements,
            double[] best,
            boolean workConserving) {
        if (j == problem.jobCount()) {
            double f = ObjectiveFunction.evaluate(problem, placements, nodeTypes);
            if (f < best[0]
                    && (!workConserving
                            || WorkConservation.holds(problem, asSchedule(problem, placements, nodeTypes, f))))
                best[0] = f;
            return;
        }
        placements[j] = null;
        enumerateJobs(problem, j + 1, nodeTypes, free, placements, best, workConserving);
        for (int n = 0; n < nodeTypes.length; n++) {
            int t = nodeTypes[n];
            for (int g = 1; g <= free[n]; g++) {
                if (Double.isNaN(problem.remaining(j, t, g))) continue;
                placements[j] = new Placement(n, t, g);
                free[n] -= g;
                enumerateJobs(problem, j + 1, nodeTypes, free, placements, best, workConserving);
                free[n] += g;
            }
        }
        placements[j] = null;
    }

    /** The enumerated placements as a schedule: nodes hosting no job are off. */
    private static Schedule asSchedule(SchedulingProblem problem, Placement[] placements, int[] nodeTypes, double f) {
        int[] used = new int[nodeTypes.length];
        java.util.Arrays.fill(used, -1);
        for (Placement p : placements) if (p != null) used[p.node()] = nodeTypes[p.node()];
        return new Schedule(placements.clone(), used, f);
    }
}
