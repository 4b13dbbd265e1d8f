package org.gpusched.core.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.gpusched.core.model.Cluster;
import org.gpusched.core.model.InvalidInstanceException;
import org.gpusched.core.model.Job;
import org.gpusched.core.model.JobState;
import org.gpusched.core.model.Node;
import org.gpusched.core.model.NodeType;
import org.gpusched.core.model.Placement;
import org.gpusched.core.model.Schedule;
import org.gpusched.core.model.SchedulingProblem;
import org.gpusched.core.objective.ObjectiveParameters;
import org.gpusched.core.random.RandomState;
import org.junit.jupiter.api.Test;

class MilpPolicyTest {
    private static final PolicyConfig CONFIG = PolicyConfig.DEFAULTS;
    private static final double EPS = 1e-6;

    /** The registry's {@code milp}: work-conserving. */
    private static MilpPolicy.Outcome solve(SchedulingProblem problem) {
        MilpPolicy.Outcome outcome = new MilpPolicy(CONFIG).solve(problem, new RandomState(1));
        ScheduleChecks.verify(problem, outcome.schedule());
        ScheduleChecks.verifyWorkConserving(problem, outcome.schedule());
        return outcome;
    }

    private static MilpPolicy.Outcome solveRelaxed(SchedulingProblem problem) {
        MilpPolicy.Outcome outcome = MilpPolicy.relaxed(CONFIG).solve(problem, new RandomState(1));
        ScheduleChecks.verify(problem, outcome.schedule());
        return outcome;
    }

    /** A 2-GPU node costing 2/h with one busy GPU and 3/h with two. */
    private static NodeType pair() {
        return new NodeType("P", "V100", 2, new double[] {1, 2, 3});
    }

    private static Job job(String id, double due, double weight, Map<String, Map<Integer, Double>> times) {
        return new Job(id, 0, due, weight, times);
    }

    @Test
    void singleJobTakesTheConfigurationWithLeastTardinessPlusCost() {
        // g=1: 10/h x 1 h late + 2 h x 2/h = 14; g=2: on time, 1 h x 3/h = 3; postponed: 100 x 10 x 2 h = 2000
        Cluster cluster = new Cluster(List.of(pair()), List.of(Node.fixed("a", "P")));
        var problem = new SchedulingProblem(
                0,
                cluster,
                List.of(JobState.waiting(job("j", 3600, 10, Map.of("P", Map.of(1, 7200.0, 2, 3600.0))))),
                null,
                new ObjectiveParameters(100, 3600, 1));
        MilpPolicy.Outcome outcome = solve(problem);
        assertEquals(MilpPolicy.Status.OPTIMAL, outcome.status());
        assertEquals(new Placement(0, 0, 2), outcome.schedule().placement(0));
        assertEquals(3.0, outcome.schedule().objective(), EPS);
        assertEquals(0, outcome.schedule().nodeType(0));
    }

    @Test
    void nodeIsChargedForItsCheapestJobOnlyAndSharingBeatsPostponing() {
        // both on 1 GPU: on time, node cost = min(1 h x 2, 2 h x 2) = 2.
        // a alone on 2 GPUs: 2000 s x 3/h = 1.67 plus b postponed: 100 x 1 x (3600 + 7200 - 10000) s = 22.2
        Cluster cluster = new Cluster(List.of(pair()), List.of(Node.fixed("a", "P")));
        var problem = new SchedulingProblem(
                0,
                cluster,
                List.of(
                        JobState.waiting(job("a", 10000, 1, Map.of("P", Map.of(1, 3600.0, 2, 2000.0)))),
                        JobState.waiting(job("b", 10000, 1, Map.of("P", Map.of(1, 7200.0, 2, 4000.0))))),
                null,
                ObjectiveParameters.DEFAULTS);
        Schedule schedule = solve(problem).schedule();
        assertEquals(new Placement(0, 0, 1), schedule.placement(0));
        assertEquals(new Placement(0, 0, 1), schedule.placement(1));
        assertEquals(2.0, schedule.objective(), EPS);
    }

    @Test
    void rightsizingPicksTheCheaperVmTypeThatStillMeetsTheDueDate() {
        NodeType t4 = NodeType.priced("T4x1", "T4", 1, 1.0);
        NodeType v100 = NodeType.priced("V100x1", "V100", 1, 4.0);
        Cluster cluster = new Cluster(List.of(v100, t4), List.of(Node.rightsizable("vm0")));
        // T4: 1.5 h x 1 = 1.5 on time; V100: 0.5 h x 4 = 2.0
        var problem = new SchedulingProblem(
                0,
                cluster,
                List.of(JobState.waiting(
                        job("j", 7200, 5, Map.of("T4x1", Map.of(1, 5400.0), "V100x1", Map.of(1, 1800.0))))),
                null,
                ObjectiveParameters.DEFAULTS);
        Schedule schedule = solve(problem).schedule();
        assertEquals(1, schedule.nodeType(0), "node runs as T4x1");
        assertEquals(new Placement(0, 1, 1), schedule.placement(0));
        assertEquals(1.5, schedule.objective(), EPS);
    }

    @Test
    void relaxedNodeCountKeepsAnInstanceFeasibleWhereP1nWouldNot() {
        // min(N, J) = 2 nodes would have to be used, but no job can run on the B node: (P1n) as an equality is
        // infeasible
        NodeType a = pair();
        NodeType b = NodeType.priced("B", "K80", 2, 0.5);
        Cluster cluster = new Cluster(List.of(a, b), List.of(Node.fixed("a", "P"), Node.fixed("b", "B")));
        var problem = new SchedulingProblem(
                0,
                cluster,
                List.of(
                        JobState.waiting(job("x", 3600, 1, Map.of("P", Map.of(1, 3600.0)))),
                        JobState.waiting(job("y", 3600, 1, Map.of("P", Map.of(1, 3600.0))))),
                null,
                ObjectiveParameters.DEFAULTS);
        Schedule schedule = solve(problem).schedule();
        assertEquals(new Placement(0, 0, 1), schedule.placement(0));
        assertEquals(new Placement(0, 0, 1), schedule.placement(1));
        assertEquals(-1, schedule.nodeType(1), "the B node stays off");
        assertEquals(2.0, schedule.objective(), EPS);
    }

    @Test
    void relaxedMilpPostponesAJobWithNoWorstCaseTardinessWorkConservingMilpRunsIt() {
        // due far away: postponing costs 0 in f_OBJ while running costs 1 h x 2/h
        Cluster cluster = new Cluster(List.of(pair()), List.of(Node.fixed("a", "P")));
        var problem = new SchedulingProblem(
                0,
                cluster,
                List.of(JobState.waiting(job("j", 100000, 1, Map.of("P", Map.of(1, 3600.0))))),
                null,
                ObjectiveParameters.DEFAULTS);
        Schedule relaxed = solveRelaxed(problem).schedule();
        assertNull(relaxed.placement(0));
        assertEquals(0.0, relaxed.objective(), EPS);
        assertEquals(-1, relaxed.nodeType(0));
        var violation =
                assertThrows(IllegalStateException.class, () -> ScheduleChecks.verifyWorkConserving(problem, relaxed));
        assertTrue(violation.getMessage().contains("job j waits while node a is off"), violation.getMessage());
        // (P1n'a): the node could host it, so it may not wait
        Schedule conserving = solve(problem).schedule();
        assertEquals(new Placement(0, 0, 1), conserving.placement(0));
        assertEquals(2.0, conserving.objective(), EPS);
    }

    @Test
    void workConservingMilpFillsIdleGpusOfAUsedNodeButLetsAJobWaitWhereNothingFits() {
        // One 2-GPU node. "tight" must run now (due in 1 h, on 2 GPUs only). "loose" (due far: free to postpone) fits
        // beside it only on 1 GPU; "wide" (due far) needs 2 GPUs. Relaxed: tight alone, f = 1 h x 3/h = 3, loose and
        // wide wait. Work-conserving: tight takes 2 GPUs, so nothing fits and both may wait: same schedule; with
        // tight on 2 GPUs the node is full, and (P1n'b) holds for loose (needs 1 > 0 idle) and wide (needs 2 > 0).
        Cluster cluster = new Cluster(List.of(pair()), List.of(Node.fixed("a", "P")));
        var tightOnTwo = JobState.waiting(job("tight", 3600, 10, Map.of("P", Map.of(2, 3600.0))));
        var loose = JobState.waiting(job("loose", 100000, 1, Map.of("P", Map.of(1, 3600.0))));
        var wide = JobState.waiting(job("wide", 100000, 1, Map.of("P", Map.of(2, 1800.0))));
        var full =
                new SchedulingProblem(0, cluster, List.of(tightOnTwo, loose, wide), null, ObjectiveParameters.DEFAULTS);
        Schedule fullNode = solve(full).schedule();
        assertEquals(new Placement(0, 0, 2), fullNode.placement(0));
        assertNull(fullNode.placement(1));
        assertNull(fullNode.placement(2));
        assertEquals(3.0, fullNode.objective(), EPS);
        // tight on 1 GPU (1 h at 2/h, on time): loose fits beside it. f_OBJ charges a node its least execution cost,
        // so running loose there is free, a tie for the relaxed model; the work-conserving one must run it
        var tightOnOne = JobState.waiting(job("tight", 3600, 10, Map.of("P", Map.of(1, 3600.0))));
        var idle = new SchedulingProblem(
                0, cluster, List.of(tightOnOne, loose), null, new ObjectiveParameters(100, 3600, 0));
        Schedule conserving = solve(idle).schedule();
        assertEquals(new Placement(0, 0, 1), conserving.placement(0));
        assertEquals(new Placement(0, 0, 1), conserving.placement(1));
        assertEquals(2.0, conserving.objective(), EPS);
        // a second, off node: relaxed keeps it off and loose waiting (f = 2); work-conserving switches it on (f = 4)
        Cluster two = new Cluster(List.of(pair()), List.of(Node.fixed("a", "P"), Node.fixed("b", "P")));
        var tightOnTwo2 = JobState.waiting(job("tight", 3600, 10, Map.of("P", Map.of(2, 3600.0))));
        var spare =
                new SchedulingProblem(0, two, List.of(tightOnTwo2, loose), null, new ObjectiveParameters(100, 3600, 0));
        Schedule relaxedSpare = solveRelaxed(spare).schedule();
        assertNull(relaxedSpare.placement(1), "relaxed milp leaves loose waiting while node b is off");
        assertEquals(3.0, relaxedSpare.objective(), EPS);
        assertThrows(IllegalStateException.class, () -> ScheduleChecks.verifyWorkConserving(spare, relaxedSpare));
        Schedule conservingSpare = solve(spare).schedule();
        assertEquals(2, conservingSpare.placement(0).gpus());
        assertEquals(1, conservingSpare.placement(1).gpus());
        assertTrue(
                conservingSpare.placement(0).node()
                        != conservingSpare.placement(1).node(),
                conservingSpare.toString());
        assertEquals(3.0 + 2.0, conservingSpare.objective(), EPS);
    }

    @Test
    void progressAlreadyDoneShortensTheRemainingTime() {
        // half done: 1 GPU needs 3600 s more (on time, 1 h x 2/h = 2), 2 GPUs 1800 s (on time, 0.5 h x 3/h = 1.5)
        Cluster cluster = new Cluster(List.of(pair()), List.of(Node.fixed("a", "P")));
        Job j = job("j", 3600, 10, Map.of("P", Map.of(1, 7200.0, 2, 3600.0)));
        var problem = new SchedulingProblem(
                0, cluster, List.of(new JobState(j, 0.5, new Placement(0, 0, 1))), null, ObjectiveParameters.DEFAULTS);
        Schedule schedule = solve(problem).schedule();
        assertEquals(new Placement(0, 0, 2), schedule.placement(0));
        assertEquals(1.5, schedule.objective(), EPS);
    }

    @Test
    void matchesExhaustiveEnumerationOnTinyInstances() {
        for (long seed = 1; seed <= 12; seed++) {
            boolean cloud = seed % 2 == 0;
            double mu = seed % 3 == 0 ? 1 : 0;
            SchedulingProblem problem = cloud
                    ? MilpPolicyInstances.rightsizable(seed, 2, 3 + (int) (seed % 2), mu)
                    : MilpPolicyInstances.andreasLike(seed, 2 + (int) (seed % 2), 3 + (int) (seed % 2), 2, mu);
            for (boolean conserving : new boolean[] {false, true}) {
                MilpPolicy.Outcome outcome = conserving ? solve(problem) : solveRelaxed(problem);
                double optimum = MilpPolicyInstances.bruteForceOptimum(problem, conserving);
                String where = "seed " + seed + (cloud ? " rightsizable" : " fixed") + " mu " + mu
                        + (conserving ? " work-conserving" : " relaxed");
                assertEquals(MilpPolicy.Status.OPTIMAL, outcome.status(), where);
                assertEquals(optimum, outcome.schedule().objective(), EPS * Math.max(1, optimum), where);
                // the model's own objective value is f_OBJ of what it returns: the linearization is exact
                assertEquals(
                        outcome.schedule().objective(), outcome.solverObjective(), EPS * Math.max(1, optimum), where);
            }
        }
    }

    @Test
    void warmStartIsNeverBeatenEvenWhenTheTimeLimitStopsTheSolver() {
        SchedulingProblem problem = MilpPolicyInstances.andreasLike(7, 6, 14, 4, 0);
        SchedulingPolicy postponeAllButFirst = new SchedulingPolicy() {
            @Override
            public String name() {
                return "first-only";
            }

            @Override
            public Schedule schedule(SchedulingProblem p, RandomState random) {
                Placement[] placements = new Placement[p.jobCount()];
                int[] types = new int[p.cluster().nodeCount()];
                java.util.Arrays.fill(types, -1);
                placements[0] = new Placement(0, 0, 1);
                types[0] = 0;
                return new Schedule(
                        placements,
                        types,
                        org.gpusched.core.objective.ObjectiveFunction.evaluate(p, placements, types));
            }
        };
        Schedule start = postponeAllButFirst.schedule(problem, new RandomState(0));
        PolicyConfig fast = new PolicyConfig(1000, true, 10, 5, 0.05);
        MilpPolicy.Outcome outcome =
                new MilpPolicy(fast, false, 20_000, postponeAllButFirst).solve(problem, new RandomState(0));
        assertNotNull(outcome.schedule());
        ScheduleChecks.verify(problem, outcome.schedule());
        assertTrue(
                outcome.schedule().objective() <= start.objective() + EPS,
                outcome.status() + ": " + outcome.schedule().objective() + " > warm start " + start.objective());
        // work-conserving: the start is filled first (it leaves jobs waiting beside idle GPUs), and never beaten either
        Schedule filled = WorkConservation.fill(problem, start);
        ScheduleChecks.verifyWorkConserving(problem, filled);
        MilpPolicy.Outcome conserving =
                new MilpPolicy(fast, true, 20_000, postponeAllButFirst).solve(problem, new RandomState(0));
        ScheduleChecks.verify(problem, conserving.schedule());
        ScheduleChecks.verifyWorkConserving(problem, conserving.schedule());
        assertTrue(
                conserving.schedule().objective() <= filled.objective() + EPS,
                conserving.status() + ": " + conserving.schedule().objective() + " > filled warm start "
                        + filled.objective());
    }

    @Test
    void rejectsInstancesAboveTheBinaryVariableLimitNamingTheSize() {
        SchedulingProblem problem = MilpPolicyInstances.andreasLike(3, 4, 10, 2, 0);
        int binaries = MilpPolicy.binaryVariableCount(problem);
        var error = assertThrows(
                InvalidInstanceException.class,
                () -> new MilpPolicy(CONFIG, true, binaries - 1, null).schedule(problem, new RandomState(1)));
        assertTrue(
                error.getMessage().contains("10 jobs x 4 nodes")
                        && error.getMessage().contains(String.valueOf(binaries)),
                error.getMessage());
        assertNotNull(new MilpPolicy(CONFIG, true, binaries, null).schedule(problem, new RandomState(1)));
    }

    @Test
    void anEmptyQueueSwitchesEveryNodeOff() {
        Cluster cluster = new Cluster(List.of(pair()), List.of(Node.fixed("a", "P"), Node.rightsizable("b")));
        var problem = new SchedulingProblem(0, cluster, List.of(), null, ObjectiveParameters.DEFAULTS);
        Schedule schedule = solve(problem).schedule();
        assertEquals(0, schedule.jobCount());
        assertEquals(-1, schedule.nodeType(0));
        assertEquals(-1, schedule.nodeType(1));
        assertEquals(0.0, schedule.objective(), EPS);
    }

    @Test
    void nameIsMilp() {
        assertEquals("milp", new MilpPolicy(CONFIG).name());
        assertTrue(new MilpPolicy(CONFIG).workConserving());
        assertEquals("milp-relaxed", MilpPolicy.relaxed(CONFIG).name());
        assertEquals("milp-relaxed", new MilpPolicy(CONFIG.withWorkConserving(false)).name());
    }
}
