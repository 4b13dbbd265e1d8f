package org.gpusched.powerflow.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.gpusched.core.random.RandomState;
import org.gpusched.powerflow.model.Configuration;
import org.gpusched.powerflow.model.PerformanceModel;
import org.junit.jupiter.api.Test;

class PowerFlowPolicyTest {
    private static final double[] LIMITS = {100, 150, 200, 250};
    private static final PowerFlowPolicy.BudgetCheck NODE = PowerFlowPolicy.BudgetCheck.NODE_BOUNDARY,
            STRICT = PowerFlowPolicy.BudgetCheck.STRICT;

    private static PowerFlowPolicy policy(double eta, PowerFlowPolicy.BudgetCheck check) {
        return new PowerFlowPolicy(eta, PowerFlowPolicy.Normalizer.CLUSTER, check);
    }

    private static int running(Map<Long, Assignment> d) {
        int n = 0;
        for (Assignment a : d.values()) if (a.running()) n++;
        return n;
    }

    /*
     * Hand-worked budget cases. Six one-GPU jobs of 100 W each at 250 W (Models.of: power per GPU = 100 x f, and f = 1
     * is their most efficient limit), nodes of 2 GPUs, G = 6, P_max = 100 W: the budget is eta x 600 W.
     */
    private static List<JobView> sixHundredWattJobs() {
        List<JobView> jobs = new ArrayList<>();
        for (long i = 1; i <= 6; i++) jobs.add(Models.job(i, 1000 * i, Models.of(0.01, 0, 100), 1));
        return jobs;
    }

    @Test
    void algorithm1StopsAtTheFirstNodeBoundaryWhereThePowerHasReachedTheBudget() {
        ClusterView c = new ClusterView(6, 2, LIMITS, 100);
        // eta 0.2: budget 120 W. GPU 1: 100 W (no boundary); GPU 2: 200 W, a node is full and 200 >= 120: stop.
        Map<Long, Assignment> d = policy(0.2, NODE).decide(c, sixHundredWattJobs());
        assertEquals(2, running(d));
        assertEquals(d, new PowerFlowPolicy(0.2).decide(c, sixHundredWattJobs()), "Algorithm 1's check is the default");
        // eta 0.42: budget 252 W. 200 W at the first boundary (< 252: go on), 400 W at the second: stop with 4.
        assertEquals(4, running(policy(0.42, NODE).decide(c, sixHundredWattJobs())));
        // eta 0.7: budget 420 W: 400 W at the second boundary is within it, the third node fills the cluster.
        assertEquals(6, running(policy(0.7, NODE).decide(c, sixHundredWattJobs())));
        // waiting jobs rank by the energy they add, least first: jobs 1 and 2 (the shortest) run at eta 0.2
        assertEquals(1, d.get(1L).gpus());
        assertEquals(1, d.get(2L).gpus());
    }

    @Test
    void theStrictCheckRefusesEveryStepThatWouldExceedTheBudget() {
        ClusterView c = new ClusterView(6, 2, LIMITS, 100);
        // 120 W: only one 100-W job; 252 W: two; 420 W: four
        assertEquals(1, running(policy(0.2, STRICT).decide(c, sixHundredWattJobs())));
        assertEquals(2, running(policy(0.42, STRICT).decide(c, sixHundredWattJobs())));
        assertEquals(4, running(policy(0.7, STRICT).decide(c, sixHundredWattJobs())));
    }

    @Test
    void algorithm1RaisesClocksWhileThePowerIsWithinTheBudgetAndTheStrictCheckStopsBelowIt() {
        // one job on one GPU (max 1), power 100 x f^3: 6.4 / 21.6 / 51.2 / 100 W at 100 / 150 / 200 / 250 W limits;
        // it starts at 100 W (most efficient). G = 2, P_max = 100: eta 0.1 is a 20 W budget.
        ClusterView c = new ClusterView(2, 2, LIMITS, 100);
        List<JobView> one = List.of(Models.job(1, 1000, Models.cubic(0.01, 100), 1));
        assertEquals(0, PowerFlowPolicy.mostEfficientLevel(c, one.get(0)));
        // line 25: 6.4 W <= 20 W, raise to 150 W (21.6 W); 21.6 > 20, stop: one step over the budget
        assertEquals(150, policy(0.1, NODE).decide(c, one).get(1L).powerLimit());
        // strict: the raise to 21.6 W would exceed 20 W, so the job stays at 100 W
        assertEquals(100, policy(0.1, STRICT).decide(c, one).get(1L).powerLimit());
        // a 60 W budget (eta 0.3): node-boundary raises 6.4 -> 21.6 -> 51.2 -> 100 W (51.2 <= 60, so one more step),
        // strict stops at 200 W (51.2 W)
        assertEquals(250, policy(0.3, NODE).decide(c, one).get(1L).powerLimit());
        assertEquals(200, policy(0.3, STRICT).decide(c, one).get(1L).powerLimit());
    }

    @Test
    void algorithm1NeverLeavesTheClusterIdleEvenBelowOneGpusPower() {
        // budget 6 W, each job 100 W: the first node's GPUs are handed out before the first check
        ClusterView c = new ClusterView(6, 2, LIMITS, 100);
        assertEquals(2, running(policy(0.01, NODE).decide(c, sixHundredWattJobs())));
        assertEquals(1, running(policy(0.01, STRICT).decide(c, sixHundredWattJobs())));
    }

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

    /**
     * Step time 1 / (n f) and power per GPU 10 + 100 f^3 W: on one GPU the energy per iteration, 10 / f + 100 f^2, is
     * 41 / 52.7 / 76.5 / 110 J at f = 0.4 / 0.6 / 0.8 / 1 (least at 100 W), and step time x energy, 10 / f^2 + 100 f,
     * is 102.5 / 87.8 / 95.6 / 110 (least at 150 W): the two start limits differ.
     */
    private static final org.gpusched.powerflow.model.JobModel STATIC_PLUS_CUBIC =
            new org.gpusched.powerflow.model.JobModel() {
                @Override
                public double stepTime(Configuration c) {
                    return 1 / (c.gpus() * c.freq());
                }

                @Override
                public double energyPerIteration(Configuration c) {
                    return c.gpus() * stepTime(c) * (10 + 100 * Math.pow(c.freq(), 3));
                }
            };

    private static List<JobView> fourStaticPlusCubicJobs() {
        List<JobView> jobs = new ArrayList<>();
        for (long i = 1; i <= 4; i++)
            jobs.add(new JobView(i, i, "w", 64, 1, 1000 * i, 0, 1, STATIC_PLUS_CUBIC, Assignment.WAITING));
        return jobs;
    }

    @Test
    void underABindingBudgetJobsStartingAtTheirLeastEnergyLimitRunMoreOfThem() {
        // G = 4 one-GPU nodes (a boundary at every GPU), P_max = 110 W
        ClusterView c = new ClusterView(4, 1, LIMITS, 110);
        JobView j = fourStaticPlusCubicJobs().get(0);
        assertEquals(1, PowerFlowPolicy.mostEfficientLevel(c, j));
        assertEquals(0, PowerFlowPolicy.leastEnergyLevel(c, j));
        PowerFlowPolicy efficient = new PowerFlowPolicy(
                0.1, PowerFlowPolicy.Normalizer.CLUSTER, NODE, PowerFlowPolicy.StartLimit.EFFICIENT);
        PowerFlowPolicy leastEnergy = new PowerFlowPolicy(
                0.1, PowerFlowPolicy.Normalizer.CLUSTER, NODE, PowerFlowPolicy.StartLimit.LEAST_ENERGY);
        assertEquals(
                new PowerFlowPolicy(0.1).decide(c, fourStaticPlusCubicJobs()),
                efficient.decide(c, fourStaticPlusCubicJobs()),
                "the paper's start limit is the default");
        // budget 0.1 x 4 x 110 = 44 W. At 150 W (31.6 W a job): 31.6 < 44, go on; 63.2 >= 44, stop with two; no raise.
        Map<Long, Assignment> d = efficient.decide(c, fourStaticPlusCubicJobs());
        assertEquals(2, running(d));
        assertEquals(150, d.get(1L).powerLimit());
        assertEquals(150, d.get(2L).powerLimit());
        // at 100 W (16.4 W a job): 16.4, 32.8 < 44, 49.2 >= 44: three run, the three shortest; no raise
        d = leastEnergy.decide(c, fourStaticPlusCubicJobs());
        assertEquals(3, running(d));
        for (long id = 1; id <= 3; id++) assertEquals(100, d.get(id).powerLimit());
        assertEquals(0, d.get(4L).gpus());
    }

    @Test
    void underAGenerousBudgetBothStartLimitsAreRaisedToTheSameClocks() {
        ClusterView c = new ClusterView(4, 1, LIMITS, 110);
        // budget 1.5 x 440 W: all four run and every clock is raised to 250 W (4 x 110 W = 440 W) from either start
        for (PowerFlowPolicy.StartLimit start : PowerFlowPolicy.StartLimit.values()) {
            Map<Long, Assignment> d = new PowerFlowPolicy(1.5, PowerFlowPolicy.Normalizer.CLUSTER, NODE, start)
                    .decide(c, fourStaticPlusCubicJobs());
            assertEquals(4, running(d), start.label());
            for (Assignment a : d.values()) assertEquals(250, a.powerLimit(), start.label());
        }
        assertEquals(PowerFlowPolicy.StartLimit.LEAST_ENERGY, PowerFlowPolicy.StartLimit.parse(" Least-Energy"));
        assertEquals("least-energy", PowerFlowPolicy.StartLimit.LEAST_ENERGY.label());
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
    void underTheStrictCheckPredictedPowerNeverExceedsTheLimitAndWorkersArePowersOfTwo() {
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
            PowerFlowPolicy p = new PowerFlowPolicy(eta, PowerFlowPolicy.Normalizer.CLUSTER, STRICT);
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

    /*
     * Two jobs, both on one GPU at 250 W (f = 1), 64 samples a step; Models: step = k x 64 / n (+ sync when n >= 2),
     * energy = n x watts x f x step.
     *   A: k x 64 = 1.0 s, sync 0.1 s, 200 W: T1 = 1.0, T2 = 0.6;  E1 = 200 J,  E2 = 2 x 200 x 0.6 = 240 J
     *   B: k x 64 = 0.1 s, sync 0.02 s, 20 W: T1 = 0.1, T2 = 0.07; E1 = 2 J,    E2 = 2 x 20 x 0.07 = 2.8 J
     */
    private static final PerformanceModel A = Models.of(1.0 / 64, 0.1, 200), B = Models.of(0.1 / 64, 0.02, 20);

    private static JobView running(long id, double remaining, PerformanceModel m) {
        return new JobView(id, id, "w", 64, 1, remaining, 0, 8, m, new Assignment(1, 250));
    }

    @Test
    void priorityGIsEq20RelativeToTheClustersTotalJctAndEnergy() {
        ClusterView c = new ClusterView(3, 4, LIMITS, 200);
        List<JobView> jobs = List.of(running(1, 1000, A), running(2, 500, B));
        // cluster totals at the current assignments: JCT = 1000 x 1.0 + 500 x 0.1 = 1050 s,
        // E = 1000 x 200 + 500 x 2 = 201,000 J. A doubling: dJCT = 1000 x 0.4 = 400 s, dE = 1000 x 40 = 40,000 J
        double expected = (400.0 / 1050) / (40_000.0 / 201_000); // 1.9143; the absolute 400 / 40,000 is 0.01
        assertEquals(expected, new PowerFlowPolicy(1.0).priorityG(c, jobs, 1, 1), 1e-9);
        // B: dJCT = 500 x 0.03 = 15 s, dE = 500 x 0.8 = 400 J
        assertEquals((15.0 / 1050) / (400.0 / 201_000), new PowerFlowPolicy(1.0).priorityG(c, jobs, 2, 1), 1e-9);
        // the job's own totals: A (0.4 / 1.0) / (40 / 200) = 2.0, B (0.03 / 0.1) / (0.8 / 2) = 0.75
        PowerFlowPolicy perJob = new PowerFlowPolicy(1.0, PowerFlowPolicy.Normalizer.JOB);
        assertEquals(2.0, perJob.priorityG(c, jobs, 1, 1), 1e-9);
        assertEquals(0.75, perJob.priorityG(c, jobs, 2, 1), 1e-9);
    }

    @Test
    void theThirdGpuGoesByTheClusterReadingToBAndByTheJobReadingToA() {
        ClusterView c = new ClusterView(3, 4, LIMITS, 200);
        List<JobView> jobs = List.of(running(1, 1000, A), running(2, 500, B));
        // cluster: B 0.0357 x scale > A 0.01 x scale; job: A 2.0 > B 0.75. Both first get one GPU (waiting first).
        Map<Long, Assignment> cluster = new PowerFlowPolicy(1.5).decide(c, jobs);
        assertEquals(1, cluster.get(1L).gpus());
        assertEquals(2, cluster.get(2L).gpus());
        Map<Long, Assignment> job = new PowerFlowPolicy(1.5, PowerFlowPolicy.Normalizer.JOB).decide(c, jobs);
        assertEquals(2, job.get(1L).gpus());
        assertEquals(1, job.get(2L).gpus());
    }

    private static int indexOf(double limit) {
        for (int i = 0; i < LIMITS.length; i++) if (LIMITS[i] == limit) return i;
        return -1;
    }
}
