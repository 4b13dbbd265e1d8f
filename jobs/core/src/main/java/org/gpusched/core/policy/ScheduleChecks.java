package org.gpusched.core.policy;

import org.gpusched.core.model.Cluster;
import org.gpusched.core.model.Placement;
import org.gpusched.core.model.Schedule;
import org.gpusched.core.model.SchedulingProblem;
import org.gpusched.core.objective.ObjectiveFunction;

/**
 * The invariants every policy's schedule must satisfy, checked in one place for the tests, the streaming job and
 * the experiments.
 */
public final class ScheduleChecks {
    private ScheduleChecks() {}

    /**
     * Checks that the schedule fits the problem: one placement slot per job and one type per node; every placed job
     * on an existing node whose type is the node's type in the schedule and one of the node's candidate types, on a
     * configuration the job has a time for; no node hosting more GPUs than its type has; a node is on (type >= 0)
     * exactly when it hosts a job; and the stored objective equals f_OBJ.
     *
     * @throws IllegalStateException naming the job or node and the broken rule
     */
    public static void verify(SchedulingProblem problem, Schedule schedule) {
        Cluster cluster = problem.cluster();
        int nodes = cluster.nodeCount();
        if (schedule.jobCount() != problem.jobCount()) {
            fail("schedule has " + schedule.jobCount() + " job slots, the problem " + problem.jobCount() + " jobs");
        }
        if (schedule.nodeCount() != nodes) {
            fail("schedule has " + schedule.nodeCount() + " node types, the cluster " + nodes + " nodes");
        }
        int[] busy = new int[nodes];
        int[] jobsOn = new int[nodes];
        for (int n = 0; n < nodes; n++) {
            int t = schedule.nodeType(n);
            if (t < -1 || t >= cluster.typeCount())
                fail("node " + cluster.node(n).id() + ": type index " + t + " does not exist");
            if (t >= 0 && !isCandidate(cluster, n, t)) {
                fail("node " + cluster.node(n).id() + ": runs as "
                        + cluster.type(t).name() + ", not one of its allowed types");
            }
        }
        for (int j = 0; j < problem.jobCount(); j++) {
            Placement p = schedule.placement(j);
            if (p == null) continue;
            String job = problem.job(j).job().id();
            if (p.node() >= nodes)
                fail("job " + job + ": placed on node index " + p.node() + ", the cluster has " + nodes + " nodes");
            String node = cluster.node(p.node()).id();
            int nodeType = schedule.nodeType(p.node());
            if (nodeType != p.type()) {
                fail("job " + job + ": placed on node " + node + " as type index " + p.type() + " but the node runs as "
                        + (nodeType < 0 ? "off (-1)" : cluster.type(nodeType).name()));
            }
            if (Double.isNaN(problem.remaining(j, p.type(), p.gpus()))) {
                fail("job " + job + ": placed with " + p.gpus() + " GPUs on "
                        + cluster.type(p.type()).name() + ", a configuration it has no time for");
            }
            busy[p.node()] += p.gpus();
            jobsOn[p.node()]++;
        }
        for (int n = 0; n < nodes; n++) {
            int t = schedule.nodeType(n);
            if (t < 0) continue;
            if (jobsOn[n] == 0)
                fail("node " + cluster.node(n).id() + ": switched on as "
                        + cluster.type(t).name() + " but hosts no job");
            if (busy[n] > cluster.type(t).gpus()) {
                fail("node " + cluster.node(n).id() + ": its jobs use " + busy[n] + " GPUs, type "
                        + cluster.type(t).name() + " has " + cluster.type(t).gpus());
            }
        }
        double expected = ObjectiveFunction.evaluate(problem, schedule.placements(), schedule.nodeTypes());
        if (!(Math.abs(expected - schedule.objective()) <= 1e-9 * Math.max(1, Math.abs(expected)))) {
            fail("schedule objective " + schedule.objective() + " differs from f_OBJ " + expected);
        }
    }

    /**
     * Checks the work-conserving rule ({@link WorkConservation}): no job is left waiting while some node of the
     * schedule could host it.
     *
     * @throws IllegalStateException naming the waiting job and the node with room for it
     */
    public static void verifyWorkConserving(SchedulingProblem problem, Schedule schedule) {
        String violation = WorkConservation.firstViolation(problem, schedule);
        if (violation != null) fail("not work-conserving: " + violation);
    }

    private static boolean isCandidate(Cluster cluster, int n, int t) {
        for (int u : cluster.candidateTypes(n)) if (u == t) return true;
        return false;
    }

    private static void fail(String message) {
        throw new IllegalStateException("invalid schedule: " + message);
    }
}
