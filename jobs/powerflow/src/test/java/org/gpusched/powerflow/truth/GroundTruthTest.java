package org.gpusched.powerflow.truth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class GroundTruthTest {
    private final GroundTruth truth = GroundTruth.defaults();

    @Test
    void oneGpuAtAMeasuredSettingIsTheMeasurement() {
        // imagenet,resnet50,256,adadelta,150 -> 4148.66 s/epoch at 144.59 W over 1,281,167 samples
        GroundTruth.Outcome o = truth.at("resnet50", 1, 256, 150);
        assertEquals(4148.66 * 256 / 1281167, o.stepTime(), 1e-6);
        assertEquals(144.59474877795884, o.power(), 1e-6);
    }

    @Test
    void betweenMeasuredBatchSizesItInterpolates() {
        GroundTruth.Outcome lo = truth.at("resnet50", 1, 128, 250), hi = truth.at("resnet50", 1, 192, 250);
        GroundTruth.Outcome mid = truth.at("resnet50", 1, 160, 250);
        assertEquals((lo.stepTime() + hi.stepTime()) / 2, mid.stepTime(), 1e-9);
    }

    @Test
    void moreGpusAreFasterButNotLinearAndCostSyncEnergy() {
        GroundTruth.Outcome one = truth.at("resnet50", 1, 256, 250), two = truth.at("resnet50", 2, 256, 250);
        double speedup = one.stepTime() / two.stepTime();
        System.out.printf(
                "resnet50 256 @250 W: 2-GPU speedup %.3f (Zeus profile, other batch: 26.67 s / 15.28 s = 1.745)%n",
                speedup);
        assertTrue(speedup > 1.2 && speedup < 2, "speedup " + speedup);
        assertTrue(two.energyPerIteration() > one.energyPerIteration() * 0.9);
        GroundTruth.Outcome eightIntra = truth.at("bert-squad", 8, 64, 250),
                sixteen = truth.at("bert-squad", 16, 128, 250);
        assertTrue(sixteen.stepTime() > eightIntra.stepTime(), "crossing nodes costs the slower network");
    }

    @Test
    void lowerLimitsAreSlowerAndDrawLessPower() {
        for (var w : truth.config().workloads()) {
            double[] measured = truth.measuredBatches(w.name());
            double bs = measured[measured.length - 1];
            GroundTruth.Outcome lo = truth.at(w.name(), 1, bs, 100), hi = truth.at(w.name(), 1, bs, 250);
            assertTrue(lo.stepTime() >= hi.stepTime() * 0.98, w.name());
            assertTrue(lo.power() < hi.power(), w.name());
        }
        assertTrue(truth.maxPower() > 150 && truth.maxPower() < 250, "P_max " + truth.maxPower());
    }
}
