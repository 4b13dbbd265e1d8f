package org.gpusched.core.policy;

import java.util.Arrays;
import org.gpusched.core.model.Cluster;
import org.gpusched.core.model.Placement;
import org.gpusched.core.model.Schedule;
import org.gpusched.core.model.SchedulingProblem;
import org.gpusched.core.objective.ObjectiveFunction;

/**
 * The work-conserving rule of {@code milp} and {@code rg-ls}: a job may be left waiting only if, in the chosen
 * schedule, no node could host it. This is our exact reading of (P1n) of the hierarchical paper ("each job is either
 * placed or postponed", postponing only when needed), which f_OBJ alone does not enforce: f_OBJ charges nothing for
 * postponing a job whose worst-case tardiness is zero, so an optimizer of f_OBJ leaves GPUs idle while such jobs
 * wait, and pays for it later in the run.
 *
 * <p>"Could host" (job j, node n, in a schedule):
 * <ul>
 *   <li>n is on as type v: j has a configuration (v, g) with g at most n's idle GPUs, i.e. idle(n) &gt;=
 *       {@link #minGpus minGpus(j, v)};</li>
 *   <li>n is off: j has a configuration on some candidate type of n (the node's single type if fixed; any VM type of
 *       its catalog if rightsizable: switching a node on is where its VM type is chosen).</li>
 * </ul>
 * Retyping a node that is on is not counted as room: it would change the configuration of every job already on it.
 */
public final class WorkConservation {
    private WorkConservation() {}

    /** The fewest GPUs job j can run with on type t, or {@link Integer#MAX_VALUE} when it has no time on t. */
    public static int minGpus(SchedulingProblem problem, int j, int t) {
        int gpus = problem.cluster().type(t).gpus();
        for (int g = 1; g <= gpus; g++) if (!Double.isNaN(problem.remaining(j, t, g))) return g;
        return Integer.MAX_VALUE;
    }

    /** Whether job j has a configuration on some candidate type of node n (so n, switched off, could host it). */
    public static boolean canRunOn(SchedulingProblem problem, int j, int n) {
        for (int t : problem.cluster().candidateTypes(n)) if (minGpus(problem, j, t) != Integer.MAX_VALUE) return true;
        return false;
    }

    /** Whether job j could be added to node n, which runs as {@code nodeType} (-1: off) with {@code idleGpus} idle. */
    public static boolean fits(SchedulingProblem problem, int j, int n, int nodeType, int idleGpus) {
        return nodeType < 0 ? canRunOn(problem, j, n) : minGpus(problem, j, nodeType) <= idleGpus;
    }

    /**
     * The first job left waiting while some node could host it, as "job X waits while node Y (...) could host it";
     * null when the schedule is work-conserving.
     */
    public static String firstViolation(SchedulingProblem problem, Schedule schedule) {
        Cluster cluster = problem.cluster();
        int types = cluster.typeCount();
        int[] idle = idleGpus(problem, schedule);
        // per type: the most idle GPUs of a node on as that type, and whether an off node could be switched on as it
        int[] mostIdle = new int[types];
        boolean[] offCould = new boolean[types];
        for (int n = 0; n < cluster.nodeCount(); n++) {
            int t = schedule.nodeType(n);
            if (t >= 0) mostIdle[t] = Math.max(mostIdle[t], idle[n]);
            else for (int c : cluster.candidateTypes(n)) offCould[c] = true;
        }
        for (int j = 0; j < problem.jobCount(); j++) {
            if (schedule.placement(j) != null) continue;
            boolean fitsSomewhere = false;
            for (int t = 0; t < types && !fitsSomewhere; t++) {
                int least = minGpus(problem, j, t);
                fitsSomewhere = least != Integer.MAX_VALUE && (offCould[t] || least <= mostIdle[t]);
            }
            if (fitsSomewhere) return describe(problem, schedule, idle, j);
        }
        return null;
    }

    private static String describe(SchedulingProblem problem, Schedule schedule, int[] idle, int j) {
        Cluster cluster = problem.cluster();
        for (int n = 0; n < cluster.nodeCount(); n++) {
            int t = schedule.nodeType(n);
            if (!fits(problem, j, n, t, idle[n])) continue;
            return "job " + problem.job(j).job().id() + " waits while node "
                    + cluster.node(n).id()
                    + (t < 0
                            ? " is off and could be switched on for it"
                            : " runs as " + cluster.type(t).name() + " with " + idle[n]
                                    + " idle GPUs and the job needs " + minGpus(problem, j, t));
        }
        throw new IllegalStateException("job " + problem.job(j).job().id() + " fits a node type but no node");
    }

    public static boolean holds(SchedulingProblem problem, Schedule schedule) {
        return firstViolation(problem, schedule) == null;
    }

    /**
     * The schedule with waiting jobs added, by decreasing pressure, wherever they fit until none does: each on the
     * node, type (off nodes: any candidate type) and GPU count that raise f_OBJ least. Placed jobs do not move. One
     * pass suffices: adding jobs only takes room, so a job that fits nowhere when its turn comes never fits later.
     * Returns {@code schedule} itself when it is already work-conserving. Cost: per waiting job that fits, one f_OBJ
     * evaluation per candidate configuration; meant for the small instances of {@code milp} and for repairing starts.
     */
    public static Schedule fill(SchedulingProblem problem, Schedule schedule) {
        if (holds(problem, schedule)) return schedule;
        Cluster cluster = problem.cluster();
        Placement[] placements = schedule.placements();
        int[] nodeTypes = schedule.nodeTypes();
        int[] idle = idleGpus(problem, schedule);
        Integer[] order = new Integer[problem.jobCount()];
        for (int j = 0; j < order.length; j++) order[j] = j;
        Arrays.sort(order, (a, b) -> Double.compare(problem.pressure(b), problem.pressure(a)));
        double objective = schedule.objective();
        for (int j : order) {
            if (placements[j] != null) continue;
            Placement best = null;
            double bestObjective = Double.POSITIVE_INFINITY;
            for (int n = 0; n < cluster.nodeCount(); n++) {
                int current = nodeTypes[n];
                for (int t : current < 0 ? cluster.candidateTypes(n) : new int[] {current}) {
                    int room = current < 0 ? cluster.type(t).gpus() : idle[n];
                    for (int g = 1; g <= room; g++) {
                        if (Double.isNaN(problem.remaining(j, t, g))) continue;
                        placements[j] = new Placement(n, t, g);
                        nodeTypes[n] = t;
                        double f = ObjectiveFunction.evaluate(problem, placements, nodeTypes);
                        if (f < bestObjective) {
                            bestObjective = f;
                            best = placements[j];
                        }
                        nodeTypes[n] = current;
                    }
                }
            }
            placements[j] = best;
            if (best == null) continue;
            idle[best.node()] =
                    (nodeTypes[best.node()] < 0 ? cluster.type(best.type()).gpus() : idle[best.node()]) - best.gpus();
            nodeTypes[best.node()] = best.type();
            objective = bestObjective;
        }
        return new Schedule(placements, nodeTypes, objective);
    }

    private static int[] idleGpus(SchedulingProblem problem, Schedule schedule) {
        Cluster cluster = problem.cluster();
        int[] idle = new int[cluster.nodeCount()];
        for (int n = 0; n < idle.length; n++)
            idle[n] = schedule.nodeType(n) < 0
                    ? 0
                    : cluster.type(schedule.nodeType(n)).gpus();
        for (int j = 0; j < schedule.jobCount(); j++) {
            Placement p = schedule.placement(j);
            if (p != null) idle[p.node()] -= p.gpus();
        }
        return idle;
    }
}
