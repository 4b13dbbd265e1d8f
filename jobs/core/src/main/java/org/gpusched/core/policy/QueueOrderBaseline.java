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
 *   <li>waiting jobs, in queue order, each take a whole empty node (one job per node, the node off again when the
 *       job ends) in a configuration (node type, GPUs) chosen by the {@link ConfigurationRule} among the types some
 *       empty node can take: by default ({@link ConfigurationRule#CHEAPEST_ON_TIME}, the ANDREAS authors'
 *       first-principle methods) the cheapest configuration that meets the job's due date, else the fastest; the
 *       node is one already running as that type, else the lowest index;</li>
 *   <li>a job that no empty node can run is skipped (the next one may fit); the others wait once no node is
 *       empty. No randomness.</li>
 * </ul>
 */
abstract class QueueOrderBaseline implements FreeNodePolicy {

    /** How a baseline picks the configuration a waiting job starts in. */
    public enum ConfigurationRule {
        /**
         * The ANDREAS authors' rule (GPUScheduler, first_principle_methods and Dstar): of the configurations whose
         * completion now + t meets the due date, the one of least cost t x costPerHour[g]; when none does, the one of
         * least t. Ties: the faster, then the cheaper, then the lower type index and GPU count.
         */
        CHEAPEST_ON_TIME,
        /**
         * All GPUs of a node (its fastest configuration when the job has no time for all of them), on the type giving
         * the fastest completion, ties to the cheaper: the rule before the authors' code was read, kept as the
         * {@code *-fastest} policies.
         */
        FASTEST
    }

    /** Suffix of the policy names that use {@link ConfigurationRule#FASTEST}. */
    public static final String FASTEST_SUFFIX = "-fastest";

    private final ConfigurationRule rule;

    QueueOrderBaseline(ConfigurationRule rule) {
        this.rule = java.util.Objects.requireNonNull(rule);
    }

    public ConfigurationRule configurationRule() {
        return rule;
    }

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

        if (waitingCount > 0)
            start(problem, waiting, waitingCount, nodeTypes, FreeNodePolicy.emptyNodes(nodeTypes), placements);
        return new Schedule(placements, nodeTypes, ObjectiveFunction.evaluate(problem, placements, nodeTypes));
    }

    @Override
    public Placement[] startOnFreeNodes(SchedulingProblem problem, int[] heldNodeTypes, int[] emptyNodes) {
        Cluster cluster = problem.cluster();
        if (heldNodeTypes.length != cluster.nodeCount()) {
            throw new IllegalArgumentException(
                    "held node types: " + heldNodeTypes.length + " for " + cluster.nodeCount() + " nodes");
        }
        for (int i = 0; i < emptyNodes.length; i++) {
            int n = emptyNodes[i];
            if (n < 0 || n >= cluster.nodeCount() || i > 0 && n <= emptyNodes[i - 1]) {
                throw new IllegalArgumentException("empty nodes: entry " + i + " is " + n
                        + ", not a node index above the one before it (" + cluster.nodeCount() + " nodes)");
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
        if (jobs > 0) start(problem, waiting, jobs, heldNodeTypes, emptyNodes, placements);
        return placements;
    }

    /**
     * Starts the {@code waiting} jobs in queue order, each on an empty node ({@code nodeTypes[n] == -1}, one of {@code
     * emptyNodes}), which it then takes.
     */
    private void start(
            SchedulingProblem problem,
            int[] waiting,
            int waitingCount,
            int[] nodeTypes,
            int[] emptyNodes,
            Placement[] placements) {
        Cluster cluster = problem.cluster();
        int jobs = problem.jobCount();
        // queue order: stable sort by submission, then by the policy's key
        double[] key = new double[jobs];
        IndexSort sorter = new IndexSort();
        for (int j = 0; j < jobs; j++) key[j] = problem.job(j).job().submitSeconds();
        sorter.sort(waiting, waitingCount, key, false);
        for (int j = 0; j < jobs; j++) key[j] = queueKey(problem.job(j).job());
        sorter.sort(waiting, waitingCount, key, false);

        EmptyNodes empty = new EmptyNodes(problem, nodeTypes, emptyNodes);
        int emptyTotal = empty.count();
        for (int w = 0; w < waitingCount && emptyTotal > 0; w++) {
            int j = waiting[w];
            long chosen = rule == ConfigurationRule.CHEAPEST_ON_TIME
                    ? cheapestOnTime(problem, j, empty)
                    : fastest(problem, j, empty);
            if (chosen < 0) continue;
            int bestType = (int) (chosen >>> 32), bestGpus = (int) chosen;
            int n = empty.first(bestType);
            nodeTypes[n] = bestType;
            emptyTotal--;
            placements[j] = new Placement(n, bestType, bestGpus);
        }
    }

    /**
     * {@link ConfigurationRule#CHEAPEST_ON_TIME}: (type << 32 | gpus) of job j's configuration among the types with an
     * empty node, or -1 when it has none there.
     */
    private static long cheapestOnTime(SchedulingProblem problem, int j, EmptyNodes empty) {
        Cluster cluster = problem.cluster();
        double slack = problem.job(j).job().dueSeconds() - problem.now();
        long onTime = -1, late = -1;
        double onTimeCost = Double.POSITIVE_INFINITY, onTimeTime = Double.POSITIVE_INFINITY;
        double lateTime = Double.POSITIVE_INFINITY, lateCost = Double.POSITIVE_INFINITY;
        for (int t = 0; t < cluster.typeCount(); t++) {
            if (empty.first(t) < 0) continue;
            for (int g = 1; g <= cluster.type(t).gpus(); g++) {
                double r = problem.remaining(j, t, g);
                if (Double.isNaN(r)) continue;
                double cost = r * cluster.type(t).costPerHour(g);
                long config = (long) t << 32 | g;
                if (r <= slack) {
                    if (cost < onTimeCost || (cost == onTimeCost && r < onTimeTime)) {
                        onTime = config;
                        onTimeCost = cost;
                        onTimeTime = r;
                    }
                } else if (r < lateTime || (r == lateTime && cost < lateCost)) {
                    late = config;
                    lateTime = r;
                    lateCost = cost;
                }
            }
        }
        return onTime >= 0 ? onTime : late;
    }

    /** {@link ConfigurationRule#FASTEST}: as {@link #cheapestOnTime}, by the older rule. */
    private static long fastest(SchedulingProblem problem, int j, EmptyNodes empty) {
        Cluster cluster = problem.cluster();
        int types = cluster.typeCount();
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
        return bestType < 0 ? -1 : (long) bestType << 32 | bestGpus;
    }

    /**
     * Per type, the empty nodes that can take it in preference order: those already running as it (a node freed at
     * this event keeps its type until rescheduled), then the others, each by index. Searched lazily with a pointer per
     * type, since nodes only get taken within a call: a call costs the nodes it looks at, not nodes x types, and on a
     * full cluster it looks at the few empty ones only.
     */
    private static final class EmptyNodes {
        private final SchedulingProblem problem;
        private final int[] nodeTypes;
        /** The nodes empty when the caller listed them, by index (some may be taken since). */
        private final int[] empty;

        private final int[][] warm;
        private final int[] warmCount, warmPointer, restPointer;

        EmptyNodes(SchedulingProblem problem, int[] nodeTypes, int[] empty) {
            this.problem = problem;
            this.nodeTypes = nodeTypes;
            this.empty = empty;
            int types = problem.cluster().typeCount();
            warm = new int[types][];
            warmCount = new int[types];
            warmPointer = new int[types];
            restPointer = new int[types];
            for (int n : empty) {
                int t = problem.currentNodeType(n);
                if (nodeTypes[n] != -1 || t < 0 || !problem.cluster().canTake(n, t)) continue;
                if (warm[t] == null) warm[t] = new int[4];
                if (warmCount[t] == warm[t].length) warm[t] = Arrays.copyOf(warm[t], warmCount[t] * 2);
                warm[t][warmCount[t]++] = n;
            }
        }

        /** How many of the listed nodes are still empty. */
        int count() {
            int count = 0;
            for (int n : empty) if (nodeTypes[n] == -1) count++;
            return count;
        }

        /** The preferred empty node that can take type t, or -1. */
        int first(int t) {
            while (warmPointer[t] < warmCount[t] && nodeTypes[warm[t][warmPointer[t]]] != -1) warmPointer[t]++;
            if (warmPointer[t] < warmCount[t]) return warm[t][warmPointer[t]];
            Cluster cluster = problem.cluster();
            int i = restPointer[t];
            while (i < empty.length
                    && !(nodeTypes[empty[i]] == -1
                            && problem.currentNodeType(empty[i]) != t
                            && cluster.canTake(empty[i], t))) i++;
            restPointer[t] = i;
            return i < empty.length ? empty[i] : -1;
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
