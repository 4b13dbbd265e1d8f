package org.gpusched.core.objective;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.gpusched.core.model.Cluster;
import org.gpusched.core.model.Job;
import org.gpusched.core.model.JobState;
import org.gpusched.core.model.Node;
import org.gpusched.core.model.NodeType;
import org.gpusched.core.model.Placement;
import org.gpusched.core.model.SchedulingProblem;
import org.gpusched.core.random.RandomState;
import org.junit.jupiter.api.Test;

class ObjectiveFunctionTest {
    private static final NodeType SMALL = new NodeType("S", "T4", 2, new double[] {0.5, 1.25, 2.0});
    private static final NodeType LARGE = new NodeType("L", "V100", 4, new double[] {1.0, 3.0, 5.5, 8.0, 10.0});

    private static Cluster cluster(int nodes) {
        List<Node> list = new ArrayList<>();
        for (int n = 0; n < nodes; n++)
            list.add(n % 3 == 0 ? Node.rightsizable("r" + n) : Node.fixed("f" + n, n % 3 == 1 ? "S" : "L"));
        return new Cluster(List.of(SMALL, LARGE), list);
    }

    /** f_OBJ by its definition: the jobs' terms in order, then each used node's in node order, over arrays of all nodes. */
    private static double byDefinition(
            ObjectiveParameters params, Cluster cluster, double now, double[][] jobs, int[] nodeTypes) {
        double sum = 0;
        double[] first = new double[cluster.nodeCount()];
        int[] busy = new int[cluster.nodeCount()];
        for (double[] j : jobs) {
            double weight = j[0], due = j[1], remaining = j[2];
            int node = (int) j[3], type = (int) j[4], gpus = (int) j[5];
            if (node < 0) {
                double late = now + params.horizonSeconds() + remaining - due;
                if (late > 0) sum += params.rho() * weight * late / 3600.0;
                continue;
            }
            double late = now + remaining - due;
            if (late > 0) sum += weight * late / 3600.0;
            double cost = remaining / 3600.0 * cluster.type(type).costPerHour(gpus);
            if (busy[node] == 0 || cost < first[node]) first[node] = cost;
            busy[node] += gpus;
        }
        for (int n = 0; n < busy.length; n++) {
            if (busy[n] == 0) continue;
            sum += first[n];
            if (params.mu() > 0)
                sum += params.mu() * (cluster.type(nodeTypes[n]).gpus() - busy[n]);
        }
        return sum;
    }

    /**
     * Random jobs on random nodes of clusters up to 300 nodes (several jobs to a node, nodes used in any order, more
     * jobs than the size hint so the table of used nodes grows): the very same double as the definition.
     */
    @Property(tries = 300)
    void sumsTheSameDoubleAsTheDefinitionWhateverTheOrderOfNodes(@ForAll long seed) {
        RandomState r = new RandomState(seed);
        Cluster cluster = cluster(1 + r.nextInt(300));
        ObjectiveParameters params = new ObjectiveParameters(r.nextInt(3) * 50, 3600, r.nextInt(2) * 0.25);
        double now = r.nextInt(100_000);
        int[] nodeTypes = new int[cluster.nodeCount()];
        for (int n = 0; n < nodeTypes.length; n++)
            nodeTypes[n] = cluster.candidateTypes(n)[r.nextInt(cluster.candidateTypes(n).length)];
        double[][] jobs = new double[r.nextInt(400)][];
        int[] free = new int[cluster.nodeCount()];
        for (int n = 0; n < free.length; n++)
            free[n] = cluster.type(nodeTypes[n]).gpus();
        for (int j = 0; j < jobs.length; j++) {
            int node = r.nextInt(cluster.nodeCount());
            double remaining = 1 + r.nextInt(200_000) * 0.37;
            double due = r.nextInt(200_000);
            double weight = r.nextInt(5) * 0.75;
            if (free[node] == 0 || r.nextInt(4) == 0) {
                jobs[j] = new double[] {weight, due, remaining, -1, -1, 0};
            } else {
                int gpus = 1 + r.nextInt(free[node]);
                free[node] -= gpus;
                jobs[j] = new double[] {weight, due, remaining, node, nodeTypes[node], gpus};
            }
        }
        ObjectiveFunction.Sum sum =
                new ObjectiveFunction.Sum(params, cluster, now, r.nextInt(Math.max(1, jobs.length)));
        for (double[] j : jobs) {
            if (j[3] < 0) sum.postponed(j[0], j[1], j[2]);
            else sum.scheduled(j[0], j[1], j[2], (int) j[3], (int) j[4], (int) j[5]);
        }
        assertEquals(byDefinition(params, cluster, now, jobs, nodeTypes), sum.total(nodeTypes));
    }

    /**
     * Placed jobs kept by node, read for the nodes a random scope leaves out: the very same double as a Sum over the
     * jobs on those nodes alone, added in the same order.
     */
    @Property(tries = 300)
    void theJobsOutsideAScopeSumAsASumOverThemAlone(@ForAll long seed) {
        RandomState r = new RandomState(seed);
        Cluster cluster = cluster(1 + r.nextInt(300));
        ObjectiveParameters params = new ObjectiveParameters(100, 3600, r.nextInt(2) * 0.25);
        double now = r.nextInt(100_000);
        int[] nodeTypes = new int[cluster.nodeCount()];
        int[] free = new int[cluster.nodeCount()];
        int[] scopeNode = new int[cluster.nodeCount()];
        for (int n = 0; n < nodeTypes.length; n++) {
            nodeTypes[n] = cluster.candidateTypes(n)[r.nextInt(cluster.candidateTypes(n).length)];
            free[n] = cluster.type(nodeTypes[n]).gpus();
            scopeNode[n] = r.nextInt(3) == 0 ? n : -1;
        }
        ObjectiveFunction.ByNode byNode = new ObjectiveFunction.ByNode(params, cluster, now);
        ObjectiveFunction.Sum outside = new ObjectiveFunction.Sum(params, cluster, now, 1);
        for (int j = r.nextInt(400); j > 0; j--) {
            int node = r.nextInt(cluster.nodeCount());
            if (free[node] == 0) continue;
            int gpus = 1 + r.nextInt(free[node]);
            free[node] -= gpus;
            double remaining = 1 + r.nextInt(200_000) * 0.37, due = r.nextInt(200_000), weight = r.nextInt(5) * 0.75;
            byNode.scheduled(weight, due, remaining, node, nodeTypes[node], gpus);
            if (scopeNode[node] < 0) outside.scheduled(weight, due, remaining, node, nodeTypes[node], gpus);
        }
        assertEquals(outside.total(nodeTypes), byNode.totalOutside(scopeNode, nodeTypes));
    }

    @Test
    void aNodeCostsItsCheapestJobToFinishAndItsIdleGpus() {
        Cluster cluster = cluster(3); // r0 rightsizable, f1 small, f2 large
        ObjectiveParameters params = new ObjectiveParameters(0, 3600, 0.5);
        ObjectiveFunction.Sum sum = new ObjectiveFunction.Sum(params, cluster, 0, 3);
        sum.scheduled(0, 1e9, 7200, 2, 1, 1); // 2 h x 3.0
        sum.scheduled(0, 1e9, 3600, 2, 1, 2); // 1 h x 5.5: the cheaper to finish
        sum.scheduled(0, 1e9, 1800, 1, 0, 1); // 0.5 h x 1.25
        // large node: 5.5 + 0.5 x 1 idle GPU; small node: 0.625 + 0.5 x 1 idle GPU
        assertEquals(5.5 + 0.5 + 0.625 + 0.5, sum.total(new int[] {-1, 0, 1}), 1e-12);
    }

    @Test
    void aMoveIsPricedWithTheProgressItLosesAndItsRestart() {
        Cluster cluster = cluster(3); // r0 rightsizable, f1 small, f2 large
        ObjectiveParameters params = new ObjectiveParameters(100, 3600, 0);
        // 7200 s on S x1, 3600 s on L x1; half done, a quarter of the work since the last snapshot, 600 s to restart
        Job job = new Job(
                "j", 0, 3600, 10, java.util.Map.of("S", java.util.Map.of(1, 7200.0), "L", java.util.Map.of(1, 3600.0)));
        Placement current = new Placement(2, 1, 1);
        SchedulingProblem problem = new SchedulingProblem(
                0, cluster, List.of(new JobState(job, 0.5, current, 0.25, 600)), new int[] {-1, -1, 1}, params);
        // in place: 1800 s left, no tardiness, 0.5 h x 3.0
        assertEquals(1800, problem.remainingAt(0, current), 1e-9);
        assertEquals(1.5, ObjectiveFunction.evaluate(problem, new Placement[] {current}, new int[] {-1, -1, 1}), 1e-9);
        // moved to f1 (S x1): 0.75 x 7200 + 600 = 6000 s: 2400 s late x 10/h = 6.6667, plus 6000/3600 h x 1.25
        Placement moved = new Placement(1, 0, 1);
        assertEquals(6000, problem.remainingAt(0, moved), 1e-9);
        assertEquals(
                10 * 2400 / 3600.0 + 6000 / 3600.0 * 1.25,
                ObjectiveFunction.evaluate(problem, new Placement[] {moved}, new int[] {-1, 0, -1}),
                1e-9);
        // the same job with free moves keeps its progress: 0.5 x 7200 = 3600 s, on time
        SchedulingProblem free = new SchedulingProblem(
                0, cluster, List.of(new JobState(job, 0.5, current)), new int[] {-1, -1, 1}, params);
        assertEquals(3600, free.remainingAt(0, moved), 1e-9);
    }
}
