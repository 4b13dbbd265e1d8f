package org.gpusched.core.objective;

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
        ObjectiveParameters params = problem.parameters();
        int nodes = problem.cluster().nodeCount();
        double[] firstEndingCost = new double[nodes]; // defined where busy > 0
        int[] busy = new int[nodes];
        double total = 0;
        for (int j = 0; j < placements.length; j++) {
            var job = problem.job(j).job();
            Placement p = placements[j];
            if (p == null) {
                double late = problem.now() + params.horizonSeconds() + problem.slowestRemaining(j) - job.dueSeconds();
                if (late > 0) total += params.rho() * job.weightPerHour() * late / 3600.0;
                continue;
            }
            double r = problem.remaining(j, p.type(), p.gpus());
            double late = problem.now() + r - job.dueSeconds();
            if (late > 0) total += job.weightPerHour() * late / 3600.0;
            double cost = r / 3600.0 * problem.cluster().type(p.type()).costPerHour(p.gpus());
            if (busy[p.node()] == 0 || cost < firstEndingCost[p.node()]) firstEndingCost[p.node()] = cost;
            busy[p.node()] += p.gpus();
        }
        for (int n = 0; n < nodes; n++) {
            if (busy[n] == 0) continue;
            total += firstEndingCost[n];
            if (params.mu() > 0) total += params.mu() * (problem.cluster().type(nodeTypes[n]).gpus() - busy[n]);
        }
        return total;
    }
}
