package org.gpusched.core.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.gpusched.core.model.Cluster;
import org.gpusched.core.model.JobState;
import org.gpusched.core.model.Node;
import org.gpusched.core.model.NodeType;
import org.gpusched.core.model.Placement;
import org.gpusched.core.model.Schedule;
import org.gpusched.core.model.SchedulingProblem;
import org.gpusched.core.objective.ObjectiveFunction;
import org.gpusched.core.random.RandomState;
import org.junit.jupiter.api.Test;

class PlanStabilizerTest {
    private static final NodeType A = Instances.linear("A", "X", 2, 1.0);
    private static final NodeType B = Instances.linear("B", "Y", 2, 3.0);

    private static SchedulingProblem problem(Cluster cluster, double now, List<JobState> jobs) {
        int[] types = new int[cluster.nodeCount()];
        Arrays.fill(types, -1);
        for (JobState j : jobs)
            if (j.current() != null) types[j.current().node()] = j.current().type();
        return new SchedulingProblem(now, cluster, jobs, types, Instances.PAPER);
    }

    private static Schedule plan(SchedulingProblem problem, Placement... placements) {
        int[] types = new int[problem.cluster().nodeCount()];
        Arrays.fill(types, -1);
        for (Placement p : placements) if (p != null) types[p.node()] = p.type();
        return new Schedule(placements, types, ObjectiveFunction.evaluate(problem, placements, types));
    }

    @Test
    void aRelabelledPlanKeepsEveryJobWhereItRuns() {
        // n0..n2 of type A, n3 of type B: the plan swaps the A nodes round and keeps the B job on n3
        Cluster cluster = new Cluster(
                List.of(A, B),
                List.of(Node.fixed("n0", "A"), Node.fixed("n1", "A"), Node.fixed("n2", "A"), Node.fixed("n3", "B")));
        var times = Instances.times("A", 1, 3600.0, 2, 2000.0, "B", 1, 3000.0, 2, 1500.0);
        List<JobState> jobs = new ArrayList<>();
        jobs.add(new JobState(Instances.job("a", 0, 99_999, 1, times), 0.2, new Placement(0, 0, 1)));
        jobs.add(new JobState(Instances.job("b", 0, 99_999, 1, times), 0.1, new Placement(0, 0, 1)));
        jobs.add(new JobState(Instances.job("c", 0, 99_999, 1, times), 0.3, new Placement(1, 0, 2)));
        jobs.add(new JobState(Instances.job("d", 0, 99_999, 1, times), 0.3, new Placement(3, 1, 2)));
        jobs.add(new JobState(Instances.job("w", 0, 99_999, 1, times), 0, null));
        SchedulingProblem problem = problem(cluster, 100, jobs);
        Schedule relabelled = plan(
                problem,
                new Placement(2, 0, 1),
                new Placement(2, 0, 1),
                new Placement(0, 0, 2),
                new Placement(3, 1, 2),
                new Placement(1, 0, 2));

        Schedule carried = new PlanStabilizer(0).stabilize(problem, relabelled, null);

        for (int j = 0; j < 4; j++)
            assertEquals(jobs.get(j).current(), carried.placement(j), "running job " + j + " stays");
        assertEquals(
                new Placement(2, 0, 2),
                carried.placement(4),
                "the waiting job takes the node the plan kept free of running jobs");
        assertEquals(relabelled.objective(), carried.objective(), 1e-12, "relabelling changes no cost");
    }

    @Test
    void aMoveIsMadeOnlyWhenItsGainCoversItsOverhead() {
        // a late job on one GPU of n0; the plan gives it both GPUs: tardiness 10/h x (100 + 3600 s) + node 1/h x 1 h
        // becomes 10/h x (100 + 1800 s) + 2/h x 0.5 h, a gain of 5 cost units. The overhead of one move is
        // (10/h + 1/h) x T: 0.92 for T = 300 s (made), 11 for T = 3600 s (not made).
        Cluster cluster = new Cluster(List.of(A), List.of(Node.fixed("n0", "A")));
        var times = Instances.times("A", 1, 3600.0, 2, 1800.0);
        List<JobState> jobs = List.of(new JobState(Instances.job("a", 0, 0, 10, times), 0, new Placement(0, 0, 1)));
        SchedulingProblem problem = problem(cluster, 100, jobs);
        Schedule resize = plan(problem, new Placement(0, 0, 2));

        assertEquals(
                new Placement(0, 0, 2),
                new PlanStabilizer(300).stabilize(problem, resize, null).placement(0));
        assertEquals(
                new Placement(0, 0, 1),
                new PlanStabilizer(3600).stabilize(problem, resize, null).placement(0));
        // moved three times already: the 0.92 is doubled thrice, 7.3 > 5, and the job stays
        assertEquals(
                new Placement(0, 0, 1),
                new PlanStabilizer(300)
                        .stabilize(problem, resize, new int[] {3})
                        .placement(0));
        assertEquals(
                new Placement(0, 0, 2),
                new PlanStabilizer(300)
                        .stabilize(problem, resize, new int[] {2})
                        .placement(0),
                "3.7 < 5");
        // with no overhead at all, a job moved MAX_MOVES times already still stays; one move fewer, it is moved
        assertEquals(
                new Placement(0, 0, 1),
                new PlanStabilizer(0)
                        .stabilize(problem, resize, new int[] {PlanStabilizer.MAX_MOVES})
                        .placement(0));
        assertEquals(
                new Placement(0, 0, 2),
                new PlanStabilizer(0)
                        .stabilize(problem, resize, new int[] {PlanStabilizer.MAX_MOVES - 1})
                        .placement(0));
    }

    /**
     * A start that needs a running job preempted is priced with the node's cost, not only the jobs' terms: on n0 (2
     * GPUs at 1/h each) r has 72 s left on both GPUs and is never late; w waits with 100 h of work on both GPUs, due
     * now. Starting w in r's place saves its postponement, rho x w x (H + 100 h) against w x 100 h late, 10,000 x w,
     * and costs 100 h x 2/h of node time instead of r's 0.04, plus the preemption's overhead (1/h + 2/h) x 36 s = 0.03:
     * it pays for a weight above 0.02 per hour.
     */
    @Test
    void aStartThatPreemptsARunningJobIsMadeOnlyWhenItPaysForTheNodeTimeToo() {
        Cluster cluster = new Cluster(List.of(A), List.of(Node.fixed("n0", "A")));
        Placement both = new Placement(0, 0, 2);
        for (double weight : new double[] {0.015, 0.025}) {
            List<JobState> jobs = List.of(
                    new JobState(Instances.job("r", 0, 1e9, 1, Instances.times("A", 2, 7200.0)), 0.99, both),
                    new JobState(Instances.job("w", 0, 0, weight, Instances.times("A", 2, 360_000.0)), 0, null));
            SchedulingProblem problem = problem(cluster, 0, jobs);
            Schedule carried = new PlanStabilizer(36).stabilize(problem, plan(problem, null, both), null);
            boolean pays = weight > 0.02;
            assertEquals(pays ? null : both, carried.placement(0), "r at weight " + weight);
            assertEquals(pays ? both : null, carried.placement(1), "w at weight " + weight);
        }
    }

    @Test
    void aPreemptionThatGainsLessThanItsOverheadIsNotMade() {
        // the plan stops a job that is on time whatever happens, to save its half hour of node time (0.5 at 1/h); one
        // move costs (1/h + 1/h) x T: 0.17 for T = 300 s (stopped), 2 for T = 3600 s (kept running)
        Cluster cluster = new Cluster(List.of(A), List.of(Node.fixed("n0", "A")));
        var times = Instances.times("A", 1, 3600.0);
        List<JobState> jobs = List.of(new JobState(Instances.job("a", 0, 1e9, 1, times), 0.5, new Placement(0, 0, 1)));
        SchedulingProblem problem = problem(cluster, 100, jobs);
        Schedule preempt = plan(problem, (Placement) null);
        assertNull(preempt.placement(0));
        assertNull(new PlanStabilizer(300).stabilize(problem, preempt, null).placement(0));
        assertEquals(
                new Placement(0, 0, 1),
                new PlanStabilizer(3600).stabilize(problem, preempt, null).placement(0));
    }

    @Test
    void aMoveIsPricedWithWhatItLosesSoAMoveDearerThanStayingIsNotMade() {
        // Fixed nodes a (1 GPU, 2.0/h) and b (1 GPU, 1.0/h); j runs on a, half done, 3600 s on either, due far.
        // Free moves: on b it needs 1800 s x 1.0/h = 0.5 against 1800 s x 2.0/h = 1.0 on a, so the move is made even
        // with no overhead margin. Costed moves (back to its snapshot at a quarter done, 1200 s to restore):
        // (2700 + 1200) s x 1.0/h = 1.083 on b, dearer than staying: andreas-rg plans the move, and it is not made.
        Cluster cluster = new Cluster(
                List.of(NodeType.priced("A", "V100", 1, 2.0), NodeType.priced("B", "T4", 1, 1.0)),
                List.of(Node.fixed("a", "A"), Node.fixed("b", "B")));
        var job = Instances.job("j", 0, 1e6, 1, Instances.times("A", 1, 3600.0, "B", 1, 3600.0));
        Placement onA = new Placement(0, 0, 1), onB = new Placement(1, 1, 1);

        SchedulingProblem free = problem(cluster, 0, List.of(new JobState(job, 0.5, onA)));
        assertEquals(
                onB,
                new PlanStabilizer(0).stabilize(free, plan(free, onB), null).placement(0));

        SchedulingProblem costed = problem(cluster, 0, List.of(new JobState(job, 0.5, onA, 0.25, 1200)));
        Schedule moveToB = plan(costed, onB);
        assertEquals(3900 / 3600.0, moveToB.objective(), 1e-12);
        Schedule carried = new PlanStabilizer(0).stabilize(costed, moveToB, null);
        assertEquals(onA, carried.placement(0));
        assertEquals(1.0, carried.objective(), 1e-12);

        Schedule andreasRg =
                Policies.create("andreas-rg", PolicyConfig.DEFAULTS).schedule(costed, new RandomState(42));
        assertEquals(
                onB, andreasRg.placement(0), "the optimizer still plans the move: the instance tests the stabilizer");
        assertEquals(
                onA, new PlanStabilizer(0).stabilize(costed, andreasRg, null).placement(0));
    }
}
