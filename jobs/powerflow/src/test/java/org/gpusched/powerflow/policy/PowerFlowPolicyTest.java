package org.gpusched.powerflow.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.gpusched.core.random.RandomState;
import org.gpusched.powerflow.model.Configuration;
import org.junit.jupiter.api.Test;

class PowerFlowPolicyTest {
    private static final double[] LIMITS = {100, 150, 200, 250};

    @Test
    void aWaitingJobWithLessRemainingEnergyGetsTheOnlyGpuFirst() {
        ClusterView one = new ClusterView(1, 1, LIMITS, 200);
        // same speed and power; job 2 has half the iterations left, so half the energy to add: it goes first
        JobView a = Models.job(1, 1000, Models.of(0.01, 0, 200), 1), b = Models.job(2, 500, Models.of(0.01, 0, 200), 1);
        Map<Long, Assignment> d = new PowerFlowPolicy(1.0).decide(one, List.of(a, b));
        assertEquals(0, d.get(1L).gpus());
        assertEquals(1, d.get(2L).gpus());
    }

    @Test
    void theSpareGpusGoToTheJobWithTheLargerMarginalReturn() {
        ClusterView c = new ClusterView(3, 4, LIMITS, 200);
        // both start on one GPU; doubling job 1 halves its step (no sync), job 2's sync eats most of the gain:
        // priority_G(1) = (0.64 - 0.32) / (E 2 GPUs - E 1 GPU = 0) -> free speed-up ranks first; job 2 gains less per
        // joule
        JobView perfect = Models.job(1, 1000, Models.of(0.01, 0, 200), 8);
        JobView syncBound = Models.job(2, 1000, Models.of(0.01, 0.3, 200), 8);
        Map<Long, Assignment> d = new PowerFlowPolicy(1.0).decide(c, List.of(perfect, syncBound));
        assertEquals(2, d.get(1L).gpus());
        assertEquals(1, d.get(2L).gpus());
    }

    @Test
    void jobsStartAtTheirMostEnergyEfficientLimitWhenTheBudgetIsTight() {
        ClusterView c = new ClusterView(1, 1, LIMITS, 200);
        JobView j = Models.job(1, 1000, Models.of(0.01, 0.05, 200), 1);
        // T x E = T^2 x P(f); T = 0.64/f + 0.05 (n = 1: no sync), P = 200 f: the minimum over the four limits
        double best = Double.MAX_VALUE, bestLimit = 0;
        for (double l : LIMITS) {
            double f = l / 250, t = 0.64 / f, cost = t * t * 200 * f;
            if (cost < best) {
                best = cost;
                bestLimit = l;
            }
        }
        Map<Long, Assignment> d = new PowerFlowPolicy(0.01).decide(c, List.of(j));
        assertEquals(1, d.get(1L).gpus(), "the only job runs even when the budget is below one GPU");
        assertEquals(bestLimit, d.get(1L).powerLimit());
        assertEquals(PowerFlowPolicy.mostEfficientLevel(c, j), indexOf(bestLimit));
    }

    @Test
    void withAGenerousBudgetEveryUsefulGpuIsUsedAtTheHighestLimit() {
        ClusterView c = new ClusterView(8, 8, LIMITS, 200);
        JobView j = Models.job(1, 1000, Models.of(0.01, 0, 200), 8);
        Map<Long, Assignment> d = new PowerFlowPolicy(1.5).decide(c, List.of(j));
        assertEquals(8, d.get(1L).gpus());
        assertEquals(250, d.get(1L).powerLimit());
    }

    @Test
    void predictedPowerNeverExceedsTheLimitAndWorkersArePowersOfTwo() {
        RandomState r = new RandomState(7);
        for (int trial = 0; trial < 300; trial++) {
            int gpus = 8 * (1 + r.nextInt(8));
            ClusterView c = new ClusterView(gpus, 8, LIMITS, 200);
            List<JobView> jobs = new ArrayList<>();
            int count = 1 + r.nextInt(40);
            for (int i = 0; i < count; i++)
                jobs.add(Models.job(
                        i,
                        100 + r.nextInt(100000),
                        Models.of(0.001 + 0.02 * r.nextDouble(), 0.2 * r.nextDouble(), 50 + 200 * r.nextDouble()),
                        1 << r.nextInt(7)));
            double eta = 0.05 + r.nextDouble();
            PowerFlowPolicy p = new PowerFlowPolicy(eta);
            Map<Long, Assignment> d = p.decide(c, jobs);
            double power = 0;
            int used = 0, running = 0;
            for (JobView j : jobs) {
                Assignment a = d.get(j.id());
                if (!a.running()) continue;
                running++;
                assertEquals(1, Integer.bitCount(a.gpus()), "power of two: " + a.gpus());
                assertTrue(a.gpus() <= j.maxGpus());
                used += a.gpus();
                power += j.model().power(Configuration.of(a.gpus(), 8, j.globalBatch(), a.powerLimit() / 250));
            }
            assertTrue(used <= gpus, "GPUs " + used + " of " + gpus);
            assertTrue(running >= 1, "something runs");
            if (running > 1)
                assertTrue(power <= p.powerLimitWatts(c) + 1e-6, "power " + power + " > limit " + p.powerLimitWatts(c));
        }
    }

    private static int indexOf(double limit) {
        for (int i = 0; i < LIMITS.length; i++) if (LIMITS[i] == limit) return i;
        return -1;
    }
}
