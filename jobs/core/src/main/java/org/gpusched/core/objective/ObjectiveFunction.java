package org.gpusched.core.objective;

import java.util.Arrays;
import org.gpusched.core.model.Cluster;
import org.gpusched.core.model.Placement;
import org.gpusched.core.model.SchedulingProblem;

/**
 * The per-decision proxy f_OBJ of ANDREAS (eq. 1) and of the hierarchical paper's (P2a), in cost units:
 * <ul>
 *   <li>each scheduled job: weight x tardiness, tardiness = max(0, now + remaining - due) in hours, the remaining
 *       time with what a move or restart costs the job ({@link SchedulingProblem#remainingAt});</li>
 *   <li>each postponed job: rho x weight x worst-case tardiness, max(0, now + H + M_j - due) in hours, M_j the
 *       remaining time on the slowest configuration (for a running job, after what preempting it costs:
 *       {@link SchedulingProblem#postponedRemaining});</li>
 *   <li>each used node: the execution cost of its first-ending job, remaining hours x costPerHour[type][g of
 *       that job] (ANDREAS constraint 4k indexes the rate by the job's own GPU count). (P2) picks the alpha
 *       variable by minimization, so it charges the job with the least such cost; we use that same reading
 *       (least remaining x rate on the node), which is the first-ending job whenever the rate does not depend on
 *       g (VM pricing) and keeps the heuristics and the MILP on one objective;</li>
 *   <li>plus mu x idle GPUs on each used node (P2a);</li>
 *   <li>when moves are charged ({@link org.gpusched.core.objective.ObjectiveParameters#chargeMoves}, not in the
 *       papers), each running job moved or preempted: {@link SchedulingProblem#moveCharge}.</li>
 * </ul>
 */
public final class ObjectiveFunction {
    private ObjectiveFunction() {}

    public static double evaluate(SchedulingProblem problem, Placement[] placements, int[] nodeTypes) {
        Sum sum = new Sum(problem.parameters(), problem.cluster(), problem.now(), placements.length);
        boolean charged = problem.chargesMoves();
        for (int j = 0; j < placements.length; j++) {
            var job = problem.job(j).job();
            Placement p = placements[j];
            if (p == null) sum.postponed(job.weightPerHour(), job.dueSeconds(), problem.postponedRemaining(j));
            else sum.scheduled(job.weightPerHour(), job.dueSeconds(), problem.remainingAt(j, p), p);
            if (charged) sum.moveCharge(problem.moveCharge(j, p));
        }
        return sum.total(nodeTypes);
    }

    /** What adds jobs placed where they are to a sum of f_OBJ. */
    public interface PlacedJobs {
        /** A job on node {@code node} as type {@code type} with {@code gpus} GPUs, {@code remaining} seconds from its end. */
        void scheduled(double weightPerHour, double dueSeconds, double remaining, int node, int type, int gpus);
    }

    /** A placed job's tardiness term: weight x hours past its due date when it ends {@code remaining} from now. */
    private static double tardiness(double now, double weightPerHour, double dueSeconds, double remaining) {
        double late = now + remaining - dueSeconds;
        // 0 when on time: the sums start at +0.0 and add no negative term, so adding 0 leaves them as they are
        return late > 0 ? weightPerHour * late / 3600.0 : 0;
    }

    /** What a job's remaining time on its placement costs at the placement's rate. */
    private static double runCost(Cluster cluster, double remaining, int type, int gpus) {
        return remaining / 3600.0 * cluster.type(type).costPerHour(gpus);
    }

    /** {@code sum} plus a used node's terms: the least run cost of its jobs, and mu x its idle GPUs. */
    private static double addNode(
            double sum, ObjectiveParameters params, Cluster cluster, double leastCost, int type, int busy) {
        sum += leastCost;
        if (params.mu() > 0) sum += params.mu() * (cluster.type(type).gpus() - busy);
        return sum;
    }

    /**
     * f_OBJ's terms of placed jobs kept job by job and node by node, so that the sum over the jobs of some of the
     * nodes, chosen after the jobs were added, can be read: the very double a {@link Sum} over those jobs alone,
     * added in the same order, gives. A controller prices every running job in the walk that also decides which
     * nodes its optimizer is asked about, and the jobs left out are those on the other nodes.
     */
    public static final class ByNode implements PlacedJobs {
        private final ObjectiveParameters params;
        private final Cluster cluster;
        private final double now;
        private int[] jobNode = new int[64];
        private double[] jobTerm = new double[64];
        private int jobs;
        private final double[] nodeCost;
        private final int[] nodeBusy;
        private final boolean[] nodeUsed;

        public ByNode(ObjectiveParameters params, Cluster cluster, double now) {
            this.params = params;
            this.cluster = cluster;
            this.now = now;
            nodeCost = new double[cluster.nodeCount()];
            nodeBusy = new int[cluster.nodeCount()];
            nodeUsed = new boolean[cluster.nodeCount()];
        }

        @Override
        public void scheduled(double weightPerHour, double dueSeconds, double remaining, int node, int type, int gpus) {
            if (jobs == jobNode.length) {
                jobNode = Arrays.copyOf(jobNode, jobs * 2);
                jobTerm = Arrays.copyOf(jobTerm, jobs * 2);
            }
            jobNode[jobs] = node;
            jobTerm[jobs++] = tardiness(now, weightPerHour, dueSeconds, remaining);
            double cost = runCost(cluster, remaining, type, gpus);
            // as Sum keeps it: the first job's cost, then any strictly lower one
            if (!nodeUsed[node]) {
                nodeUsed[node] = true;
                nodeCost[node] = cost;
            } else if (cost < nodeCost[node]) {
                nodeCost[node] = cost;
            }
            nodeBusy[node] += gpus;
        }

        /**
         * The sum over the jobs on the nodes a scope leaves out ({@code scopeNode[n] < 0}), with those nodes' terms;
         * {@code nodeTypes[n]}: the type used node n runs as.
         */
        public double totalOutside(int[] scopeNode, int[] nodeTypes) {
            double sum = 0;
            for (int k = 0; k < jobs; k++) if (scopeNode[jobNode[k]] < 0) sum += jobTerm[k];
            for (int n = 0; n < nodeUsed.length; n++) {
                if (nodeUsed[n] && scopeNode[n] < 0)
                    sum = addNode(sum, params, cluster, nodeCost[n], nodeTypes[n], nodeBusy[n]);
            }
            return sum;
        }
    }

    /**
     * f_OBJ summed job by job, for callers that hold the jobs' figures without a {@link SchedulingProblem} (a
     * controller pricing the schedule it keeps). Jobs added in the same order with the same figures give the very
     * same double as {@link #evaluate}. It holds the used nodes only (a table by node index, and their indices as
     * bits to add their costs in node order): a controller prices at every event, and arrays over all nodes of a
     * 1,000-node cluster made this a tenth of its work when few jobs were summed. For a sum over at least half as many
     * jobs as nodes (every running job at every event) the table is an array by node instead, no larger than the hash
     * table would be and with no probing.
     */
    public static final class Sum implements PlacedJobs {
        private final ObjectiveParameters params;
        private final Cluster cluster;
        private final double now;
        private final long[] usedNodes;
        /**
         * Open addressing by node index, or, when {@link #direct}, slot n is node n: slotNode[i] = node + 1 (0 = free),
         * slotCost and slotBusy its figures.
         */
        private int[] slotNode;

        private final boolean direct;

        private double[] slotCost;
        private int[] slotBusy;
        private int used;
        private double total;

        /** @param jobs how many jobs will be added, at most (it sizes the table of used nodes; more only cost a resize) */
        public Sum(ObjectiveParameters params, Cluster cluster, double now, int jobs) {
            this.params = params;
            this.cluster = cluster;
            this.now = now;
            usedNodes = new long[(cluster.nodeCount() + 63) >>> 6];
            direct = 2L * jobs >= cluster.nodeCount();
            int slots = direct
                    ? cluster.nodeCount()
                    : Integer.highestOneBit(Math.max(4, Math.min(jobs, cluster.nodeCount())) * 2) * 2;
            slotNode = new int[slots];
            slotCost = new double[slots];
            slotBusy = new int[slots];
        }

        /** A waiting job, {@code slowestRemaining} seconds from its end on its slowest configuration. */
        public void postponed(double weightPerHour, double dueSeconds, double slowestRemaining) {
            double late = now + params.horizonSeconds() + slowestRemaining - dueSeconds;
            if (late > 0) total += params.rho() * weightPerHour * late / 3600.0;
        }

        /** What moving a running job costs on top of its terms ({@link SchedulingProblem#moveCharge}). */
        public void moveCharge(double charge) {
            total += charge;
        }

        /** A job placed at {@code p}, {@code remaining} seconds from its end there. */
        public void scheduled(double weightPerHour, double dueSeconds, double remaining, Placement p) {
            scheduled(weightPerHour, dueSeconds, remaining, p.node(), p.type(), p.gpus());
        }

        /** A job placed on node {@code node} as type {@code type} with {@code gpus} GPUs, {@code remaining} seconds from its end there. */
        @Override
        public void scheduled(double weightPerHour, double dueSeconds, double remaining, int node, int type, int gpus) {
            total += tardiness(now, weightPerHour, dueSeconds, remaining);
            double cost = runCost(cluster, remaining, type, gpus);
            int i = slot(node);
            if (slotNode[i] == 0) {
                slotNode[i] = node + 1;
                slotCost[i] = cost;
                slotBusy[i] = gpus;
                usedNodes[node >>> 6] |= 1L << node;
                if (++used * 2 > slotNode.length && !direct) grow();
                return;
            }
            if (cost < slotCost[i]) slotCost[i] = cost;
            slotBusy[i] += gpus;
        }

        /** The sum, with each used node's cost; {@code nodeTypes[n]}: the type used node n runs as. */
        public double total(int[] nodeTypes) {
            double sum = total;
            for (int w = 0; w < usedNodes.length; w++) {
                for (long bits = usedNodes[w]; bits != 0; bits &= bits - 1) {
                    int n = (w << 6) + Long.numberOfTrailingZeros(bits);
                    int i = slot(n);
                    sum = addNode(sum, params, cluster, slotCost[i], nodeTypes[n], slotBusy[i]);
                }
            }
            return sum;
        }

        /** The table slot of node n: where it is, or the free slot where it goes. */
        private int slot(int node) {
            if (direct) return node;
            int mask = slotNode.length - 1;
            int h = node * 0x9E3779B9;
            int i = (h ^ h >>> 16) & mask;
            while (slotNode[i] != 0 && slotNode[i] != node + 1) i = (i + 1) & mask;
            return i;
        }

        private void grow() {
            int[] nodes = slotNode;
            double[] costs = slotCost;
            int[] busy = slotBusy;
            slotNode = new int[nodes.length * 2];
            slotCost = new double[nodes.length * 2];
            slotBusy = new int[nodes.length * 2];
            for (int k = 0; k < nodes.length; k++) {
                if (nodes[k] == 0) continue;
                int i = slot(nodes[k] - 1);
                slotNode[i] = nodes[k];
                slotCost[i] = costs[k];
                slotBusy[i] = busy[k];
            }
        }
    }
}
