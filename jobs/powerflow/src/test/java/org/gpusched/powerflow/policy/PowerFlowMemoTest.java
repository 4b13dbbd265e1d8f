package org.gpusched.powerflow.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.gpusched.core.random.RandomState;
import org.gpusched.powerflow.model.JobModel;
import org.gpusched.powerflow.model.PerformanceModel;
import org.junit.jupiter.api.Test;

/**
 * The policy kept across decisions (model values remembered per job) decides exactly as a fresh policy that evaluates
 * every model value afresh, over sequences of decisions in which jobs arrive and leave, progress, are refitted (a new
 * model instance with other values), change batch, and the cluster's size changes.
 */
class PowerFlowMemoTest {
    private static final double[] LIMITS = {100, 150, 200, 250};

    @Test
    void rememberedModelValuesGiveTheSameDecisionsAsFreshEvaluation() {
        RandomState r = new RandomState(11);
        int decisions = 0;
        for (int trial = 0; trial < 40; trial++) {
            for (PowerFlowPolicy.Normalizer n : PowerFlowPolicy.Normalizer.values()) {
                PowerFlowPolicy.BudgetCheck check = PowerFlowPolicy.BudgetCheck.values()[trial % 2];
                double eta = 0.05 + r.nextDouble();
                PowerFlowPolicy kept = new PowerFlowPolicy(eta, n, check);
                List<JobView> jobs = new ArrayList<>();
                long nextId = 0;
                for (int i = 0; i < 1 + r.nextInt(60); i++) jobs.add(randomJob(r, nextId++));
                int gpus = 8 * (1 + r.nextInt(16));
                for (int step = 0; step < 25; step++) {
                    if (r.nextInt(10) == 0) gpus = 8 * (1 + r.nextInt(16));
                    ClusterView c = new ClusterView(gpus, 8, LIMITS.clone(), 200);
                    Map<Long, Assignment> fast = kept.decide(c, jobs);
                    Map<Long, Assignment> reference = new PowerFlowPolicy(eta, n, check, false).decide(c, jobs);
                    assertEquals(reference, fast, "trial " + trial + " step " + step + " " + n);
                    decisions++;
                    jobs = next(r, jobs, fast);
                    if (r.nextInt(3) == 0) jobs.add(randomJob(r, nextId++));
                }
            }
        }
        assertEquals(40 * 2 * 25, decisions);
    }

    private static List<JobView> next(RandomState r, List<JobView> jobs, Map<Long, Assignment> d) {
        List<JobView> out = new ArrayList<>();
        for (JobView j : jobs) {
            int event = r.nextInt(20);
            if (event == 0) continue; // completed
            JobModel m = j.model();
            double batch = j.globalBatch();
            if (event == 1) m = randomModel(r); // refitted: other values
            if (event == 2) m = copy((PerformanceModel) m); // refitted to the same values: a new instance
            if (event == 3) batch = batch * 2;
            out.add(new JobView(
                    j.id(),
                    j.submitTime(),
                    j.workload(),
                    batch,
                    j.requestedGpus(),
                    j.remainingIterations() * (0.5 + 0.5 * r.nextDouble()),
                    j.attainedGpuSeconds(),
                    j.maxGpus(),
                    m,
                    d.get(j.id())));
        }
        return out;
    }

    private static PerformanceModel copy(PerformanceModel m) {
        return new PerformanceModel(m.time(), m.energy());
    }

    private static PerformanceModel randomModel(RandomState r) {
        return Models.of(0.001 + 0.02 * r.nextDouble(), 0.2 * r.nextDouble(), 50 + 200 * r.nextDouble());
    }

    private static JobView randomJob(RandomState r, long id) {
        return new JobView(
                id, id, "w", 64, 1, 100 + r.nextInt(100000), 0, 1 << r.nextInt(7), randomModel(r), Assignment.WAITING);
    }
}
