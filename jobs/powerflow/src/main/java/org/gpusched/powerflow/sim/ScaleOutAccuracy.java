package org.gpusched.powerflow.sim;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.gpusched.core.random.RandomState;
import org.gpusched.powerflow.model.Configuration;
import org.gpusched.powerflow.model.JobModel;
import org.gpusched.powerflow.model.ObservationLog;
import org.gpusched.powerflow.model.ScaleOutPrior;
import org.gpusched.powerflow.truth.GroundTruth;

/**
 * How well the fitted models predict scale-out, against the ground truth: for every workload and measured global batch
 * that allows two GPUs or more, a job is profiled as PowerFlow profiles it (the one-GPU pre-run at every limit, then a
 * sweep of every limit at each new GPU count, with the telemetry noise of conf/powerflow.yaml) and fitted with and
 * without the {@link ScaleOutPrior}; after each stage the step-time and energy MAPE at every power-of-two GPU count
 * from 2 to 16 (every limit) and the error of the predicted 1 -> 2 GPU speed-up (each job's mean over the limits;
 * the mean and the largest over the jobs) are measured.
 *
 * <p>Run: {@code java -cp jobs/cli/target/gpusched.jar org.gpusched.powerflow.sim.ScaleOutAccuracy [SEED]}.
 */
public final class ScaleOutAccuracy {
    /** Stages: what the job has been profiled at. */
    public static final List<String> STAGES = List.of("1-GPU profile", "+ sweep at 2", "+ sweep at 4");

    /** Mean absolute errors at one stage, over all jobs and limits. */
    public record Row(
            String stage,
            boolean prior,
            int jobs,
            double[] timeMape,
            double[] energyMape,
            double speedupError,
            double speedupErrorMax) {}

    static final int[] COUNTS = {1, 2, 4, 8, 16};

    private ScaleOutAccuracy() {}

    public static List<Row> measure(GroundTruth truth, long seed) {
        ModelFitting fitting = new ModelFitting(truth, 64, true);
        int k = truth.config().gpu().powerLimits().size();
        double[] limits = truth.config().gpu().powerLimits().stream()
                .mapToDouble(Double::doubleValue)
                .toArray();
        int gpn = truth.config().gpu().gpusPerNode();
        double noise = truth.config().telemetry().noise();
        // [prior][stage][count]: sums of |relative error|, and counts
        double[][][] tSum = new double[2][STAGES.size()][COUNTS.length],
                eSum = new double[2][STAGES.size()][COUNTS.length];
        int[][][] cnt = new int[2][STAGES.size()][COUNTS.length];
        double[][] sSum = new double[2][STAGES.size()], sMax = new double[2][STAGES.size()];
        int[][] sCnt = new int[2][STAGES.size()];
        int jobs = 0;
        RandomState r = new RandomState(seed);
        for (var w : truth.config().workloads())
            for (double batch : truth.measuredBatches(w.name())) {
                int cap = Simulation.maxGpus(truth, fitting.cluster(), w.name(), batch);
                if (cap < 2) continue;
                jobs++;
                JobRun job = new JobRun(jobs, jobs, seed, 0, w.name(), batch, 1, 1000, cap);
                ObservationLog log = new ObservationLog();
                JobModel[] model = new JobModel[2];
                for (int stage = 0; stage < STAGES.size(); stage++) {
                    int n = 1 << stage;
                    if (n > cap) break;
                    for (double l : limits) {
                        GroundTruth.Outcome o = truth.at(w.name(), n, batch, l);
                        log.add(
                                Configuration.of(n, gpn, batch, l / limits[k - 1]),
                                o.stepTime() * (1 + noise * ClusterRun.gaussian(r)),
                                o.energyPerIteration() * (1 + noise * ClusterRun.gaussian(r)));
                    }
                    for (int p = 0; p < 2; p++) {
                        model[p] = fitting.fit(job, log, model[p], p == 1);
                        for (int c = 0; c < COUNTS.length; c++) {
                            if (COUNTS[c] > cap) continue;
                            for (double l : limits) {
                                Configuration cfg = Configuration.of(COUNTS[c], gpn, batch, l / limits[k - 1]);
                                GroundTruth.Outcome o = truth.at(w.name(), COUNTS[c], batch, l);
                                tSum[p][stage][c] += Math.abs(model[p].stepTime(cfg) / o.stepTime() - 1);
                                eSum[p][stage][c] +=
                                        Math.abs(model[p].energyPerIteration(cfg) / o.energyPerIteration() - 1);
                                cnt[p][stage][c]++;
                            }
                        }
                        double err = 0;
                        for (double l : limits) {
                            double f = l / limits[k - 1];
                            double predicted = model[p].stepTime(Configuration.of(1, gpn, batch, f))
                                    / model[p].stepTime(Configuration.of(2, gpn, batch, f));
                            double actual = truth.at(w.name(), 1, batch, l).stepTime()
                                    / truth.at(w.name(), 2, batch, l).stepTime();
                            err += Math.abs(predicted / actual - 1) / k;
                        }
                        sSum[p][stage] += err;
                        sMax[p][stage] = Math.max(sMax[p][stage], err);
                        sCnt[p][stage]++;
                    }
                }
            }
        List<Row> rows = new ArrayList<>();
        for (int p = 0; p < 2; p++)
            for (int stage = 0; stage < STAGES.size(); stage++) {
                double[] t = new double[COUNTS.length], e = new double[COUNTS.length];
                for (int c = 0; c < COUNTS.length; c++) {
                    t[c] = cnt[p][stage][c] == 0 ? Double.NaN : tSum[p][stage][c] / cnt[p][stage][c];
                    e[c] = cnt[p][stage][c] == 0 ? Double.NaN : eSum[p][stage][c] / cnt[p][stage][c];
                }
                rows.add(new Row(
                        STAGES.get(stage),
                        p == 1,
                        sCnt[p][stage],
                        t,
                        e,
                        sSum[p][stage] / sCnt[p][stage],
                        sMax[p][stage]));
            }
        return rows;
    }

    public static String table(List<Row> rows) {
        StringBuilder s = new StringBuilder(String.format(
                Locale.ROOT,
                "%-14s %-6s %5s  %-39s  %-39s  %s%n",
                "profiled at",
                "prior",
                "jobs",
                "step-time MAPE n=1/2/4/8/16",
                "energy MAPE n=1/2/4/8/16",
                "1->2 speed-up error mean/worst job"));
        for (Row r : rows)
            s.append(String.format(
                    Locale.ROOT,
                    "%-14s %-6s %5d  %-39s  %-39s  %.3f / %.3f%n",
                    r.stage(),
                    r.prior() ? "yes" : "no",
                    r.jobs(),
                    four(r.timeMape()),
                    four(r.energyMape()),
                    r.speedupError(),
                    r.speedupErrorMax()));
        return s.toString();
    }

    private static String four(double[] v) {
        StringBuilder s = new StringBuilder();
        for (double x : v) s.append(s.isEmpty() ? "" : " / ").append(String.format(Locale.ROOT, "%.3f", x));
        return s.toString();
    }

    public static void main(String[] args) {
        long seed = args.length > 0 ? Long.parseLong(args[0]) : 1;
        System.out.print(table(measure(GroundTruth.defaults(), seed)));
    }
}
