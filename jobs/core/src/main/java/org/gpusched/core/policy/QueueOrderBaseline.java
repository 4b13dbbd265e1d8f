package org.gpusched.core.policy;

import java.util.Arrays;
import org.gpusched.core.model.Cluster;
import org.gpusched.core.model.InvalidInstanceException;
import org.gpusched.core.model.Placement;
import org.gpusched.core.model.Schedule;
import org.gpusched.core.model.SchedulingProblem;
import org.gpusched.core.objective.ObjectiveFunction;
import org.gpusched.core.random.RandomState;

/**
 * The first-principle baselines the papers compare against (ANDREAS Section V, hierarchical paper Section V,
 * thesis: FIFO, EDF, priority scheduling), as one shared rule with a queue order per subclass:
 * <ul>
 *   <li>running jobs are never preempted, resized or moved (their placement and node type are kept);</li>
 *   <li>waiting jobs, in queue order, each take a whole empty node (one job per node): all its GPUs if the job has
 *       a time for them, else its fastest configuration there; among the empty nodes (and, for a rightsizable node,
 *       its types) the one giving the fastest completion, ties to the cheaper configuration, then to a node already
 *       running as that type, then the lowest index;</li>
 *   <li>a job that no empty node can run is skipped (the next one may fit); the others wait once no node is
 *       empty. No randomness.</li>
 * </ul>
 */
abstract class QueueOrderBaseline implements SchedulingPolicy {

    /** Fills {@code key} (ascending = served first); ties are served by submission time, then job index. */
    protected abstract void queueKey(SchedulingProblem problem, double[] key);

    /** The queue order and the fill of empty nodes do not depend on the time: a tick changes nothing. */
    @Override
    public boolean decidesOnTicks() { return false; }

    @Override
    public Schedule schedule(SchedulingProblem problem, RandomState random) {
        Cluster cluster = problem.cluster();
        int jobs = problem.jobCount();
        int nodes = cluster.nodeCount();
        int types = cluster.typeCount();
        Placement[] placements = new Placement[jobs];
        int[] nodeTypes = new int[nodes];
        Arrays.fill(nodeTypes, -1);
        int[] busy = new int[nodes];
        int[] waiting = new int[jobs];
        int waitingCount = 0;
        for (int j = 0; j < jobs; j++) {
            Placement p = problem.job(j).current();
            if (p == null) {
                waiting[waitingCount++] = j;
                continue;
            }
            keepRunning(problem, j, p, nodeTypes, busy);
            placements[j] = p;
        }

        if (waitingCount == 0) return new Schedule(placements, nodeTypes, ObjectiveFunction.evaluate(problem, placements, nodeTypes));

        // queue order: stable sort by submission, then by the policy's key
        double[] key = new double[jobs];
        int[] scratch = new int[jobs];
        for (int j = 0; j < jobs; j++) key[j] = problem.job(j).job().submitSeconds();
        IndexSort.sort(waiting, waitingCount, key, false, scratch);
        queueKey(problem, key);
        IndexSort.sort(waiting, waitingCount, key, false, scratch);

        // empty nodes per type, nodes already running as that type first
        int[][] emptyByType = new int[types][];
        int[] pointer = new int[types];
        int[] emptyCount = new int[types];
        int emptyTotal = 0;
        for (int n = 0; n < nodes; n++) if (nodeTypes[n] == -1) emptyTotal++;
        // one pass over the nodes (not one per type): per type, the empty nodes already running as it, then the others,
        // each in node order
        int[][] first = new int[types][nodes];
        int[] firstCount = new int[types];
        int[][] rest = new int[types][];
        int[] restCount = new int[types];
        int[] listedNode = new int[types]; // a type listed twice for a node lists the node once
        Arrays.fill(listedNode, -1);
        for (int n = 0; n < nodes && waitingCount > 0; n++) { // nobody waits (often): nothing to place
            if (nodeTypes[n] != -1) continue;
            int current = problem.currentNodeType(n);
            for (int t : cluster.candidateTypes(n)) {
                if (listedNode[t] == n) continue;
                listedNode[t] = n;
                if (t == current) {
                    first[t][firstCount[t]++] = n;
                } else {
                    if (rest[t] == null) rest[t] = new int[nodes];
                    rest[t][restCount[t]++] = n;
                }
            }
        }
        for (int t = 0; t < types; t++) {
            int k = firstCount[t] + restCount[t];
            int[] list = Arrays.copyOf(first[t], k);
            if (restCount[t] > 0) System.arraycopy(rest[t], 0, list, firstCount[t], restCount[t]);
            emptyByType[t] = list;
            emptyCount[t] = k;
        }

        for (int w = 0; w < waitingCount && emptyTotal > 0; w++) {
            int j = waiting[w];
            int bestType = -1, bestGpus = 0;
            double bestTime = Double.POSITIVE_INFINITY, bestCost = Double.POSITIVE_INFINITY;
            for (int t = 0; t < types; t++) {
                if (emptyCount[t] == 0) continue;
                int all = cluster.type(t).gpus();
                int g = all;
                double r = problem.remaining(j, t, all);
                if (Double.isNaN(r)) {
                    g = 0;
                    r = Double.POSITIVE_INFINITY;
                    for (int h = 1; h < all; h++) {
                        double rh = problem.remaining(j, t, h);
                        if (!Double.isNaN(rh) && rh < r) { r = rh; g = h; }
                    }
                    if (g == 0) continue;
                }
                double cost = r * cluster.type(t).costPerHour(g);
                if (r < bestTime || (r == bestTime && cost < bestCost)) {
                    bestType = t;
                    bestGpus = g;
                    bestTime = r;
                    bestCost = cost;
                }
            }
            if (bestType < 0) continue;
            int[] list = emptyByType[bestType];
            int ptr = pointer[bestType];
            while (nodeTypes[list[ptr]] != -1) ptr++;
            pointer[bestType] = ptr;
            int n = list[ptr];
            nodeTypes[n] = bestType;
            emptyTotal--;
            for (int u : cluster.candidateTypes(n)) emptyCount[u]--;
            placements[j] = new Placement(n, bestType, bestGpus);
        }
        return new Schedule(placements, nodeTypes, ObjectiveFunction.evaluate(problem, placements, nodeTypes));
    }

    private static boolean canRun(Cluster cluster, int n, int t) {
        for (int u : cluster.candidateTypes(n)) if (u == t) return true;
        return false;
    }

    private static void keepRunning(SchedulingProblem problem, int j, Placement p, int[] nodeTypes, int[] busy) {
        Cluster cluster = problem.cluster();
        String job = problem.job(j).job().id();
        String node = cluster.node(p.node()).id();
        if (p.type() >= cluster.typeCount() || !canRun(cluster, p.node(), p.type())) {
            throw new InvalidInstanceException("job " + job + ": runs on node " + node + " as type index " + p.type() + ", which that node cannot take");
        }
        if (nodeTypes[p.node()] != -1 && nodeTypes[p.node()] != p.type()) {
            throw new InvalidInstanceException("job " + job + ": runs on node " + node + " as " + cluster.type(p.type()).name()
                    + " but another running job has it as " + cluster.type(nodeTypes[p.node()]).name());
        }
        nodeTypes[p.node()] = p.type();
        busy[p.node()] += p.gpus();
        if (busy[p.node()] > cluster.type(p.type()).gpus()) {
            throw new InvalidInstanceException("node " + node + ": running jobs use " + busy[p.node()] + " GPUs, more than its "
                    + cluster.type(p.type()).gpus() + " (last: job " + job + ")");
        }
    }
}
