package org.gpusched.core.policy;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.gpusched.core.model.Cluster;
import org.gpusched.core.model.JobState;
import org.gpusched.core.model.Node;
import org.gpusched.core.model.NodeType;
import org.gpusched.core.model.Placement;
import org.gpusched.core.model.Schedule;
import org.gpusched.core.model.SchedulingProblem;
import org.gpusched.core.objective.ObjectiveFunction;
import org.gpusched.core.objective.ObjectiveParameters;
import org.gpusched.core.random.RandomState;
import org.junit.jupiter.api.Test;

/**
 * f_OBJ with moves charged (the product's stable setting): while some job is short of time, a running job moved aside
 * pays rho x weight x the hours its end is put off, so a start that needs it moved is made only when the start gains
 * more; otherwise it pays for the lateness the move adds only.
 */
class ChargedMovesTest {
    private static final NodeType A = Instances.linear("A", "X", 2, 1.0);
    private static final NodeType B = Instances.linear("B", "Y", 2, 1.0);
    private static final ObjectiveParameters CHARGED = Instances.PAPER.withChargedMoves(true);
    private static final double NOW = 1000;

    /**
     * Job r runs on both GPUs of n0, half done, a quarter done as of its last snapshot, 300 s to restore: 1,800 s
     * left in place; on one GPU (7,200 s in full) it would need 7,200 x 0.75 + 300 = 5,700 s, 3,900 s more. It is
     * never late; its weight is 1/h. On n1 (type B, one GPU) it would need 24,000 x 0.75 + 300 = 18,300 s.
     */
    private static JobState running() {
        var times = Instances.times("A", 1, 7200.0, 2, 3600.0, "B", 1, 24000.0);
        return new JobState(Instances.job("r", 0, 1e9, 1, times), 0.5, new Placement(0, 0, 2), 0.25, 300);
    }

    private static SchedulingProblem problem(ObjectiveParameters params, List<JobState> jobs) {
        Cluster cluster = new Cluster(List.of(A, B), List.of(Node.fixed("n0", "A"), Node.fixed("n1", "B")));
        return new SchedulingProblem(NOW, cluster, jobs, new int[] {0, -1}, params);
    }

    /** A waiting job already due: it is late whatever runs, so the problem is short of time. */
    private static JobState pressing() {
        return JobState.waiting(Instances.job("p", NOW, NOW, 1, Instances.times("A", 1, 3600.0)));
    }

    @Test
    void aMoveIsChargedTheHoursItPutsTheJobsEndOff() {
        SchedulingProblem charged = problem(CHARGED, List.of(running(), pressing()));
        SchedulingProblem paper = problem(Instances.PAPER, List.of(running(), pressing()));

        assertEquals(0, charged.moveCharge(0, new Placement(0, 0, 2)), "where it runs");
        // resized to one GPU: 3,900 s later, 100 x 1/h x 3,900 / 3,600 h
        assertEquals(108.3333333, charged.moveCharge(0, new Placement(0, 0, 1)), 1e-6);
        // migrated as it is: only what the move loses, 3,600 x (0.75 - 0.5) + 300 = 1,200 s
        assertEquals(100 * 1200 / 3600.0, charged.moveCharge(0, new Placement(1, 0, 2)), 1e-9);
        // to n1 as B on one GPU: 16,500 s later
        assertEquals(100 * 16500 / 3600.0, charged.moveCharge(0, new Placement(1, 1, 1)), 1e-9);
        // preempted: the work it loses on its slowest configuration (B, 24,000 s), 24,000 x 0.25 + 300 = 6,300 s
        assertEquals(100 * 6300 / 3600.0, charged.moveCharge(0, null), 1e-9);
        assertEquals(0, paper.moveCharge(0, new Placement(0, 0, 1)), "the papers charge no move");

        Placement[] resized = {new Placement(0, 0, 1), null};
        int[] types = {0, -1};
        assertEquals(
                ObjectiveFunction.evaluate(paper, resized, types) + 108.3333333,
                ObjectiveFunction.evaluate(charged, resized, types),
                1e-6);
    }

    @Test
    void withNoJobShortOfTimeAMoveIsChargedOnlyTheLatenessItAdds() {
        // r alone: on its fastest configuration it would end at 1,000 + 3,600 (H) + 1,800 = 6,400 s at the latest
        JobState farDue = running();
        assertEquals(0, problem(CHARGED, List.of(farDue)).moveCharge(0, new Placement(0, 0, 1)), "on time either way");
        assertEquals(0, problem(CHARGED, List.of(farDue)).moveCharge(0, null), "preempted, on time in the worst case");

        // due 6,500 s: in place it ends at 2,800 s; resized to one GPU at 6,700 s, 200 s late: 100 x 1/h x 200 s
        var times = Instances.times("A", 1, 7200.0, 2, 3600.0, "B", 1, 24000.0);
        JobState r = new JobState(Instances.job("r", 0, 6500, 1, times), 0.5, new Placement(0, 0, 2), 0.25, 300);
        SchedulingProblem problem = problem(CHARGED, List.of(r));
        assertEquals(100 * 200 / 3600.0, problem.moveCharge(0, new Placement(0, 0, 1)), 1e-9);
        // migrated as it is, it ends at 4,000 s, on time
        assertEquals(0, problem.moveCharge(0, new Placement(1, 0, 2)));
        // with a job short of time beside it, the resize pays its whole delay, 3,900 s
        assertEquals(
                100 * 3900 / 3600.0,
                problem(CHARGED, List.of(r, pressing())).moveCharge(0, new Placement(0, 0, 1)),
                1e-9);
    }

    @Test
    void aMoveThatEndsTheJobSoonerIsNotCharged() {
        // r on one GPU of n0 (7,200 s x 0.5 = 3,600 s left) moved to both: 3,600 x 0.75 + 300 = 3,000 s, sooner
        var times = Instances.times("A", 1, 7200.0, 2, 3600.0);
        JobState r = new JobState(Instances.job("r", 0, 1e9, 1, times), 0.5, new Placement(0, 0, 1), 0.25, 300);
        assertEquals(0, problem(CHARGED, List.of(r, pressing())).moveCharge(0, new Placement(0, 0, 2)));
    }

    /**
     * Waiting job w needs one GPU of A for 3,600 s; n0 has room for it only if r gives up a GPU (n1, type B, has no
     * time for w). Left waiting, w is priced rho x 1/h x (now + H + 3,600 s - due); started now, it ends at 4,600 s.
     * Starting it costs r's resize, 108.3 when charged (sending r to n1 instead: 458.3).
     */
    private static Schedule plan(ObjectiveParameters params, double dueOfWaiting) {
        var times = Instances.times("A", 1, 3600.0);
        JobState w = JobState.waiting(Instances.job("w", NOW, dueOfWaiting, 1, times));
        SchedulingProblem problem = problem(params, List.of(running(), w));
        PolicyConfig config = PolicyConfig.DEFAULTS.withMaxIterations(200).withThreads(1);
        // f_OBJ's charge is what these hand-worked cases check: the paper's ranking, without the forecast
        Schedule plan = AndreasRandomizedGreedyPolicy.byFObj(config).schedule(problem, new RandomState(7));
        assertEquals(ObjectiveFunction.evaluate(problem, plan.placements(), plan.nodeTypes()), plan.objective(), 1e-9);
        return plan;
    }

    @Test
    void aStartThatNeedsARunningJobMovedIsNotMadeWhenTheMoveLosesMore() {
        // due 6,400 s: waiting costs 100 x (1,000 + 3,600 + 3,600 - 6,400) / 3,600 = 50, started it is on time: the
        // start gains 50, less than the resize's 108.3; the papers' f_OBJ charges the resize nothing and starts it
        Schedule charged = plan(CHARGED, 6400);
        assertEquals(new Placement(0, 0, 2), charged.placement(0), "r keeps both GPUs");
        assertNull(charged.placement(1), "w waits");

        Schedule paper = plan(Instances.PAPER, 6400);
        assertEquals(new Placement(0, 0, 1), paper.placement(0));
        assertEquals(new Placement(0, 0, 1), paper.placement(1));
    }

    @Test
    void aStartThatNeedsARunningJobMovedIsMadeWhenItGainsMore() {
        // due 1,000 s: waiting costs 100 x 7,200 / 3,600 = 200, started it is an hour late (1): the start gains 199,
        // more than the resize's 108.3
        Schedule charged = plan(CHARGED, 1000);
        assertEquals(new Placement(0, 0, 1), charged.placement(0), "r gives up a GPU");
        assertEquals(new Placement(0, 0, 1), charged.placement(1), "w starts");
    }

    @Test
    void underDeadlinePressureAndreasRgAndRgLsKeepTheDeterministicGreedysPlan() {
        SchedulingProblem charged = problem(CHARGED, List.of(running(), pressing(), pressing2()));
        assertTrue(charged.deadlinePressure());
        Schedule one = Policies.create("andreas-rg", PolicyConfig.DEFAULTS.withMaxIterations(1))
                .schedule(charged, new RandomState(3));
        for (String policy : List.of("andreas-rg", "rg-ls")) {
            for (long seed : new long[] {3, 4, 5}) {
                Schedule s = Policies.create(policy, PolicyConfig.DEFAULTS).schedule(charged, new RandomState(seed));
                assertArrayEquals(one.placements(), s.placements(), policy + " seed " + seed);
                assertArrayEquals(one.nodeTypes(), s.nodeTypes(), policy + " seed " + seed);
            }
        }
        // Without the pressure (moves free) the randomized iterations run, and their draws depend on the seed.
        SchedulingProblem free = problem(Instances.PAPER, List.of(running(), pressing(), pressing2()));
        assertFalse(free.deadlinePressure());
    }

    /** A second waiting job due now, on either type. */
    private static JobState pressing2() {
        return JobState.waiting(
                Instances.job("q", NOW, NOW, 2, Instances.times("A", 1, 1800.0, 2, 1200.0, "B", 1, 2400.0)));
    }
}
