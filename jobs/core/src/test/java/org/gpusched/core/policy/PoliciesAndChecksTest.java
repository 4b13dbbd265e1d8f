package org.gpusched.core.policy;

import static org.gpusched.core.policy.Instances.PAPER;
import static org.gpusched.core.policy.Instances.job;
import static org.gpusched.core.policy.Instances.linear;
import static org.gpusched.core.policy.Instances.times;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.gpusched.core.model.Cluster;
import org.gpusched.core.model.InvalidInstanceException;
import org.gpusched.core.model.JobState;
import org.gpusched.core.model.Node;
import org.gpusched.core.model.Placement;
import org.gpusched.core.model.Schedule;
import org.gpusched.core.model.SchedulingProblem;
import org.gpusched.core.objective.ObjectiveFunction;
import org.gpusched.core.random.RandomState;
import org.junit.jupiter.api.Test;

class PoliciesAndChecksTest {
    private static final Cluster TWO_NODES = new Cluster(
            List.of(linear("A", "V100", 2, 1.0), linear("B", "T4", 1, 0.5)),
            List.of(Node.fixed("n0", "A"), Node.fixed("n1", "A")));

    @Test
    void registryCreatesEveryPolicyByItsName() {
        for (String name : Policies.names()) {
            SchedulingPolicy policy = Policies.create(name, PolicyConfig.DEFAULTS);
            assertEquals(name, policy.name());
        }
        assertTrue(Policies.names().containsAll(List.of("greedy", "andreas-rg", "fifo", "edf", "priority")));
    }

    @Test
    void anEmptyQueueLeavesEveryNodeOff() {
        SchedulingProblem empty = new SchedulingProblem(0, TWO_NODES, List.of(), new int[] {0, -1}, PAPER);
        for (String name : List.of("greedy", "andreas-rg", "fifo", "edf", "priority")) {
            Schedule s = Policies.create(name, PolicyConfig.DEFAULTS.withMaxIterations(5))
                    .schedule(empty, new RandomState(1));
            ScheduleChecks.verify(empty, s);
            assertEquals(-1, s.nodeType(0), name);
            assertEquals(0.0, s.objective(), name);
        }
    }

    @Test
    void unknownPolicyNameListsTheKnownOnes() {
        var e = assertThrows(IllegalArgumentException.class, () -> Policies.create("sjf", PolicyConfig.DEFAULTS));
        assertTrue(e.getMessage().contains("'sjf'"), e.getMessage());
        for (String name : Policies.names()) assertTrue(e.getMessage().contains(name), e.getMessage());
    }

    @Test
    void jobWithNoFeasibleConfigurationIsRejectedByName() {
        // runs only on B, but every node is fixed to A
        var e = assertThrows(
                InvalidInstanceException.class,
                () -> new SchedulingProblem(
                        0,
                        TWO_NODES,
                        List.of(JobState.waiting(job("only-on-b", 0, 100, 1, times("B", 1, 50)))),
                        null,
                        PAPER));
        assertTrue(
                e.getMessage().contains("only-on-b") && e.getMessage().contains("no feasible configuration"),
                e.getMessage());
    }

    @Test
    void jobWithUnknownNodeTypeIsRejectedByName() {
        var e = assertThrows(
                InvalidInstanceException.class,
                () -> new SchedulingProblem(
                        0,
                        TWO_NODES,
                        List.of(JobState.waiting(job("typo", 0, 100, 1, times("A100", 1, 50)))),
                        null,
                        PAPER));
        assertTrue(e.getMessage().contains("typo") && e.getMessage().contains("A100"), e.getMessage());
    }

    @Test
    void dueDateBeforeSubmissionIsRejectedByName() {
        var e = assertThrows(InvalidInstanceException.class, () -> job("backwards", 500, 100, 1, times("A", 1, 50)));
        assertTrue(
                e.getMessage().contains("backwards") && e.getMessage().contains("before its submission"),
                e.getMessage());
    }

    @Test
    void baselinesRejectRunningJobsThatOverfillANode() {
        var jobs = List.of(
                new JobState(job("r1", 0, 9000, 1, times("A", 2, 50)), 0.1, new Placement(0, 0, 2)),
                new JobState(job("r2", 0, 9000, 1, times("A", 1, 50)), 0.1, new Placement(0, 0, 1)));
        SchedulingProblem problem = new SchedulingProblem(0, TWO_NODES, jobs, new int[] {0, -1}, PAPER);
        var e = assertThrows(
                InvalidInstanceException.class,
                () -> new FifoPolicy(PolicyConfig.DEFAULTS).schedule(problem, new RandomState(1)));
        assertTrue(e.getMessage().contains("n0") && e.getMessage().contains("r2"), e.getMessage());
    }

    private static SchedulingProblem twoJobs() {
        return new SchedulingProblem(
                0,
                TWO_NODES,
                List.of(
                        JobState.waiting(job("a", 0, 9000, 1, times("A", 1, 3600, 2, 2000))),
                        JobState.waiting(job("b", 0, 9000, 1, times("A", 1, 3600)))),
                null,
                PAPER);
    }

    private static Schedule schedule(SchedulingProblem p, Placement[] placements, int[] types) {
        return new Schedule(placements, types, ObjectiveFunction.evaluate(p, placements, types));
    }

    @Test
    void checksAcceptAValidSchedule() {
        SchedulingProblem p = twoJobs();
        ScheduleChecks.verify(
                p, schedule(p, new Placement[] {new Placement(0, 0, 1), new Placement(0, 0, 1)}, new int[] {0, -1}));
    }

    @Test
    void checksRejectAnOverfullNode() {
        SchedulingProblem p = twoJobs();
        Schedule s = schedule(p, new Placement[] {new Placement(0, 0, 2), new Placement(0, 0, 1)}, new int[] {0, -1});
        var e = assertThrows(IllegalStateException.class, () -> ScheduleChecks.verify(p, s));
        assertTrue(e.getMessage().contains("n0") && e.getMessage().contains("3 GPUs"), e.getMessage());
    }

    @Test
    void checksRejectAPlacementOnANodeOfAnotherType() {
        SchedulingProblem p = twoJobs();
        Schedule s = schedule(p, new Placement[] {new Placement(1, 0, 1), null}, new int[] {0, -1});
        var e = assertThrows(IllegalStateException.class, () -> ScheduleChecks.verify(p, s));
        assertTrue(e.getMessage().contains("job a") && e.getMessage().contains("off"), e.getMessage());
    }

    @Test
    void checksRejectANodeTypeOutsideItsCandidates() {
        SchedulingProblem p = twoJobs();
        Schedule s = schedule(p, new Placement[] {null, null}, new int[] {1, -1});
        var e = assertThrows(IllegalStateException.class, () -> ScheduleChecks.verify(p, s));
        assertTrue(e.getMessage().contains("n0") && e.getMessage().contains("B"), e.getMessage());
    }

    @Test
    void checksRejectANodeSwitchedOnWithoutJobs() {
        SchedulingProblem p = twoJobs();
        Schedule s = schedule(p, new Placement[] {new Placement(0, 0, 1), null}, new int[] {0, 0});
        var e = assertThrows(IllegalStateException.class, () -> ScheduleChecks.verify(p, s));
        assertTrue(e.getMessage().contains("n1") && e.getMessage().contains("no job"), e.getMessage());
    }

    @Test
    void checksRejectAConfigurationTheJobHasNoTimeFor() {
        SchedulingProblem p = twoJobs();
        Schedule s = schedule(p, new Placement[] {null, new Placement(0, 0, 2)}, new int[] {0, -1});
        var e = assertThrows(IllegalStateException.class, () -> ScheduleChecks.verify(p, s));
        assertTrue(e.getMessage().contains("job b") && e.getMessage().contains("no time"), e.getMessage());
    }

    @Test
    void checksRejectAWrongObjective() {
        SchedulingProblem p = twoJobs();
        Schedule s = new Schedule(new Placement[] {new Placement(0, 0, 1), null}, new int[] {0, -1}, 0.5);
        var e = assertThrows(IllegalStateException.class, () -> ScheduleChecks.verify(p, s));
        assertTrue(e.getMessage().contains("f_OBJ"), e.getMessage());
    }
}
