package org.gpusched.core.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
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
 * The iterations-without-gain rule of a randomized greedy call: a call that stops after L iterations returns what a
 * call of exactly L iterations returns, stops at the first check {@value GreedyEngine#GAIN_CHECK}-aligned where the
 * best is that many iterations old, and stops at the same place on any thread count.
 */
class IterationsWithoutGainTest {

    @Property(tries = 60)
    void aCallThatStopsEarlyReturnsWhatThatManyIterationsReturn(
            @ForAll long instanceSeed,
            @ForAll long seed,
            @ForAll @IntRange(min = 1, max = 40) int maxNodes,
            @ForAll @IntRange(min = 1, max = 200) int withoutGain,
            @ForAll @IntRange(min = 1, max = 3) int keep,
            @ForAll boolean memo) {
        SchedulingProblem problem = Instances.randomWithAtLeast(instanceSeed, maxNodes, 2, 40);
        for (Ranking ranking : Ranking.values()) {
            GreedyEngine engine = new GreedyEngine(memo, NodeOpeningRule.DEFAULT, 1, ranking);
            RandomState random = new RandomState(seed);
            List<Schedule> stopped = engine.run(problem, random, 1000, withoutGain, keep, true);
            int ran = engine.lastIterations();
            assertTrue(ran >= 1 && ran <= 1000, "ran " + ran);
            RandomState exact = new RandomState(seed);
            List<Schedule> expected =
                    new GreedyEngine(memo, NodeOpeningRule.DEFAULT, 1, ranking).run(problem, exact, ran, keep, true);
            assertEquals(expected, stopped, ranking + ": " + ran + " iterations");
            if (ran > 1) assertEquals(exact.state(), random.state(), "one draw per call, stopped early or not");
        }
    }

    @Property(tries = 15)
    void whereACallStopsDoesNotDependOnTheThreads(
            @ForAll long instanceSeed,
            @ForAll long seed,
            @ForAll @IntRange(min = 1, max = 60) int maxNodes,
            @ForAll @IntRange(min = 1, max = 300) int withoutGain) {
        // at least 512 jobs, so that each block of GAIN_CHECK iterations is shared with the other threads
        SchedulingProblem problem = Instances.randomWithAtLeast(instanceSeed, maxNodes, 512, 600);
        GreedyEngine one = new GreedyEngine(true, NodeOpeningRule.DEFAULT, 1, Ranking.WASTE);
        List<Schedule> reference = one.run(problem, new RandomState(seed), 600, withoutGain, 2, true);
        for (int threads : new int[] {2, 3}) {
            GreedyEngine parallel = new GreedyEngine(true, NodeOpeningRule.DEFAULT, threads, Ranking.WASTE);
            List<Schedule> schedules = parallel.run(problem, new RandomState(seed), 600, withoutGain, 2, true);
            assertEquals(reference, schedules, threads + " threads");
            assertEquals(one.lastIterations(), parallel.lastIterations(), threads + " threads");
        }
    }

    @Test
    void aCallStopsAtTheFirstCheckWhereItsBestIsOldEnough() {
        int withoutGain = 100;
        int stoppedEarly = 0;
        for (long s = 1; s <= 30; s++) {
            SchedulingProblem problem = Instances.randomWithAtLeast(s * 17, 12, 6, 30);
            GreedyEngine engine = new GreedyEngine(false, NodeOpeningRule.DEFAULT, 1, Ranking.WASTE);
            engine.run(problem, new RandomState(s), 1000, withoutGain, 1, true);
            int ran = engine.lastIterations();
            if (ran == 1000) continue;
            stoppedEarly++;
            assertEquals(
                    0, (ran - 1) % GreedyEngine.GAIN_CHECK, "checks fall every GAIN_CHECK iterations after the first");
            int best = bestIteration(problem, s, ran);
            assertTrue(ran - 1 - best >= withoutGain, "stopped at " + ran + " with its best at " + best);
            int previousCheck = ran - GreedyEngine.GAIN_CHECK;
            if (previousCheck > 1)
                assertTrue(
                        previousCheck - 1 - bestIteration(problem, s, previousCheck) < withoutGain,
                        "should have stopped at " + previousCheck);
        }
        assertTrue(stoppedEarly >= 10, "only " + stoppedEarly + " of 30 calls stopped early");
    }

    /** The iteration (0: the deterministic greedy) whose schedule is the best of a call of {@code iterations}. */
    private static int bestIteration(SchedulingProblem problem, long seed, int iterations) {
        Schedule best = bestOf(problem, seed, iterations);
        // the best of the first k iterations is the call's best from k = its iteration + 1 on: search for that k
        int low = 1, high = iterations;
        while (low < high) {
            int mid = (low + high) >>> 1;
            if (bestOf(problem, seed, mid).equals(best)) high = mid;
            else low = mid + 1;
        }
        return low - 1;
    }

    private static Schedule bestOf(SchedulingProblem problem, long seed, int iterations) {
        return new GreedyEngine(false, NodeOpeningRule.DEFAULT, 1, Ranking.WASTE)
                .run(problem, new RandomState(seed), iterations, 1, true)
                .get(0);
    }

    @Test
    void zeroRunsEveryIterationAndANegativeCountIsRefused() {
        SchedulingProblem problem = Instances.randomWithAtLeast(5, 10, 4, 20);
        GreedyEngine engine = new GreedyEngine(true, NodeOpeningRule.DEFAULT, 1, Ranking.WASTE);
        List<Schedule> all = engine.run(problem, new RandomState(3), 300, 0, 1, true);
        assertEquals(300, engine.lastIterations());
        assertEquals(all, engine.run(problem, new RandomState(3), 300, 1, true));
        assertThrows(IllegalArgumentException.class, () -> engine.run(problem, new RandomState(3), 300, -1, 1, true));
        assertThrows(IllegalArgumentException.class, () -> PolicyConfig.DEFAULTS.withIterationsWithoutGain(-1));
    }
}
