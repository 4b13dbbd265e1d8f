package org.gpusched.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.gpusched.powerflow.sim.AlibabaSampler;
import org.gpusched.powerflow.sim.RandomTraceSampler;
import org.gpusched.powerflow.sim.TraceFiles;
import org.gpusched.powerflow.sim.TraceJob;
import org.gpusched.powerflow.truth.GroundTruth;

/** {@code generate --scenario powerflow|powerflow-random}: a PowerFlow trace (docs/powerflow.md, "The workload"). */
final class PowerflowScenarios {
    static final int PAPER_JOBS = 1901, RANDOM_JOBS = 100;
    static final double WINDOW_SECONDS = 86400, RANDOM_MEAN_GAP = 600;

    private PowerflowScenarios() {}

    static int generate(GenerateCommand c, PrintWriter out, PrintWriter err) {
        try {
            GroundTruth truth = GroundTruth.defaults();
            List<TraceJob> jobs;
            switch (c.scenario) {
                case "powerflow" -> {
                    if (c.pods == null)
                        throw new IllegalArgumentException(
                                "--scenario powerflow needs --pods (the Alibaba 2023 openb_pod_list_default.csv)");
                    if (c.meanGap != null)
                        throw new IllegalArgumentException(
                                "--mean-gap is for powerflow-random; powerflow spreads" + " --jobs over 24 h");
                    jobs = AlibabaSampler.sample(
                            c.pods, Math.toIntExact(count(c, PAPER_JOBS)), WINDOW_SECONDS, c.seed, truth);
                }
                case "powerflow-random" -> {
                    if (c.pods != null) throw new IllegalArgumentException("--pods is for --scenario powerflow");
                    jobs = RandomTraceSampler.sample(
                            Math.toIntExact(count(c, RANDOM_JOBS)),
                            c.meanGap == null ? RANDOM_MEAN_GAP : c.meanGap,
                            RandomTraceSampler.JobSize.parse(c.jobSize),
                            c.seed,
                            truth);
                }
                default ->
                    throw new IllegalArgumentException(
                            "unknown scenario '" + c.scenario + "' (powerflow or powerflow-random)");
            }
            TraceFiles.write(c.outDir.resolve("trace.jsonl"), jobs);
            Map<String, Integer> perWorkload = new TreeMap<>();
            double gpuHours = 0;
            for (TraceJob j : jobs) {
                perWorkload.merge(j.workload(), 1, Integer::sum);
                gpuHours += j.gpus()
                        * j.iterations()
                        * truth.at(
                                        j.workload(),
                                        j.gpus(),
                                        j.batch(),
                                        truth.config().gpu().maxLimit())
                                .stepTime()
                        / 3600;
            }
            out.printf(Locale.ROOT, "%-26s %s%n", "scenario", c.scenario);
            out.printf(Locale.ROOT, "%-26s %d%n", "seed", c.seed);
            out.printf(Locale.ROOT, "%-26s %,d%n", "jobs", jobs.size());
            out.printf(
                    Locale.ROOT,
                    "%-26s %,.0f s (%.1f h)%n",
                    "last submission",
                    jobs.get(jobs.size() - 1).submit(),
                    jobs.get(jobs.size() - 1).submit() / 3600);
            out.printf(Locale.ROOT, "%-26s %,.0f%n", "GPU-hours at full clock", gpuHours);
            double[] demand = demand(jobs, truth);
            out.printf(
                    Locale.ROOT,
                    "%-26s %.0f GPUs on average over the first 24 h, %.0f at the peak%n",
                    "demand with no queue",
                    demand[0],
                    demand[1]);
            out.printf(
                    Locale.ROOT,
                    "%-26s with --gpus below %.0f jobs queue (they ask for more on average), as the paper's"
                            + " comparison needs; from %.0f (the peak) on they hardly wait%n",
                    "a loaded cluster",
                    demand[0],
                    demand[1]);
            perWorkload.forEach((w, n) -> out.printf(Locale.ROOT, "  %-24s %,d%n", w, n));
            out.println("wrote " + c.outDir.resolve("trace.jsonl") + " (PowerFlow trace: gpusched powerflow --trace)");
            return ExitCode.OK;
        } catch (IllegalArgumentException | IOException | ArithmeticException e) {
            err.println("gpusched generate: " + e.getMessage());
            return ExitCode.BAD_INPUT;
        }
    }

    /**
     * The GPUs the jobs hold if each starts at its submission on the GPUs it asked for at full clock: the mean over the
     * first 24 hours and the peak.
     */
    static double[] demand(List<TraceJob> jobs, GroundTruth truth) {
        TreeMap<Double, Integer> change = new TreeMap<>();
        for (TraceJob j : jobs) {
            double end = j.submit()
                    + j.iterations()
                            * truth.at(
                                            j.workload(),
                                            j.gpus(),
                                            j.batch(),
                                            truth.config().gpu().maxLimit())
                                    .stepTime();
            change.merge(j.submit(), j.gpus(), Integer::sum);
            change.merge(end, -j.gpus(), Integer::sum);
        }
        double gpuSeconds = 0, last = 0, peak = 0;
        int held = 0;
        for (var e : change.entrySet()) {
            double t = Math.min(e.getKey(), WINDOW_SECONDS);
            gpuSeconds += held * Math.max(0, t - last);
            last = Math.max(last, t);
            held += e.getValue();
            peak = Math.max(peak, held);
        }
        return new double[] {gpuSeconds / WINDOW_SECONDS, peak};
    }

    private static long count(GenerateCommand c, long fallback) {
        long n = c.jobs == null ? fallback : c.jobs;
        if (n < 1) throw new IllegalArgumentException("--jobs must be >= 1, got " + n);
        return n;
    }
}
