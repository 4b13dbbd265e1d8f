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

    private static MilpPolicy.Outcome solve(SchedulingProblem problem) {
        MilpPolicy.Outcome outcome = new MilpPolicy(CONFIG).solve(problem, new RandomState(1));
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
        var problem = new SchedulingProblem(0, cluster, List.of(JobState.waiting(job("j", 3600, 10, Map.of("P", Map.of(1, 7200.0, 2, 3600.0))))),
                null, new ObjectiveParameters(100, 3600, 1));
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
        var problem = new SchedulingProblem(0, cluster, List.of(
                JobState.waiting(job("a", 10000, 1, Map.of("P", Map.of(1, 3600.0, 2, 2000.0)))),
                JobState.waiting(job("b", 10000, 1, Map.of("P", Map.of(1, 7200.0, 2, 4000.0))))),
                null, ObjectiveParameters.DEFAULTS);
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
        var problem = new SchedulingProblem(0, cluster, List.of(JobState.waiting(job("j", 7200, 5,
                Map.of("T4x1", Map.of(1, 5400.0), "V100x1", Map.of(1, 1800.0))))), null, ObjectiveParameters.DEFAULTS);
        Schedule schedule = solve(problem).schedule();
        assertEquals(1, schedule.nodeType(0), "node runs as T4x1");
        assertEquals(new Placement(0, 1, 1), schedule.placement(0));
        assertEquals(1.5, schedule.objective(), EPS);
    }

    @Test
    void relaxedNodeCountKeepsAnInstanceFeasibleWhereP1nWouldNot() {
        // min(N, J) = 2 nodes would have to be used, but no job can run on the B node: (P1n) as an equality is infeasible
        NodeType a = pair();
        NodeType b = NodeType.priced("B", "K80", 2, 0.5);
        Cluster cluster = new Cluster(List.of(a, b), List.of(Node.fixed("a", "P"), Node.fixed("b", "B")));
        var problem = new SchedulingProblem(0, cluster, List.of(
                JobState.waiting(job("x", 3600, 1, Map.of("P", Map.of(1, 3600.0)))),
                JobState.waiting(job("y", 3600, 1, Map.of("P", Map.of(1, 3600.0))))), null, ObjectiveParameters.DEFAULTS);
        Schedule schedule = solve(problem).schedule();
        assertEquals(new Placement(0, 0, 1), schedule.placement(0));
        assertEquals(new Placement(0, 0, 1), schedule.placement(1));
        assertEquals(-1, schedule.nodeType(1), "the B node stays off");
        assertEquals(2.0, schedule.objective(), EPS);
    }

    @Test
    void jobWithNoWorstCaseTardinessIsPostponedRatherThanForcedOntoANode() {
        // due far away: postponing costs 0 in f_OBJ while running costs 1 h x 2/h; (P1n) would force it to run
        Cluster cluster = new Cluster(List.of(pair()), List.of(Node.fixed("a", "P")));
        var problem = new SchedulingProblem(0, cluster, List.of(JobState.waiting(job("j", 100000, 1, Map.of("P", Map.of(1, 3600.0))))),
                null, ObjectiveParameters.DEFAULTS);
        Schedule schedule = solve(problem).schedule();
        assertNull(schedule.placement(0));
        assertEquals(0.0, schedule.objective(), EPS);
        assertEquals(-1, schedule.nodeType(0));
    }

    @Test
    void progressAlreadyDoneShortensTheRemainingTime() {
        // half done: 1 GPU needs 3600 s more (on time, 1 h x 2/h = 2), 2 GPUs 1800 s (on time, 0.5 h x 3/h = 1.5)
        Cluster cluster = new Cluster(List.of(pair()), List.of(Node.fixed("a", "P")));
        Job j = job("j", 3600, 10, Map.of("P", Map.of(1, 7200.0, 2, 3600.0)));
        var problem = new SchedulingProblem(0, cluster, List.of(new JobState(j, 0.5, new Placement(0, 0, 1))), null, ObjectiveParameters.DEFAULTS);
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
            MilpPolicy.Outcome outcome = solve(problem);
            double optimum = MilpPolicyInstances.bruteForceOptimum(problem);
            String where = "seed " + seed + (cloud ? " rightsizable" : " fixed") + " mu " + mu;
            assertEquals(MilpPolicy.Status.OPTIMAL, outcome.status(), where);
            ScheduleChecks.verify(problem, outcome.schedule());
            assertEquals(optimum, outcome.schedule().objective(), EPS * Math.max(1, optimum), where);
            // the model's own objective value is f_OBJ of what it returns: the linearization is exact
            assertEquals(outcome.schedule().objective(), outcome.solverObjective(), EPS * Math.max(1, optimum), where);
        }
    }

    @Test
    void warmStartIsNeverBeatenEvenWhenTheTimeLimitStopsTheSolver() {
        SchedulingProblem problem = MilpPolicyInstances.andreasLike(7, 6, 14, 4, 0);
        SchedulingPolicy postponeAllButFirst = new SchedulingPolicy() {
            @Override public String name() { return "first-only"; }
            @Override public Schedule schedule(SchedulingProblem p, RandomState random) {
                Placement[] placements = new Placement[p.jobCount()];
                int[] types = new int[p.cluster().nodeCount()];
                java.util.Arrays.fill(types, -1);
                placements[0] = new Placement(0, 0, 1);
                types[0] = 0;
                return new Schedule(placements, types, org.gpusched.core.objective.ObjectiveFunction.evaluate(p, placements, types));
            }
        };
        Schedule start = postponeAllButFirst.schedule(problem, new RandomState(0));
        MilpPolicy.Outcome outcome = new MilpPolicy(new PolicyConfig(1000, true, 10, 5, 0.05), 20_000, postponeAllButFirst)
                .solve(problem, new RandomState(0));
        assertNotNull(outcome.schedule());
        ScheduleChecks.verify(problem, outcome.schedule());
        assertTrue(outcome.schedule().objective() <= start.objective() + EPS, outcome.status() + ": " + outcome.schedule().objective() + " > warm start " + start.objective());
    }

    @Test
    void rejectsInstancesAboveTheBinaryVariableLimitNamingTheSize() {
        SchedulingProblem problem = MilpPolicyInstances.andreasLike(3, 4, 10, 2, 0);
        int binaries = MilpPolicy.binaryVariableCount(problem);
        var error = assertThrows(InvalidInstanceException.class,
                () -> new MilpPolicy(CONFIG, binaries - 1, null).schedule(problem, new RandomState(1)));
        assertTrue(error.getMessage().contains("10 jobs x 4 nodes") && error.getMessage().contains(String.valueOf(binaries)), error.getMessage());
        assertNotNull(new MilpPolicy(CONFIG, binaries, null).schedule(problem, new RandomState(1)));
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
    }
}
