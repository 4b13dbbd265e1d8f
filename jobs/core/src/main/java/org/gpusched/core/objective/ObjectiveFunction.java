package org.gpusched.core.objective;

import org.gpusched.core.model.Cluster;
import org.gpusched.core.model.Placement;
import org.gpusched.core.model.SchedulingProblem;

/**
 * The per-decision proxy f_OBJ of ANDREAS (eq. 1) and of the hierarchical paper's (P2a), in cost units:
 * <ul>
 *   <li>each scheduled job: weight x tardiness, tardiness = max(0, now + remaining - due) in hours;</li>
 *   <li>each postponed job: rho x weight x worst-case tardiness, max(0, now + H + M_j - due) in hours, M_j the
 *       remaining time on the slowest configuration;</li>
 *   <li>each used node: the execution cost of its first-ending job, remaining hours x costPerHour[type][g of
 *       that job] (ANDREAS constraint 4k indexes the rate by the job's own GPU count). (P2) picks the alpha
 *       variable by minimization, so it charges the job with the least such cost; we use that same reading
 *       (least remaining x rate on the node), which is the first-ending job whenever the rate does not depend on
 *       g (VM pricing) and keeps the heuristics and the MILP on one objective;</li>
 *   <li>plus mu x idle GPUs on each used node (P2a).</li>
 * </ul>
 */
public final class ObjectiveFunction {
    private ObjectiveFunction() {}

    public static double evaluate(SchedulingProblem problem, Placement[] placements, int[] nodeTypes) {
        Sum sum = new Sum(problem.parameters(), problem.cluster(), problem.now());
        for (int j = 0; j < placements.length; j++) {
            var job = problem.job(j).job();
            Placement p = placements[j];
            if (p == null) sum.postponed(job.weightPerHour(), job.dueSeconds(), problem.slowestRemaining(j));
            else sum.scheduled(job.weightPerHour(), job.dueSeconds(), problem.remaining(j, p.type(), p.gpus()), p);
        }
        return sum.total(nodeTypes);
    }

    /**
     * f_OBJ summed job by job, for callers that hold the jobs' figures without a {@link SchedulingProblem} (a
     * controller pricing the schedule it keeps). Jobs added in the same order with the same figures give the very
     * same double as {@link #evaluate}.
     */
    public static final class Sum {
        private final ObjectiveParameters params;
        private final Cluster cluster;
        private final double now;
        private final double[] firstEndingCost; // defined where busy > 0
        private final int[] busy;
        private double total;

        public Sum(ObjectiveParameters params, Cluster cluster, double now) {
            this.params = params;
            this.cluster = cluster;
            this.now = now;
            firstEndingCost = new double[cluster.nodeCount()];
            busy = new int[cluster.nodeCount()];
        }

        /** A waiting job, {@code slowestRemaining} seconds from its end on its slowest configuration. */
        public void postponed(double weightPerHour, double dueSeconds, double slowestRemaining) {
            double late = now + params.horizonSeconds() + slowestRemaining - dueSeconds;
            if (late > 0) total += params.rho() * weightPerHour * late / 3600.0;
        }

        /** A job placed at {@code p}, {@code remaining} seconds from its end there. */
        public void scheduled(double weightPerHour, double dueSeconds, double remaining, Placement p) {
            double late = now + remaining - dueSeconds;
            if (late > 0) total += weightPerHour * late / 3600.0;
            double cost = remaining / 3600.0 * cluster.type(p.type()).costPerHour(p.gpus());
            if (busy[p.node()] == 0 || cost < firstEndingCost[p.node()]) firstEndingCost[p.node()] = cost;
            busy[p.node()] += p.gpus();
        }

        /** The sum, with each used node's cost; {@code nodeTypes[n]}: the type used node n runs as. */
        public double total(int[] nodeTypes) {
            double sum = total;
            for (int n = 0; n < busy.length; n++) {
                if (busy[n] == 0) continue;
                sum += firstEndingCost[n];
                if (params.mu() > 0) sum += params.mu() * (cluster.type(nodeTypes[n]).gpus() - busy[n]);
            }
            return sum;
        }
    }
}
