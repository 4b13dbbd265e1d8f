package org.gpusched.core.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.gpusched.core.model.Cluster;
import org.gpusched.core.model.Job;
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

/** Hand-checked moves of the local search from a given start, and rg-ls end to end. */
class LocalSearchPolicyTest {
    private static final double EPS = 1e-9;

    private static Schedule schedule(SchedulingProblem problem, Placement[] placements, int... nodeTypes) {
        return new Schedule(placements, nodeTypes, ObjectiveFunction.evaluate(problem, placements, nodeTypes));
    }

    private static Schedule improve(SchedulingProblem problem, Schedule start) {
        ScheduleChecks.verify(problem, start);
        Schedule result = LocalSearchPolicy.improve(problem, start, 10);
        ScheduleChecks.verify(problem, result);
        assertTrue(result.objective() < start.objective(), "no improvement from " + start);
        return result;
    }

    @Test
    void swapsALateJobOntoTheFastNodeOfAnOnTimeOne() {
        NodeType fast = NodeType.priced("V", "V100", 1, 1);
        NodeType slow = NodeType.priced("K", "K80", 1, 1);
        Cluster cluster = new Cluster(List.of(fast, slow), List.of(Node.fixed("v", "V"), Node.fixed("k", "K")));
        Map<String, Map<Integer, Double>> times = Map.of("V", Map.of(1, 3600.0), "K", Map.of(1, 7200.0));
        var problem = new SchedulingProblem(
                0,
                cluster,
                List.of(
                        JobState.waiting(new Job("a", 0, 4000, 10, times)),
                        JobState.waiting(new Job("b", 0, 20000, 1, times))),
                null,
                ObjectiveParameters.DEFAULTS);
        // a late on K: 10 x 3200/3600 + 2 h x 1; b on V: 1 h x 1 -> 11.89. Swapped: 1 + 2 = 3.
        Schedule start = schedule(problem, new Placement[] {new Placement(1, 1, 1), new Placement(0, 0, 1)}, 0, 1);
        assertEquals(10 * 3200 / 3600.0 + 3, start.objective(), EPS);
        Schedule result = improve(problem, start);
        assertEquals(new Placement(0, 0, 1), result.placement(0));
        assertEquals(new Placement(1, 1, 1), result.placement(1));
        assertEquals(3.0, result.objective(), EPS);
    }

    @Test
    void anUrgentPostponedJobTakesTheSlotOfARelaxedRunningOne() {
        Cluster cluster = new Cluster(List.of(NodeType.priced("V", "V100", 1, 1)), List.of(Node.fixed("v", "V")));
        Map<String, Map<Integer, Double>> times = Map.of("V", Map.of(1, 3600.0));
        var problem = new SchedulingProblem(
                0,
                cluster,
                List.of(
                        JobState.waiting(new Job("relaxed", 0, 100000, 1, times)),
                        JobState.waiting(new Job("urgent", 0, 3600, 5, times))),
                null,
                ObjectiveParameters.DEFAULTS);
        // urgent postponed: 100 x 5 x (3600 + 3600 - 3600) s = 500, plus the node 1 -> 501; swapped: 1
        Schedule start = schedule(problem, new Placement[] {new Placement(0, 0, 1), null}, 0);
        assertEquals(501.0, start.objective(), EPS);
        Schedule result = improve(problem, start);
        assertNull(result.placement(0));
        assertEquals(new Placement(0, 0, 1), result.placement(1));
        assertEquals(1.0, result.objective(), EPS);
    }

    @Test
    void retypesARightsizableNodeHostingALateJob() {
        NodeType slow = NodeType.priced("slow", "K80", 1, 0.5);
        NodeType fast = NodeType.priced("fast", "V100", 1, 2);
        Cluster cluster = new Cluster(List.of(slow, fast), List.of(Node.rightsizable("vm")));
        var problem = new SchedulingProblem(
                0,
                cluster,
                List.of(JobState.waiting(
                        new Job("late", 0, 3600, 10, Map.of("slow", Map.of(1, 7200.0), "fast", Map.of(1, 1800.0))))),
                null,
                ObjectiveParameters.DEFAULTS);
        // slow: 10 x 1 h late + 2 h x 0.5 = 11; fast: on time, 0.5 h x 2 = 1
        Schedule start = schedule(problem, new Placement[] {new Placement(0, 0, 1)}, 0);
        Schedule result = improve(problem, start);
        assertEquals(1, result.nodeType(0));
        assertEquals(new Placement(0, 1, 1), result.placement(0));
        assertEquals(1.0, result.objective(), EPS);
    }

    @Test
    void givesALateJobTheGpuCountThatMakesItOnTimeTheBestOfDoublingAndResizing() {
        Cluster cluster = new Cluster(List.of(NodeType.priced("Q", "V100", 4, 4)), List.of(Node.fixed("q", "Q")));
        var problem = new SchedulingProblem(
                0,
                cluster,
                List.of(JobState.waiting(
                        new Job("late", 0, 3000, 10, Map.of("Q", Map.of(1, 7200.0, 2, 4000.0, 4, 2500.0))))),
                null,
                ObjectiveParameters.DEFAULTS);
        // 1 GPU: 11.67 + 8 = 19.67; doubled to 2: 2.78 + 4.44 = 7.22; resized to 4: on time, 2500 s x 4/h = 2.78
        Schedule start = schedule(problem, new Placement[] {new Placement(0, 0, 1)}, 0);
        Schedule result = improve(problem, start);
        assertEquals(new Placement(0, 0, 4), result.placement(0));
        assertEquals(2500 / 3600.0 * 4, result.objective(), EPS);
    }

    @Test
    void halvesTheGpusOfALateJobWhoseSpeedUpDoesNotPayForThem() {
        double[] rate = {0, 10, 20, 30, 40}; // energy-like: every busy GPU costs 10/h
        Cluster cluster = new Cluster(List.of(new NodeType("E", "V100", 4, rate)), List.of(Node.fixed("e", "E")));
        var problem = new SchedulingProblem(
                0,
                cluster,
                List.of(JobState.waiting(new Job("late", 0, 3600, 1, Map.of("E", Map.of(1, 4000.0, 2, 3800.0))))),
                null,
                ObjectiveParameters.DEFAULTS);
        // 2 GPUs: 200 s late x 1/h + 3800 s x 20/h = 21.17; 1 GPU: 400 s late + 4000 s x 10/h = 11.22
        Schedule start = schedule(problem, new Placement[] {new Placement(0, 0, 2)}, 0);
        Schedule result = improve(problem, start);
        assertEquals(new Placement(0, 0, 1), result.placement(0));
        assertEquals(400 / 3600.0 + 4000 / 3600.0 * 10, result.objective(), EPS);
    }

    /** One node of 2 GPUs at 1/h whatever is busy, nothing else; wide runs on 1 or 2 GPUs, narrow on 1. */
    private static SchedulingProblem wideAndNarrowOnOneNode() {
        Cluster cluster = new Cluster(List.of(NodeType.priced("Q", "V100", 2, 1)), List.of(Node.fixed("q", "Q")));
        return new SchedulingProblem(
                0,
                cluster,
                List.of(
                        JobState.waiting(new Job("wide", 0, 10000, 1, Map.of("Q", Map.of(1, 7200.0, 2, 3600.0)))),
                        JobState.waiting(new Job("narrow", 0, 3600, 2, Map.of("Q", Map.of(1, 3600.0))))),
                null,
                ObjectiveParameters.DEFAULTS);
    }

    @Test
    void aStartWhoseObjectiveIsOffOnlyByRoundingComesBackAsItIs() {
        var problem = wideAndNarrowOnOneNode();
        Placement[] placements = {new Placement(0, 0, 2), null};
        double exact = ObjectiveFunction.evaluate(problem, placements, new int[] {0});
        // as a start summed in another order carries it: a few ulps above the recomputed value
        Schedule start = new Schedule(placements, new int[] {0}, Math.nextUp(Math.nextUp(exact)));
        assertSame(start, LocalSearchPolicy.improve(problem, start, 10, false, false));
        // a real improvement still counts
        assertTrue(LocalSearchPolicy.beats(exact - 1e-6, exact));
        assertFalse(LocalSearchPolicy.beats(Math.nextDown(exact), exact));
    }

    // ---- shrink-and-insert: our neighbourhood, not the thesis' (ShrinkAndInsertNeighbourhood)

    @Test
    void shrinksARunningJobSoThatAPostponedOneRuns() {
        var problem = wideAndNarrowOnOneNode();
        // wide on both GPUs, on time, 1 h x 1/h = 1; narrow postponed: 100 x 2/h x (0 + 1 h + 1 h - 1 h) = 200 -> 201
        Schedule start = schedule(problem, new Placement[] {new Placement(0, 0, 2), null}, 0);
        assertEquals(201.0, start.objective(), EPS);
        // the thesis' seven neighbourhoods cannot run narrow: it has no 2-GPU time to take wide's slot, and no job is
        // late
        assertSame(start, LocalSearchPolicy.improve(problem, start, 10, false, false));
        // wide shrunk to 1 GPU (2 h, on time, cost 2), narrow on the other (1 h, on time, cost 1): node term = least =
        // 1
        Schedule result = improve(problem, start);
        assertEquals(new Placement(0, 0, 1), result.placement(0));
        assertEquals(new Placement(0, 0, 1), result.placement(1));
        assertEquals(1.0, result.objective(), EPS);
    }

    @Test
    void retypesARightsizableNodeToMakeRoomForAPostponedJob() {
        NodeType single = NodeType.priced("S", "K80", 1, 1);
        NodeType dual = NodeType.priced("D", "K80", 2, 1.5);
        Cluster cluster = new Cluster(List.of(single, dual), List.of(Node.rightsizable("vm")));
        Map<String, Map<Integer, Double>> times = Map.of("S", Map.of(1, 3600.0), "D", Map.of(1, 3600.0));
        var problem = new SchedulingProblem(
                0,
                cluster,
                List.of(
                        JobState.waiting(new Job("relaxed", 0, 5400, 1, times)),
                        JobState.waiting(new Job("urgent", 0, 3600, 2, times))),
                null,
                ObjectiveParameters.DEFAULTS);
        // relaxed alone on S: 1 h x 1 = 1; urgent postponed: 200 -> 201. The thesis' best: urgent takes relaxed's slot,
        // relaxed postponed: 100 x 1/h x (1 h + 1 h - 1.5 h) = 50 -> 51. As D: both on time, least cost 1 h x 1.5
        Schedule start = schedule(problem, new Placement[] {new Placement(0, 0, 1), null}, 0);
        assertEquals(201.0, start.objective(), EPS);
        assertEquals(
                51.0,
                LocalSearchPolicy.improve(problem, start, 10, false, false).objective(),
                EPS);
        Schedule result = improve(problem, start);
        assertEquals(1, result.nodeType(0));
        assertEquals(new Placement(0, 1, 1), result.placement(0));
        assertEquals(new Placement(0, 1, 1), result.placement(1));
        assertEquals(1.5, result.objective(), EPS);
    }

    @Test
    void movesARunningJobToAnotherNodeToMakeRoomForAPostponedOne() {
        Cluster cluster = new Cluster(
                List.of(NodeType.priced("Q", "V100", 2, 1)), List.of(Node.fixed("a", "Q"), Node.fixed("b", "Q")));
        Map<String, Map<Integer, Double>> oneGpu = Map.of("Q", Map.of(1, 3600.0));
        var problem = new SchedulingProblem(
                0,
                cluster,
                List.of(
                        JobState.waiting(new Job("x", 0, 100000, 1, oneGpu)),
                        JobState.waiting(new Job("y", 0, 100000, 1, oneGpu)),
                        JobState.waiting(new Job("pair", 0, 3600, 2, Map.of("Q", Map.of(2, 3600.0))))),
                null,
                ObjectiveParameters.DEFAULTS);
        // x alone on a, y alone on b (1 each), pair (needs 2 GPUs) postponed: 200 -> 202
        Schedule start =
                schedule(problem, new Placement[] {new Placement(0, 0, 1), new Placement(1, 0, 1), null}, 0, 0);
        assertEquals(202.0, start.objective(), EPS);
        assertSame(start, LocalSearchPolicy.improve(problem, start, 10, false, false));
        // one of x, y joins the other; pair takes the freed node: 1 + 1
        Schedule result = improve(problem, start);
        Placement pair = result.placement(2);
        assertEquals(2, pair.gpus());
        assertEquals(result.placement(0).node(), result.placement(1).node());
        assertTrue(result.placement(0).node() != pair.node());
        assertEquals(2.0, result.objective(), EPS);
    }

    @Test
    void postponesARunningJobOfSmallPenaltyForAWaitingOneOfLargePenaltyAndLowerPressure() {
        Cluster cluster = new Cluster(List.of(NodeType.priced("Q", "V100", 2, 1)), List.of(Node.fixed("q", "Q")));
        var problem = new SchedulingProblem(
                0,
                cluster,
                List.of(
                        JobState.waiting(new Job("both-gpus", 0, 3600, 1, Map.of("Q", Map.of(2, 3600.0)))),
                        JobState.waiting(new Job("heavy", 0, 9000, 10, Map.of("Q", Map.of(1, 7200.0))))),
                null,
                ObjectiveParameters.DEFAULTS);
        // pressures: both-gpus 1 h - 1 h = 0, heavy 2 h - 2.5 h < 0, so the thesis' third neighbourhood does not swap
        // them
        // (nor could heavy take a 2-GPU configuration). Start: both-gpus runs, 1 h x 1 = 1; heavy postponed:
        // 100 x 10/h x (1 h + 2 h - 2.5 h) = 500 -> 501. Swapped: both-gpus postponed 100 x 1/h x 1 h = 100, heavy 2 h
        // x 1 = 2
        Schedule start = schedule(problem, new Placement[] {new Placement(0, 0, 2), null}, 0);
        assertEquals(501.0, start.objective(), EPS);
        assertSame(start, LocalSearchPolicy.improve(problem, start, 10, false, false));
        Schedule result = improve(problem, start);
        assertNull(result.placement(0));
        assertEquals(new Placement(0, 0, 1), result.placement(1));
        assertEquals(102.0, result.objective(), EPS);
    }

    @Test
    void switchesANodeOnForAPostponedJob() {
        Cluster cluster = new Cluster(
                List.of(NodeType.priced("Q", "V100", 1, 1)), List.of(Node.fixed("a", "Q"), Node.fixed("b", "Q")));
        var problem = new SchedulingProblem(
                0,
                cluster,
                List.of(JobState.waiting(new Job("late", 0, 3600, 2, Map.of("Q", Map.of(1, 3600.0))))),
                null,
                ObjectiveParameters.DEFAULTS);
        Schedule start = schedule(problem, new Placement[] {null}, -1, -1);
        assertEquals(200.0, start.objective(), EPS);
        assertSame(start, LocalSearchPolicy.improve(problem, start, 10, false, false));
        Schedule result = improve(problem, start);
        assertEquals(new Placement(0, 0, 1), result.placement(0)); // the lowest-index off node of its class
        assertEquals(1.0, result.objective(), EPS);
    }

    @Test
    void aLocalOptimumIsReturnedUnchanged() {
        Cluster cluster = new Cluster(List.of(NodeType.priced("V", "V100", 1, 1)), List.of(Node.fixed("v", "V")));
        var problem = new SchedulingProblem(
                0,
                cluster,
                List.of(JobState.waiting(new Job("j", 0, 7200, 1, Map.of("V", Map.of(1, 3600.0))))),
                null,
                ObjectiveParameters.DEFAULTS);
        Schedule start = schedule(problem, new Placement[] {new Placement(0, 0, 1)}, 0);
        assertSame(start, LocalSearchPolicy.improve(problem, start, 10));
    }

    @Test
    void workConservingSearchRelocatesTheJobItDisplacesInsteadOfLeavingItWaitingBesideAnIdleGpu() {
        // n0: one P GPU; n1: two Q GPUs. r (due far: postponing it is free) runs on n0, c on one GPU of n1, w (runs on
        // P only, due in 1 h) waits: n0 is full and w cannot use Q, so the start is work-conserving (f = 1 + 1 + 100).
        NodeType p = new NodeType("P", "V100", 1, new double[] {0, 1});
        NodeType q = new NodeType("Q", "T4", 2, new double[] {0, 1, 2});
        Cluster cluster = new Cluster(List.of(p, q), List.of(Node.fixed("n0", "P"), Node.fixed("n1", "Q")));
        var problem = new SchedulingProblem(
                0,
                cluster,
                List.of(
                        JobState.waiting(
                                new Job("r", 0, 100_000, 1, Map.of("P", Map.of(1, 3600.0), "Q", Map.of(1, 7200.0)))),
                        JobState.waiting(new Job("c", 0, 3600, 1, Map.of("Q", Map.of(1, 3600.0)))),
                        JobState.waiting(new Job("w", 0, 3600, 1, Map.of("P", Map.of(1, 3600.0))))),
                null,
                new ObjectiveParameters(100, 3600, 0));
        Schedule start =
                schedule(problem, new Placement[] {new Placement(0, 0, 1), new Placement(1, 1, 1), null}, 0, 1);
        ScheduleChecks.verifyWorkConserving(problem, start);
        assertEquals(102.0, start.objective(), EPS);
        // w takes r's GPU. Postponing r or moving it beside c costs the same in f_OBJ (n1 is charged c's cheaper
        // execution either way): without the rule the search keeps the first such move it meets, the thesis' third
        // neighbourhood, and leaves r waiting beside n1's idle GPU
        Schedule free = LocalSearchPolicy.improve(problem, start, 10, true, false);
        assertEquals(2.0, free.objective(), EPS);
        assertNull(free.placement(0), "without the rule r is postponed by choice: " + free);
        assertThrows(IllegalStateException.class, () -> ScheduleChecks.verifyWorkConserving(problem, free));
        // with it, that move is refused and shrink-and-insert's "move one running job out" runs r on n1 instead
        Schedule conserving = LocalSearchPolicy.improve(problem, start, 10, true, true);
        ScheduleChecks.verify(problem, conserving);
        ScheduleChecks.verifyWorkConserving(problem, conserving);
        assertEquals(2.0, conserving.objective(), EPS);
        assertEquals(new Placement(0, 0, 1), conserving.placement(2));
        assertEquals(new Placement(1, 1, 1), conserving.placement(0));
    }

    @Test
    void isDeterministicForTheSameSeedAndNeverWorseThanAndreasRg() {
        PolicyConfig config = PolicyConfig.DEFAULTS.withMaxIterations(300);
        for (long seed = 1; seed <= 6; seed++) {
            SchedulingProblem problem = MilpPolicyInstances.andreasLike(seed, 6, 30, 4, seed % 2);
            Schedule first = new LocalSearchPolicy(config).schedule(problem, new RandomState(seed));
            Schedule second = new LocalSearchPolicy(config).schedule(problem, new RandomState(seed));
            Schedule rg = new AndreasRandomizedGreedyPolicy(config).schedule(problem, new RandomState(seed));
            ScheduleChecks.verify(problem, first);
            assertEquals(first, second);
            double ls = PolicyPropertiesTest.waste(problem, first);
            double bound = PolicyPropertiesTest.waste(problem, WorkConservation.fill(problem, rg));
            assertTrue(ls <= bound + 1e-9 * Math.max(1, Math.abs(bound)), "rg-ls " + ls + " > andreas-rg " + bound);
        }
    }

    @Test
    void nameIsRgLs() {
        assertEquals("rg-ls", new LocalSearchPolicy(PolicyConfig.DEFAULTS).name());
        assertTrue(Arrays.asList("rg-ls").contains(new LocalSearchPolicy(null).name()));
    }
}
