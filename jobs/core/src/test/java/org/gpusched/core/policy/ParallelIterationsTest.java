package org.gpusched.core.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.gpusched.core.model.Schedule;
import org.gpusched.core.model.SchedulingProblem;
import org.gpusched.core.random.RandomState;
import org.junit.jupiter.api.Test;

/**
 * andreas-rg's randomized iterations on several threads: the same schedules (and f_OBJ to the bit) for 1, 2 and 4
 * threads, with and without the draw memo; the caller's random state moves by exactly one draw per call, so a call
 * depends only on the problem and that state (what a restore from a checkpoint gives back).
 */
class ParallelIterationsTest {

    /** A random instance large enough (at least 64 jobs) that the engine hands iterations to other threads. */
    private static SchedulingProblem large(long seed, int maxNodes) {
        return Instances.randomWithAtLeast(seed, maxNodes, 64, 160);
    }

    @Property(tries = 60)
    void threadCountDoesNotChangeTheSchedules(
            @ForAll long instanceSeed,
            @ForAll long seed,
            @ForAll @IntRange(min = 1, max = 80) int maxNodes,
            @ForAll @IntRange(min = 0, max = 2) int rule,
            @ForAll @IntRange(min = 1, max = 4) int keep,
            @ForAll boolean memo,
            @ForAll boolean bestFit) {
        SchedulingProblem problem = large(instanceSeed, maxNodes);
        NodeOpeningRule opening = NodeOpeningRule.values()[rule];
        RandomState one = new RandomState(seed);
        List<Schedule> reference = new GreedyEngine(memo, opening, 1).run(problem, one, 200, keep, bestFit);
        for (int threads : new int[] {2, 4}) {
            RandomState random = new RandomState(seed);
            List<Schedule> parallel = new GreedyEngine(memo, opening, threads).run(problem, random, 200, keep, bestFit);
            assertSameSchedules(reference, parallel, threads + " threads");
            assertEquals(one.state(), random.state());
        }
    }

    @Property(tries = 25)
    void preparingTheJobsOnSeveralThreadsGivesTheSameSchedules(
            @ForAll long instanceSeed,
            @ForAll long seed,
            @ForAll @IntRange(min = 1, max = 80) int maxNodes,
            @ForAll @IntRange(min = 0, max = 2) int rule,
            @ForAll boolean chargeMoves) {
        // enough jobs that each call's per-job part is split over the threads; a third of them run, so with moves
        // charged their configurations off their placement take a charge, asked only of the configurations drawn
        SchedulingProblem drawn =
                Instances.randomWithAtLeast(instanceSeed, maxNodes, JobConfigurations.PARALLEL_MIN_JOBS, 700);
        SchedulingProblem problem = new SchedulingProblem(
                drawn.now(),
                drawn.cluster(),
                drawn.jobs(),
                currentNodeTypes(drawn),
                drawn.parameters().withChargedMoves(chargeMoves));
        NodeOpeningRule opening = NodeOpeningRule.values()[rule];
        for (Ranking ranking : Ranking.values()) {
            RandomState one = new RandomState(seed);
            List<Schedule> reference = new GreedyEngine(true, opening, 1, ranking).run(problem, one, 60, 3, true);
            RandomState two = new RandomState(seed);
            List<Schedule> split = new GreedyEngine(true, opening, 2, ranking).run(problem, two, 60, 3, true);
            assertSameSchedules(reference, split, ranking + ", 2 threads");
            assertEquals(one.state(), two.state());
        }
    }

    /** The same schedules, and f_OBJ to the bit. */
    private static void assertSameSchedules(List<Schedule> expected, List<Schedule> actual, String what) {
        assertEquals(expected, actual, what);
        for (int k = 0; k < expected.size(); k++)
            assertEquals(expected.get(k).objective(), actual.get(k).objective(), what);
    }

    private static int[] currentNodeTypes(SchedulingProblem p) {
        int[] types = new int[p.cluster().nodeCount()];
        for (int n = 0; n < types.length; n++) types[n] = p.currentNodeType(n);
        return types;
    }

    @Property(tries = 200)
    void memoAndThreadsAgreeOnSmallProblems(
            @ForAll long instanceSeed, @ForAll long seed, @ForAll @IntRange(min = 1, max = 12) int maxJobs) {
        // small problems run on the caller's thread and lean on the memo: the same schedules as plain constructions
        SchedulingProblem problem = Instances.random(instanceSeed, 6, maxJobs);
        List<Schedule> memo =
                new GreedyEngine(true, NodeOpeningRule.DEFAULT, 2).run(problem, new RandomState(seed), 300, 3, true);
        List<Schedule> plain =
                new GreedyEngine(false, NodeOpeningRule.DEFAULT, 1).run(problem, new RandomState(seed), 300, 3, true);
        assertEquals(plain, memo);
    }

    @Test
    void aCallTakesOneDrawAndDependsOnlyOnTheStateItIsGiven() {
        // a controller calls the policy again and again; after a restore its random state is the checkpointed long
        PolicyConfig config = PolicyConfig.DEFAULTS.withMaxIterations(150).withThreads(2);
        AndreasRandomizedGreedyPolicy running = new AndreasRandomizedGreedyPolicy(config);
        RandomState random = new RandomState(99);
        for (int call = 0; call < 12; call++) {
            SchedulingProblem problem = large(1000 + call * 7L, 30);
            long before = random.state();
            Schedule continued = running.schedule(problem, random);
            RandomState expectedAfter = new RandomState(before);
            expectedAfter.nextLong();
            assertEquals(expectedAfter.state(), random.state(), "one draw per call");
            Schedule restored =
                    new AndreasRandomizedGreedyPolicy(config.withThreads(1)).schedule(problem, new RandomState(before));
            assertEquals(continued, restored, "call " + call);
            assertEquals(continued.objective(), restored.objective());
        }
    }

    @Test
    void greedyLeavesTheRandomStateAlone() {
        RandomState random = new RandomState(5);
        new GreedyPolicy(PolicyConfig.DEFAULTS).schedule(large(3, 20), random);
        assertEquals(5, random.state());
    }

    @Test
    void iterationsFindBetterSchedulesThanTheGreedyOnLargeProblems() {
        // the parallel iterations search: on most large instances some randomized iteration beats iteration 0
        int better = 0;
        for (long s = 1; s <= 10; s++) {
            SchedulingProblem problem = large(s * 31, 40);
            double greedy = new GreedyPolicy(PolicyConfig.DEFAULTS)
                    .schedule(problem, new RandomState(s))
                    .objective();
            double rg = AndreasRandomizedGreedyPolicy.byFObj(
                            PolicyConfig.DEFAULTS.withMaxIterations(200).withThreads(2))
                    .schedule(problem, new RandomState(s))
                    .objective();
            assertTrue(rg <= greedy + 1e-9 * Math.abs(greedy), "never worse than the greedy");
            if (rg < greedy - 1e-9 * Math.abs(greedy)) better++;
        }
        assertTrue(better >= 5, "only " + better + " of 10 instances improved on the greedy");
    }
}
