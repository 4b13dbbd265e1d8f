package org.gpusched.workloads;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import org.gpusched.core.model.Job;
import org.gpusched.core.random.RandomState;
import org.gpusched.formats.TraceJob;
import org.gpusched.workloads.ApplicationCatalog.Application;

/**
 * The job stream shared by the randomized protocols (hierarchical paper, ANDREAS simulations): each job draws an
 * application uniformly from the scenario's pool, epochs uniformly in the application's range and a batch size
 * uniformly from its list, as the papers' generators pick "DL jobs with different batch sizes and epochs"; its
 * times come from the application model; its due date is submission + U[min t, F max t] over all its
 * configurations (F = 2: the hierarchical paper, section V; a smaller F tightens the due dates, and the upper bound
 * never falls below min t, so every job can still meet its due date on its fastest configuration) and its weight
 * U[weightMin, weightMax] per hour. Arrivals come
 * from an {@link Arrivals} process. All draws come from one {@link RandomState} in a fixed order, so a seed fixes
 * the whole stream and job k is the same whatever the total count.
 */
final class SampledJobs implements Iterator<TraceJob> {
    /** The hierarchical paper's due-date rule: U[min t, 2 max t] after submission. */
    static final double PAPER_DUE_FACTOR = 2;

    /** Inter-arrival times of a scenario; stateful, drawing from the stream's generator. */
    interface Arrivals {
        double nextGap(RandomState rng);
    }

    private final ApplicationCatalog catalog;
    private final List<JobTimes.TypeShape> shapes;
    private final List<Application> pool;
    private final Arrivals arrivals;
    private final double dueFactor;
    private final double weightMin;
    private final double weightMax;
    private final long count;
    private final RandomState rng;
    private long produced;
    private double clock;

    SampledJobs(
            ApplicationCatalog catalog,
            List<JobTimes.TypeShape> shapes,
            List<Application> pool,
            Arrivals arrivals,
            double weightMin,
            double weightMax,
            long count,
            long seed) {
        this(catalog, shapes, pool, arrivals, PAPER_DUE_FACTOR, weightMin, weightMax, count, seed);
    }

    SampledJobs(
            ApplicationCatalog catalog,
            List<JobTimes.TypeShape> shapes,
            List<Application> pool,
            Arrivals arrivals,
            double dueFactor,
            double weightMin,
            double weightMax,
            long count,
            long seed) {
        if (!(dueFactor > 0)) throw new IllegalArgumentException("due factor must be > 0, got " + dueFactor);
        this.catalog = catalog;
        this.shapes = shapes;
        this.pool = pool;
        this.arrivals = arrivals;
        this.dueFactor = dueFactor;
        this.weightMin = weightMin;
        this.weightMax = weightMax;
        this.count = count;
        this.rng = RandomState.derive(seed, 0x6A0B5L);
    }

    @Override
    public boolean hasNext() {
        return produced < count;
    }

    @Override
    public TraceJob next() {
        if (!hasNext()) throw new NoSuchElementException();
        // The first job arrives at t = 0; the following ones after each drawn gap.
        if (produced > 0) clock += arrivals.nextGap(rng);
        produced++;
        Application app = pool.get(rng.nextInt(pool.size()));
        int epochs = app.minEpochs() + rng.nextInt(app.maxEpochs() - app.minEpochs() + 1);
        int batch = app.batchSizes().get(rng.nextInt(app.batchSizes().size()));
        JobTimes t = JobTimes.of(catalog, shapes, app, epochs, batch);
        double submit = JobTimes.round3(clock);
        double due =
                JobTimes.round3(submit + t.min + rng.nextDouble() * (dueUpperBound(t.min, t.max, dueFactor) - t.min));
        double weight = Math.round((weightMin + rng.nextDouble() * (weightMax - weightMin)) * 1e6) / 1e6;
        Map<String, Object> extras = new LinkedHashMap<>();
        extras.put("application", app.name());
        extras.put("epochs", epochs);
        extras.put("batchSize", batch);
        return new TraceJob(new Job("j" + produced, submit, due, weight, t.times), extras);
    }

    /** The due-date window's upper bound (relative to submission): F x max t, but never below min t. */
    static double dueUpperBound(double minTime, double maxTime, double dueFactor) {
        return Math.max(minTime, dueFactor * maxTime);
    }

    /** Poisson arrivals: exponential gaps with the given mean. */
    static Arrivals poisson(double meanSeconds) {
        return rng -> exponential(rng, meanSeconds);
    }

    /**
     * A "mixed" rate (ANDREAS cites [15] without numbers; this is our reading): a Poisson process whose rate switches
     * between a burst phase (mean gap {@code mean / 2}) and a calm phase (mean gap {@code 1.5 mean}); each phase
     * lasts a geometric number of arrivals with mean {@code phaseJobs}. Both phases are equally likely in the long
     * run, so the overall mean gap is {@code mean}.
     */
    static Arrivals mixed(double meanSeconds, double phaseJobs) {
        return new Arrivals() {
            boolean burst = true;

            @Override
            public double nextGap(RandomState rng) {
                if (rng.nextDouble() < 1.0 / phaseJobs) burst = !burst;
                return exponential(rng, burst ? meanSeconds / 2 : meanSeconds * 1.5);
            }
        };
    }

    static double exponential(RandomState rng, double mean) {
        return -mean * Math.log(1.0 - rng.nextDouble());
    }
}
