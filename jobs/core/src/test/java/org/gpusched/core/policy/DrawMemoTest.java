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

/** The draw memo skips repeated iterations without changing anything: same schedules, same random state after. */
class DrawMemoTest {

    @Property(tries = 300)
    void memoChangesNeitherTheSchedulesNorTheRandomStream(
            @ForAll long instanceSeed,
            @ForAll long seed,
            @ForAll @IntRange(min = 1, max = 12) int maxJobs,
            @ForAll boolean bestFit) {
        SchedulingProblem problem = Instances.random(instanceSeed, 6, maxJobs);
        RandomState withMemo = new RandomState(seed);
        RandomState without = new RandomState(seed);
        List<Schedule> memoized = new GreedyEngine(true).run(problem, withMemo, 300, 3, bestFit);
        List<Schedule> constructed = new GreedyEngine(false).run(problem, without, 300, 3, bestFit);
        assertEquals(constructed, memoized);
        for (int k = 0; k < constructed.size(); k++)
            assertEquals(constructed.get(k).objective(), memoized.get(k).objective());
        assertEquals(
                without.state(), withMemo.state(), "the memo must take exactly the uniforms the constructions take");
    }

    @Test
    void smallProblemsRepeatMostIterations() {
        // one or two jobs have a handful of draw outcomes: nearly all of 1000 iterations repeat an earlier one
        int hits = 0;
        for (long seed = 1; seed <= 20; seed++) {
            GreedyEngine engine = new GreedyEngine(true);
            engine.run(Instances.random(seed, 3, 2), new RandomState(seed), 1000, 1, true);
            hits += engine.lastMemoHits();
        }
        assertTrue(hits > 20 * 900, "only " + hits + " of 20 x 999 randomized iterations were recognized as repeats");
    }

    @Test
    void aPathThatContradictsTheRecordedOneIsRefused() {
        DrawMemo memo = new DrawMemo(100);
        memo.insert(1, new int[] {DrawMemo.COIN}, new int[] {0, 1}, new double[] {0.25}, new int[] {1});
        assertThrows(
                IllegalStateException.class,
                () -> memo.insert(
                        1, new int[] {DrawMemo.WEIGHTS}, new int[] {0, 2}, new double[] {1, 2}, new int[] {0}));
    }

    @Test
    void walkTakesOneUniformPerRecordedDrawAndStopsAtTheEnd() {
        DrawMemo memo = new DrawMemo(100);
        // coin with probability 1: always outcome 1 (swap), then the end
        memo.insert(1, new int[] {DrawMemo.COIN}, new int[] {0, 1}, new double[] {1.0}, new int[] {1});
        RandomState random = new RandomState(7);
        RandomState reference = new RandomState(7);
        assertEquals(-1, memo.walk(random));
        reference.nextDouble();
        assertEquals(reference.state(), random.state());
    }
}
