package org.gpusched.powerflow.sim;

import org.gpusched.core.random.RandomState;
import org.gpusched.powerflow.model.JobModel;
import org.gpusched.powerflow.model.ObservationLog;

/**
 * One job's simulated execution on the ground truth, as {@link ClusterRun} advances it: its request, how far it got,
 * the true energy it used, the configuration it runs at (the effective one: a profiling slice's limit while it
 * profiles), its telemetry and the model fitted on it. Plain mutable state, so that the streaming replay can keep it
 * in Flink state ({@link #state()} and {@link #JobRun(State)}) and both paths run the very same code.
 */
public final class JobRun {
    /** No completion due (the job does not run). */
    public static final long NEVER = Long.MAX_VALUE;

    /**
     * Everything a job run holds.
     *
     * @param id the id the policy sees (the trace's id in the simulator, the submission index in the replay)
     * @param noiseStream the stream of its telemetry noise, derived from the run's seed: the trace id in both paths
     * @param readyMillis when it may be scheduled (after PowerFlow's offline pre-run)
     * @param limit the limit its GPUs run at (0 while it waits)
     * @param sweepSlice the profiling slice it is in, -1 when it does not profile
     * @param sliceEndMillis when that slice ends
     * @param zeusLimit the limit Zeus chose for it, NaN before (Zeus runs only)
     * @param dueMillis when its work is done at its current configuration, {@link #NEVER} while it waits
     * @param fits the model fits so far
     * @param switchedMillis since when it runs (its last start or resume) or waits (its last suspension, or its ready
     *     time)
     * @param resumeEndMillis when its last resume's overhead ends (time-slicing: no progress before), 0 if never
     */
    public record State(
            long id,
            long noiseStream,
            double submit,
            String workload,
            double batch,
            int requestedGpus,
            double iterations,
            int maxGpus,
            long readyMillis,
            double done,
            double energyJoules,
            double attainedGpuSeconds,
            int gpus,
            double limit,
            int sweepSlice,
            long sliceEndMillis,
            double zeusLimit,
            long dueMillis,
            long noise,
            ObservationLog log,
            JobModel model,
            int fits,
            long switchedMillis,
            long resumeEndMillis) {}

    final long id, noiseStream;
    final double submit, batch, iterations;
    final String workload;
    final int requestedGpus, maxGpus;
    long readyMillis;
    double done, energy, attained;
    int gpus;
    double limit;
    int sweepSlice = -1;
    long sliceEndMillis;
    double zeusLimit = Double.NaN;
    long dueMillis = NEVER;
    final RandomState noise;
    final ObservationLog log;
    JobModel model;
    int fits;
    long switchedMillis, resumeEndMillis;

    /**
     * A job as submitted: {@code requestedGpus} as asked (capped at {@code maxGpus} for the non-elastic policies),
     * {@code maxGpus} the largest power-of-two worker count its batch allows on the cluster.
     */
    public JobRun(
            long id,
            long noiseStream,
            long seed,
            double submit,
            String workload,
            double batch,
            int requestedGpus,
            double iterations,
            int maxGpus) {
        this.id = id;
        this.noiseStream = noiseStream;
        this.submit = submit;
        this.workload = workload;
        this.batch = batch;
        this.requestedGpus = requestedGpus;
        this.iterations = iterations;
        this.maxGpus = maxGpus;
        this.noise = RandomState.derive(seed, noiseStream);
        this.log = new ObservationLog();
        this.readyMillis = millis(submit);
        this.switchedMillis = readyMillis;
    }

    public JobRun(State s) {
        this.id = s.id;
        this.noiseStream = s.noiseStream;
        this.submit = s.submit;
        this.workload = s.workload;
        this.batch = s.batch;
        this.requestedGpus = s.requestedGpus;
        this.iterations = s.iterations;
        this.maxGpus = s.maxGpus;
        this.readyMillis = s.readyMillis;
        this.done = s.done;
        this.energy = s.energyJoules;
        this.attained = s.attainedGpuSeconds;
        this.gpus = s.gpus;
        this.limit = s.limit;
        this.sweepSlice = s.sweepSlice;
        this.sliceEndMillis = s.sliceEndMillis;
        this.zeusLimit = s.zeusLimit;
        this.dueMillis = s.dueMillis;
        this.noise = new RandomState(s.noise);
        this.log = new ObservationLog(s.log.entries());
        this.model = s.model;
        this.fits = s.fits;
        this.switchedMillis = s.switchedMillis;
        this.resumeEndMillis = s.resumeEndMillis;
    }

    public State state() {
        return new State(
                id,
                noiseStream,
                submit,
                workload,
                batch,
                requestedGpus,
                iterations,
                maxGpus,
                readyMillis,
                done,
                energy,
                attained,
                gpus,
                limit,
                sweepSlice,
                sliceEndMillis,
                zeusLimit,
                dueMillis,
                noise.state(),
                new ObservationLog(log.entries()),
                model,
                fits,
                switchedMillis,
                resumeEndMillis);
    }

    /** The stream of a job's telemetry noise: its id when the id is a number, as trace ids are, else a hash of it. */
    public static long noiseStream(String jobId) {
        try {
            return Long.parseLong(jobId.trim());
        } catch (NumberFormatException notANumber) {
            return jobId.hashCode();
        }
    }

    /** Seconds to the millisecond grid both paths run on (a Flink timestamp): up, as the stream's parser rounds. */
    public static long millis(double seconds) {
        return (long) Math.ceil(seconds * 1000 - 1e-6);
    }

    public long id() {
        return id;
    }

    public String workload() {
        return workload;
    }

    public double batch() {
        return batch;
    }

    public double iterations() {
        return iterations;
    }

    public double done() {
        return done;
    }

    public double remaining() {
        return Math.max(0, iterations - done);
    }

    public double energyJoules() {
        return energy;
    }

    public double submit() {
        return submit;
    }

    public int gpus() {
        return gpus;
    }

    public double limit() {
        return limit;
    }

    public boolean running() {
        return gpus > 0;
    }

    public long readyMillis() {
        return readyMillis;
    }

    public JobModel model() {
        return model;
    }

    public ObservationLog log() {
        return log;
    }

    public int fits() {
        return fits;
    }

    /** Whether the job is in a profiling sweep. */
    public boolean sweeping() {
        return sweepSlice >= 0;
    }
}
