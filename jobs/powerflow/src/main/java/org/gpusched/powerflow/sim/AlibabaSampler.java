package org.gpusched.powerflow.sim;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.gpusched.core.random.RandomState;
import org.gpusched.formats.AlibabaCsv;
import org.gpusched.powerflow.truth.GroundTruth;
import org.gpusched.powerflow.truth.PowerflowConfig;

/**
 * The PowerFlow workload, as the paper builds its 1901-job trace: a window of GPU jobs whose GPU counts and durations
 * come from the 2023 Alibaba trace (openb_pod_list_default.csv: whole-GPU pods, {@code num_gpu >= 1} and
 * {@code gpu_milli = 1000}, lifetime deletion - creation clipped to [60 s, window]), arrivals a Poisson process of
 * {@code jobs / window} over the window, each job a workload drawn uniformly from conf/powerflow.yaml and a global batch
 * drawn uniformly among that workload's measured batch sizes that leave at least the smallest measured local batch on
 * each requested GPU (the largest one, with fewer GPUs, when none does). Iterations = duration / the true step time at
 * the requested GPUs and the largest power limit: the job would take its trace duration alone at full clock.
 */
public final class AlibabaSampler {
    private record Pod(int gpus, double seconds) {}

    private static final List<String> COLUMNS = List.of("num_gpu", "gpu_milli", "creation_time", "deletion_time");

    private AlibabaSampler() {}

    public static List<TraceJob> sample(Path pods, int jobs, double windowSeconds, long seed, GroundTruth truth)
            throws IOException {
        if (jobs < 1) throw new IllegalArgumentException("jobs must be >= 1, got " + jobs);
        List<Pod> pool = read(pods, windowSeconds);
        RandomState r = RandomState.derive(seed, 0x50F);
        List<TraceJob> out = new ArrayList<>(jobs);
        double t = 0;
        for (int i = 0; i < jobs; i++) {
            t += -Math.log(1 - r.nextDouble()) * windowSeconds / jobs;
            Pod p = pool.get(r.nextInt(pool.size()));
            out.add(job(i + 1, t, p.gpus, p.seconds, r, truth));
        }
        return out;
    }

    /**
     * A job submitted at {@code submit} that asked for {@code gpus} GPUs and ran {@code seconds}: a workload drawn
     * uniformly, a global batch drawn among the workload's measured sizes that leave at least the smallest measured
     * local batch per GPU (the largest size, with fewer GPUs, when none does), and the iterations that take
     * {@code seconds} at the requested GPUs and the largest power limit.
     */
    static TraceJob job(long id, double submit, int gpus, double seconds, RandomState r, GroundTruth truth) {
        List<PowerflowConfig.Workload> workloads = truth.config().workloads();
        String w = workloads.get(r.nextInt(workloads.size())).name();
        double min = truth.minLocalBatch(w);
        List<Double> ok = new ArrayList<>();
        for (double b : truth.measuredBatches(w)) if (b / gpus >= min) ok.add(b);
        double batch;
        if (ok.isEmpty()) {
            double[] all = truth.measuredBatches(w);
            batch = all[all.length - 1];
            gpus = (int) Math.max(1, Math.floor(batch / min));
        } else {
            batch = ok.get(r.nextInt(ok.size()));
        }
        double step = truth.at(w, gpus, batch, truth.config().gpu().maxLimit()).stepTime();
        return new TraceJob(
                id, Math.round(submit * 1000) / 1000.0, w, batch, gpus, Math.max(1, Math.round(seconds / step)));
    }

    /** Whole-GPU pods of the list, read by the trace's one CSV reader: a bad row fails with its file, line and column. */
    private static List<Pod> read(Path pods, double window) {
        List<Pod> pool = new ArrayList<>();
        for (AlibabaCsv.Row row : AlibabaCsv.readAll(pods, COLUMNS)) {
            long gpus = row.integer("num_gpu");
            long milli = row.integer("gpu_milli");
            double life = row.integer("deletion_time") - row.integer("creation_time");
            if (gpus >= 1 && milli == 1000 && life > 0)
                pool.add(new Pod((int) gpus, Math.max(60, Math.min(window, life))));
        }
        if (pool.isEmpty()) throw new IllegalArgumentException(pods + ": no whole-GPU pod");
        return pool;
    }
}
