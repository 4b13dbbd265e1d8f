package org.gpusched.powerflow.model;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.gpusched.powerflow.truth.GroundTruth;
import org.junit.jupiter.api.Test;

/** Warm-started refits take new telemetry into account, also when the warm start does not converge. */
class ModelRefitTest {
    private static final GroundTruth TRUTH = GroundTruth.defaults();
    private static final double[] LEVELS = TRUTH.config().gpu().freqLevels();
    private static final double BATCH = 256;

    /** resnet50's profile: one GPU at every power limit, as the simulator's pre-run gives it. */
    private static List<Observation> profile() {
        List<Observation> obs = new ArrayList<>();
        for (double limit : TRUTH.config().gpu().powerLimits()) obs.add(sample(1, limit, 1));
        return obs;
    }

    private static Observation sample(int gpus, double limit, double slower) {
        GroundTruth.Outcome o = TRUTH.at("resnet50", gpus, BATCH, limit);
        return new Observation(
                Configuration.of(gpus, 8, BATCH, limit / TRUTH.config().gpu().maxLimit()),
                o.stepTime() * slower,
                o.energyPerIteration() * slower);
    }

    @Test
    void aWarmStartThatRunsOutOfEvaluationsFallsBackToAFreshFitInsteadOfKeepingThePreviousModel() {
        PerformanceModel before = ModelFitter.fit(profile(), LEVELS);
        List<Observation> more = new ArrayList<>(profile());
        more.add(sample(4, 250, 3));
        // Three evaluations cannot converge: the refit must not return its starting point.
        PerformanceModel capped = ModelFitter.refit(before, more, LEVELS, 3);
        assertFalse(Arrays.equals(before.time().parameters(), capped.time().parameters()));
        PerformanceModel fresh = ModelFitter.fit(more, LEVELS);
        assertArrayEquals(fresh.time().parameters(), capped.time().parameters());
        assertArrayEquals(fresh.energy().parameters(), capped.energy().parameters());
        assertEquals(fresh.energy().breakFreq(), capped.energy().breakFreq());
    }

    @Test
    void aRefitWithASampleAtANewGpuCountMovesThatCountsPredictionTowardTheTelemetry() {
        PerformanceModel before = ModelFitter.fit(profile(), LEVELS);
        List<Observation> more = new ArrayList<>(profile());
        Observation slow = sample(4, 250, 3);
        more.add(slow);
        PerformanceModel after = ModelFitter.refit(before, more, LEVELS);
        double was = Math.abs(before.time().stepTime(slow.config()) / slow.stepTime() - 1);
        double now = Math.abs(after.time().stepTime(slow.config()) / slow.stepTime() - 1);
        assertTrue(now < 0.1 && now < was / 3, "relative error at 4 GPUs: before " + was + ", after " + now);
        double e = Math.abs(
                after.energy().energyPerIteration(after.time(), slow.config()) / slow.energyPerIteration() - 1);
        assertTrue(e < 0.1, "energy at 4 GPUs off by " + e);
    }
}
