package org.gpusched.core.objective;

import org.gpusched.core.model.Placement;
import org.gpusched.core.model.SchedulingProblem;

/**
 * The waste objective f_W, what {@code andreas-rg} ranks its schedules by: f_OBJ's job terms (weight x tardiness of a
 * scheduled job, rho x weight x worst-case tardiness of a postponed one, the move charges when moves are charged), with
 * f_OBJ's node terms (the execution cost of each used node's first-ending job, mu x its idle GPUs) replaced by what the
 * plan wastes over the next H: for each used node, H x its cost per hour at its busy GPUs, less, for each job on it,
 * H x the rate at which the job's progress there earns its {@link SchedulingProblem#cheapestShare}.
 *
 * <p>Why. A run's node cost is exactly the sum of its jobs' cheapest shares (the lower bound no schedule can beat) plus
 * the time integral of that waste rate: idle GPUs on a paid node, jobs on configurations dearer than their cheapest,
 * and restores and lost progress, which occupy GPUs without progress. A move's restore and lost progress are wasted
 * once, whatever the horizon, so f_W adds them at their cheapest share ({@link #moveWaste}). f_OBJ charges a node only until its first job
 * ends, so among plans that pack a node differently it prefers the one whose first job ends soonest (often the one
 * giving that job more GPUs than pay), whatever the node then costs; f_W prices the rate at which each plan spends
 * money it does not turn into progress, and its job terms keep f_OBJ's view of due dates and postponement.
 */
public final class WasteObjective {
    private WasteObjective() {}

    /** f_W of a whole plan ({@code nodeTypes[n]}: the type node n runs as, -1 when off). */
    public static double evaluate(SchedulingProblem problem, Placement[] placements, int[] nodeTypes) {
        int[] busy = new int[nodeTypes.length];
        double total = 0;
        boolean charged = problem.chargesMoves();
        for (int j = 0; j < placements.length; j++) {
            Placement p = placements[j];
            total += jobTerm(problem, j, p);
            if (charged) total += problem.moveCharge(j, p);
            if (p == null) continue;
            busy[p.node()] += p.gpus();
            double remaining = problem.remainingAt(j, p);
            if (problem.job(j).isRunning()) total += moveWaste(problem, j, p.type(), p.gpus(), remaining);
            total -= progressValue(problem, j, remaining);
        }
        for (int n = 0; n < busy.length; n++) if (busy[n] > 0) total += nodeSpend(problem, nodeTypes[n], busy[n]);
        return total;
    }

    /** Job j's f_OBJ term at placement p (null: postponed), without its move charge. */
    public static double jobTerm(SchedulingProblem problem, int j, Placement p) {
        var job = problem.job(j).job();
        ObjectiveParameters params = problem.parameters();
        if (p == null) {
            double late = problem.now() + params.horizonSeconds() + problem.postponedRemaining(j) - job.dueSeconds();
            return late > 0 ? params.rho() * job.weightPerHour() * late / 3600.0 : 0;
        }
        double late = problem.now() + problem.remainingAt(j, p) - job.dueSeconds();
        return late > 0 ? job.weightPerHour() * late / 3600.0 : 0;
    }

    /** H x what a node running as type t with {@code busyGpus} busy costs per hour. */
    public static double nodeSpend(SchedulingProblem problem, int type, int busyGpus) {
        return problem.parameters().horizonSeconds()
                / 3600.0
                * problem.cluster().type(type).costPerHour(busyGpus);
    }

    /**
     * What a move wastes once, which the node terms over H do not see: the cheapest share of job j's work times the
     * fraction of its time on (t, g) spent restoring and redoing lost progress, {@code movedRemaining} being its
     * seconds there with the move's loss ({@link SchedulingProblem#remainingAt}); for running jobs (a waiting job's
     * pending restore is the same wherever it starts). 0 where it runs now and when moves are free.
     */
    public static double moveWaste(SchedulingProblem problem, int j, int t, int g, double movedRemaining) {
        double plain = problem.remaining(j, t, g);
        return movedRemaining > plain ? problem.cheapestShare(j) * (movedRemaining - plain) / plain : 0;
    }

    /**
     * H x the rate at which job j's progress earns its cheapest share when it needs {@code remainingSeconds} to end
     * where it is placed: cheapest share / remaining time.
     */
    public static double progressValue(SchedulingProblem problem, int j, double remainingSeconds) {
        return problem.parameters().horizonSeconds() * problem.cheapestShare(j) / remainingSeconds;
    }
}
