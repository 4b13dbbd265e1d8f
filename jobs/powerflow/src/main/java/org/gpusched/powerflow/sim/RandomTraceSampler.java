package org.gpusched.powerflow.sim;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.gpusched.core.random.RandomState;
import org.gpusched.powerflow.truth.GroundTruth;

/**
 * The random traces of the paper's sensitivity runs (section 6.4: "100-job traces generated randomly"): arrivals a
 * Poisson process with mean gap {@code meanGapSeconds} (the load knob), the requested GPU count uniform over the
 * {@link JobSize}'s counts (the job-size knob), the duration log-uniform between 30 minutes and 8 hours at the
 * requested GPUs and the largest limit, and workload, batch and iterations as {@link AlibabaSampler} derives them.
 */
public final class RandomTraceSampler {
    static final double MIN_SECONDS = 1800, MAX_SECONDS = 8 * 3600;

    /** GPU counts a job asks for. */
    public enum JobSize {
        SMALL(1, 2),
        MEDIUM(1, 2, 4, 8),
        LARGE(4, 8, 16);

        private final int[] gpus;

        JobSize(int... gpus) {
            this.gpus = gpus;
        }

        public static JobSize parse(String s) {
            try {
                return valueOf(s.toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("job size '" + s + "' is not small, medium or large");
            }
        }
    }

    private RandomTraceSampler() {}

    public static List<TraceJob> sample(int jobs, double meanGapSeconds, JobSize size, long seed, GroundTruth truth) {
        if (jobs < 1) throw new IllegalArgumentException("jobs must be >= 1, got " + jobs);
        if (!(meanGapSeconds > 0)) throw new IllegalArgumentException("mean gap must be > 0 s, got " + meanGapSeconds);
        RandomState r = RandomState.derive(seed, 0x7A3D);
        List<TraceJob> out = new ArrayList<>(jobs);
        double t = 0;
        for (int i = 0; i < jobs; i++) {
            t += -Math.log(1 - r.nextDouble()) * meanGapSeconds;
            int gpus = size.gpus[r.nextInt(size.gpus.length)];
            double seconds = MIN_SECONDS * Math.pow(MAX_SECONDS / MIN_SECONDS, r.nextDouble());
            out.add(AlibabaSampler.job(i + 1, t, gpus, seconds, r, truth));
        }
        return out;
    }
}
