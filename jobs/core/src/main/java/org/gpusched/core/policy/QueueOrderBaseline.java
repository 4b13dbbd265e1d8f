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
abstract class QueueOrderBaseline implements FreeNodePolicy {

    /** The queue order and the fill of empty nodes do not depend on the time: a tick changes nothing. */
    @Override
    public boolean decidesOnTicks() {
        return false;
    }

    @Override
    public boolean startsOnlyOnFreeNodes() {
        return true;
    }

    @Override
    public Schedule schedule(SchedulingProblem problem, RandomState random) {
        int jobs = problem.jobCount();
        int nodes = problem.cluster().nodeCount();
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

        if (waitingCount > 0) start(problem, waiting, waitingCount, nodeTypes, placements);
        return new Schedule(placements, nodeTypes, ObjectiveFunction.evaluate(problem, placements, nodeTypes));
    }

    @Override
    public Placement[] startOnFreeNodes(SchedulingProblem problem, int[] heldNodeTypes) {
        Cluster cluster = problem.cluster();
        if (heldNodeTypes.length != cluster.nodeCount()) {
            throw new IllegalArgumentException(
                    "held node types: " + heldNodeTypes.length + " for " + cluster.nodeCount() + " nodes");
        }
        for (int n = 0; n < heldNodeTypes.length; n++) {
            if (heldNodeTypes[n] < -1 || heldNodeTypes[n] >= cluster.typeCount()) {
                throw new IllegalArgumentException(
                        "held node types: node " + cluster.node(n).id() + " has type index " + heldNodeTypes[n]);
            }
        }
        int jobs = problem.jobCount();
        int[] waiting = new int[jobs];
        for (int j = 0; j < jobs; j++) {
            if (problem.job(j).current() != null)
                throw new IllegalArgumentException(
                        "job " + problem.job(j).job().id() + " runs: only waiting jobs can be started");
            waiting[j] = j;
        }
        Placement[] placements = new Placement[jobs];
        if (jobs > 0) start(problem, waiting, jobs, heldNodeTypes.clone(), placements);
        return placements;
    }

    /** Starts the {@code waiting} jobs in queue order, each on an empty node ({@code nodeTypes[n] == -1}), which it then takes. */
    private void start(
            SchedulingProblem problem, int[] waiting, int waitingCount, int[] nodeTypes, Placement[] placements) {
        Cluster cluster = problem.cluster();
        int jobs = problem.jobCount();
        int nodes = cluster.nodeCount();
        int types = cluster.typeCount();
        // queue order: stable sort by submission, then by the policy's key
        double[] key = new double[jobs];
        int[] scratch = new int[jobs];
        for (int j = 0; j < jobs; j++) key[j] = problem.job(j).job().submitSeconds();
        IndexSort.sort(waiting, waitingCount, key, false, scratch);
        for (int j = 0; j < jobs; j++) key[j] = queueKey(problem.job(j).job());
        IndexSort.sort(waiting, waitingCount, key, false, scratch);

        EmptyNodes empty = new EmptyNodes(problem, nodeTypes);
        int emptyTotal = 0;
        for (int n = 0; n < nodes; n++) if (nodeTypes[n] == -1) emptyTotal++;
        for (int w = 0; w < waitingCount && emptyTotal > 0; w++) {
            int j = waiting[w];
            int bestType = -1, bestGpus = 0;
            double bestTime = Double.POSITIVE_INFINITY, bestCost = Double.POSITIVE_INFINITY;
            for (int t = 0; t < types; t++) {
                if (empty.first(t) < 0) continue;
                int all = cluster.type(t).gpus();
                int g = all;
                double r = problem.remaining(j, t, all);
                if (Double.isNaN(r)) {
                    g = 0;
                    r = Double.POSITIVE_INFINITY;
                    for (int h = 1; h < all; h++) {
                        double rh = problem.remaining(j, t, h);
                        if (!Double.isNaN(rh) && rh < r) {
                            r = rh;
                            g = h;
                        }
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
            int n = empty.first(bestType);
            nodeTypes[n] = bestType;
            emptyTotal--;
            placements[j] = new Placement(n, bestType, bestGpus);
        }
    }

    /**
     * Per type, the empty nodes that can take it in preference order: those already running as it (a node freed at
     * this event keeps its type until rescheduled), then the others, each by index. Searched lazily with a pointer per
     * type, since nodes only get taken within a call: a call costs the nodes it looks at, not nodes x types.
     */
    private static final class EmptyNodes {
        private final SchedulingProblem problem;
        private final int[] nodeTypes;
        private final int[][] warm;
        private final int[] warmCount, warmPointer, restPointer;

        EmptyNodes(SchedulingProblem problem, int[] nodeTypes) {
            this.problem = problem;
            this.nodeTypes = nodeTypes;
            int types = problem.cluster().typeCount();
            warm = new int[types][];
            warmCount = new int[types];
            warmPointer = new int[types];
            restPointer = new int[types];
            for (int n = 0; n < nodeTypes.length; n++) {
                int t = problem.currentNodeType(n);
                if (nodeTypes[n] != -1 || t < 0 || !problem.cluster().canTake(n, t)) continue;
                if (warm[t] == null) warm[t] = new int[4];
                if (warmCount[t] == warm[t].length) warm[t] = Arrays.copyOf(warm[t], warmCount[t] * 2);
                warm[t][warmCount[t]++] = n;
            }
        }

        /** The preferred empty node that can take type t, or -1. */
        int first(int t) {
            while (warmPointer[t] < warmCount[t] && nodeTypes[warm[t][warmPointer[t]]] != -1) warmPointer[t]++;
            if (warmPointer[t] < warmCount[t]) return warm[t][warmPointer[t]];
            Cluster cluster = problem.cluster();
            int n = restPointer[t];
            while (n < nodeTypes.length
                    && !(nodeTypes[n] == -1 && problem.currentNodeType(n) != t && cluster.canTake(n, t))) n++;
            restPointer[t] = n;
            return n < nodeTypes.length ? n : -1;
        }
    }

    private static void keepRunning(SchedulingProblem problem, int j, Placement p, int[] nodeTypes, int[] busy) {
        Cluster cluster = problem.cluster();
        String job = problem.job(j).job().id();
        String node = cluster.node(p.node()).id();
        if (!cluster.canTake(p.node(), p.type())) {
            throw new InvalidInstanceException("job " + job + ": runs on node " + node + " as type index " + p.type()
                    + ", which that node cannot take");
        }
        if (nodeTypes[p.node()] != -1 && nodeTypes[p.node()] != p.type()) {
            throw new InvalidInstanceException("job " + job + ": runs on node " + node + " as "
                    + cluster.type(p.type()).name() + " but another running job has it as "
                    + cluster.type(nodeTypes[p.node()]).name());
        }
        nodeTypes[p.node()] = p.type();
        busy[p.node()] += p.gpus();
        if (busy[p.node()] > cluster.type(p.type()).gpus()) {
            throw new InvalidInstanceException("node " + node + ": running jobs use " + busy[p.node()]
                    + " GPUs, more than its " + cluster.type(p.type()).gpus() + " (last: job " + job + ")");
        }
    }
}
