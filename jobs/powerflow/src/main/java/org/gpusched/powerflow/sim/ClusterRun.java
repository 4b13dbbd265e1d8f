package org.gpusched.powerflow.sim;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import org.gpusched.core.random.RandomState;
import org.gpusched.powerflow.model.Configuration;
import org.gpusched.powerflow.model.JobModel;
import org.gpusched.powerflow.model.Observation;
import org.gpusched.powerflow.policy.Assignment;
import org.gpusched.powerflow.policy.ClusterView;
import org.gpusched.powerflow.policy.EnergyPolicy;
import org.gpusched.powerflow.policy.JobView;
import org.gpusched.powerflow.policy.LimitChoice;
import org.gpusched.powerflow.policy.Profiling;
import org.gpusched.powerflow.truth.GroundTruth;

/**
 * The simulated cluster of one policy over one trace, event by event on a millisecond grid: the one implementation
 * behind {@code gpusched powerflow} ({@link Simulation}) and the streaming replay ({@code replay --policy powerflow},
 * which keeps the jobs' {@link JobRun.State} in Flink state).
 *
 * <p>An event is a job becoming ready, a job's work ending, or a profiling slice ending. At an event every running job
 * advances at its true speed, its GPUs' true energy is charged and the idle GPUs of powered nodes are charged, and each
 * job that ran and is profiled reports one telemetry sample of what it ran (true step time and energy per iteration,
 * times {@code 1 + noise x N(0,1)} from its own seeded generator). The policy decides when a job becomes ready, when
 * one completes and when a PowerFlow profiling sweep ends (the paper's "job scaling event"); a slice ending only moves
 * the job to the next limit.
 *
 * <p>Profiling ({@link EnergyPolicy#profiling()}): under {@link Profiling#POWERFLOW} a job is pre-run at submission
 * on one GPU outside the cluster, {@code profileSecondsPerLimit} at each limit: the pre-run's energy is the job's and
 * its time is in the job's JCT, and it makes no progress; the job is fitted on those samples and ready when the
 * pre-run ends. When the policy first gives it a GPU count it has no sample at, it sweeps every limit on those GPUs, a
 * slice of {@code profileSecondsPerLimit} each, lowest first (progress and energy at the slice's speed), holding its
 * GPUs; at the sweep's end its model is refitted on all its samples and the policy decides again. Under
 * {@link Profiling#ZEUS} a job runs Zeus' JIT profiling when it first runs: a window of {@value #ZEUS_WINDOW}
 * iterations (Zeus' 10 warm-up and 40 profiled steps) at every limit from the largest down, then the limit of least
 * Zeus cost ({@link LimitChoice#zeusOptimum}); a preemption restarts the current window, as Zeus restarts an
 * interrupted one. Policies that read models without profiling (AFS; PowerFlow with {@link ModelSource#TRUTH}) are
 * handed the ground truth; under {@link ModelSource#TRUTH_PROFILED} PowerFlow's jobs are profiled as above but each fit
 * hands the policy the ground truth.
 *
 * <p>Time-slicing ({@link EnergyPolicy#timeSlicing()}, Gandiva): while an active job waits for GPUs, every multiple of
 * the quantum from the run's start is an event, where the policy decides with {@link EnergyPolicy#decideAtQuantum}
 * and may suspend running jobs for waiting ones. A job resumed after a suspension holds its GPUs for the resume
 * overhead first, drawing its configuration's power without progress (its completion and its Zeus window are pushed
 * back by it); a job's first start costs nothing.
 */
public final class ClusterRun {
    /** Zeus' JIT window per limit: 10 warm-up and 40 profiled iterations (GlobalPowerLimitOptimizer's defaults). */
    public static final int ZEUS_WINDOW = 50;

    /** Fits a job's model on its telemetry ({@link JobRun#log()}): afresh when {@code previous} is null, else warm-started. */
    public interface Fitter {
        JobModel fit(JobRun job, JobModel previous);
    }

    /** What the run reports as it goes; every method has a no-op default. */
    public interface Listener {
        /**
         * The job's GPUs or limit changed at {@code millis} from {@code fromGpus} at {@code fromLimit} to what the job
         * now holds (zero GPUs: it waits); {@code byPolicy} false when a profiling slice or Zeus moved the limit.
         */
        default void change(long millis, JobRun job, int fromGpus, double fromLimit, boolean byPolicy) {}

        default void telemetry(long millis, JobRun job, Configuration c, double stepSeconds, double energyJoules) {}

        /** The job's model was (re)fitted. */
        default void fitted(long millis, JobRun job, boolean newGpuCount) {}

        /** The job's work is done; it has left the run. */
        default void finished(long millis, JobRun job) {}

        /** The cluster after an event: GPU power (idle GPUs of powered nodes included), GPUs allocated, nodes on. */
        default void power(long millis, double watts, int allocated, int nodesOn, double idleJoules) {}
    }

    private final GroundTruth truth;
    private final ClusterView cluster;
    private final EnergyPolicy policy;
    private final Profiling profiling;
    private final ModelSource models;
    private final Fitter fitter;
    private final Listener listener;
    private final NodePlacement placement;
    private final double[] limits;
    private final long sliceMillis;
    private final long quantumMillis, resumeMillis;
    private final PriorityQueue<JobRun> waiting = new PriorityQueue<>(
            Comparator.comparingLong((JobRun j) -> j.readyMillis).thenComparingLong(j -> j.id));
    private final List<JobRun> active = new ArrayList<>();
    private long now;
    private double idleJoules;
    private int allocated, nodesOn;

    /** {@code models}: what the policies that read models see, and whether PowerFlow's jobs are profiled. */
    public ClusterRun(
            GroundTruth truth,
            ClusterView cluster,
            EnergyPolicy policy,
            ModelSource models,
            Fitter fitter,
            Listener listener) {
        this.truth = truth;
        this.cluster = cluster;
        this.policy = policy;
        this.profiling =
                !models.profiles() && policy.profiling() == Profiling.POWERFLOW ? Profiling.NONE : policy.profiling();
        this.models = models;
        this.fitter = fitter;
        this.listener = listener;
        this.placement = new NodePlacement(
                cluster.totalGpus() / cluster.gpusPerNode(), cluster.gpusPerNode(), policy.migrates());
        this.limits = cluster.powerLimits();
        this.sliceMillis = JobRun.millis(truth.config().telemetry().profileSecondsPerLimit());
        this.quantumMillis = JobRun.millis(policy.timeSlicing().quantumSeconds());
        this.resumeMillis = JobRun.millis(policy.timeSlicing().resumeSeconds());
    }

    /** Whether the jobs are pre-run and profiled as PowerFlow's (their runs' {@code profiled} flag). */
    public boolean powerflowProfiling() {
        return profiling == Profiling.POWERFLOW;
    }

    /** The run's clock: the time of the last event (ms). */
    public long now() {
        return now;
    }

    public double idleJoules() {
        return idleJoules;
    }

    /** GPUs allocated after the last event. */
    public int allocated() {
        return allocated;
    }

    /** Nodes powered after the last event. */
    public int nodesOn() {
        return nodesOn;
    }

    /** The cluster's state after a restore: the clock, idle energy, GPUs allocated and nodes on at the last event. */
    public void restore(long clock, double idle, int allocatedGpus, int poweredNodes) {
        this.now = clock;
        this.idleJoules = idle;
        this.allocated = allocatedGpus;
        this.nodesOn = poweredNodes;
    }

    /** A submitted job, pre-run if PowerFlow profiles; it is scheduled from its ready time on. */
    public void submit(JobRun j) {
        if (profiling == Profiling.POWERFLOW) preRun(j);
        else if (policy.usesModels()) j.model = truthModel(j);
        waiting.add(j);
    }

    /**
     * The jobs restored from state, after {@link #restore(long, double, int, int)}: waiting for their ready time or
     * active (in the order they became ready, as the run that saved them had them).
     */
    public void restore(List<JobRun> jobs) {
        List<JobRun> ready = new ArrayList<>();
        for (JobRun j : jobs) {
            if (j.model == null && profiling != Profiling.POWERFLOW && policy.usesModels()) j.model = truthModel(j);
            if (j.readyMillis <= now) ready.add(j);
            else waiting.add(j);
        }
        ready.sort(waiting.comparator());
        active.addAll(ready);
    }

    /** Every job in the run (waiting ones, then active ones in their order). */
    public List<JobRun> jobs() {
        List<JobRun> all = new ArrayList<>(waiting);
        all.sort(waiting.comparator());
        all.addAll(active);
        return all;
    }

    public boolean hasWork() {
        return !waiting.isEmpty() || !active.isEmpty();
    }

    /** The next event's time, {@link JobRun#NEVER} when none is due. */
    public long nextEventMillis() {
        long t = waiting.isEmpty() ? JobRun.NEVER : waiting.peek().readyMillis;
        boolean oversubscribed = false;
        for (JobRun j : active) {
            if (!j.running()) {
                oversubscribed = true;
                continue;
            }
            t = Math.min(t, j.dueMillis);
            if (j.sweeping()) t = Math.min(t, j.sliceEndMillis);
        }
        if (oversubscribed && quantumMillis > 0) t = Math.min(t, (now / quantumMillis + 1) * quantumMillis);
        return t;
    }

    /** Whether {@code t} is a quantum boundary at which a job waits (time-slicing only). */
    private boolean quantumBoundary(long t) {
        if (quantumMillis <= 0 || t % quantumMillis != 0) return false;
        for (JobRun j : active) if (!j.running()) return true;
        return false;
    }

    /** Runs every event due by {@code until}. */
    public void runUntil(long until) {
        for (long t = nextEventMillis(); t <= until && t != JobRun.NEVER; t = nextEventMillis()) event(t);
    }

    /** The event at {@code t}: the cluster advances to it, and the policy decides if it is a scheduling event. */
    public void event(long t) {
        if (t < now) throw new IllegalStateException("event at " + t + " ms before the clock " + now);
        double dt = (t - now) / 1000.0;
        idleJoules += dt * truth.config().gpu().idleWatts() * (nodesOn * cluster.gpusPerNode() - allocated);
        for (JobRun j : active) if (j.running()) advance(j, dt, t);
        now = t;
        boolean decide = false, changed = false;
        for (var it = active.iterator(); it.hasNext(); ) {
            JobRun j = it.next();
            if (j.running() && j.dueMillis <= t) {
                j.done = j.iterations;
                listener.finished(t, j);
                it.remove();
                decide = true;
            }
        }
        for (JobRun j : active)
            if (j.running() && j.sweeping() && j.sliceEndMillis <= t) {
                changed = true;
                decide |= nextSlice(j, t);
            }
        while (!waiting.isEmpty() && waiting.peek().readyMillis <= t) {
            JobRun j = waiting.poll();
            j.switchedMillis = j.readyMillis;
            active.add(j);
            decide = true;
        }
        boolean quantum = quantumBoundary(t);
        if (quantum) apply(policy.decideAtQuantum(cluster, views(), t / 1000.0), t);
        else if (decide && !active.isEmpty()) apply(policy.decide(cluster, views()), t);
        else if (decide || changed) samplePower(t);
    }

    private void advance(JobRun j, double dt, long t) {
        GroundTruth.Outcome o = outcome(j, j.gpus, j.limit);
        // a resume's overhead: the GPUs are held and powered, the job makes no progress
        double lost = Math.max(0, Math.min(t, j.resumeEndMillis) - now) / 1000.0;
        j.done = Math.min(j.iterations, j.done + (dt - lost) / o.stepTime());
        j.energy += dt * o.power();
        j.attained += dt * j.gpus;
        if (dt > 0 && profiling != Profiling.NONE) observe(j, configuration(j, j.gpus, j.limit), o, t);
    }

    private void observe(JobRun j, Configuration c, GroundTruth.Outcome o, long t) {
        double noise = truth.config().telemetry().noise();
        double step = Math.max(o.stepTime() * (1 + noise * gaussian(j.noise)), 1e-9);
        double energy = Math.max(o.energyPerIteration() * (1 + noise * gaussian(j.noise)), 1e-9);
        j.log.add(c, step, energy);
        listener.telemetry(t, j, c, step, energy);
    }

    /** A standard normal draw (Box-Muller): the telemetry noise's shape. */
    static double gaussian(RandomState r) {
        double u = Math.max(r.nextDouble(), 1e-300), v = r.nextDouble();
        return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
    }

    /**
     * PowerFlow's offline pre-run: one GPU at every limit, lowest first, a slice each; energy charged, no progress;
     * the model fitted on the samples; ready at its end.
     */
    private void preRun(JobRun j) {
        long t = JobRun.millis(j.submit);
        j.energy += preRunJoules(truth, j.workload, j.batch);
        for (double l : limits) {
            t += sliceMillis;
            observe(j, configuration(j, 1, l), truth.at(j.workload, 1, j.batch, l), t);
        }
        j.readyMillis = t;
        fit(j, t, false);
    }

    /** The true energy of a job's offline pre-run: one GPU, a profiling slice at every limit. */
    public static double preRunJoules(GroundTruth truth, String workload, double batch) {
        double slice = JobRun.millis(truth.config().telemetry().profileSecondsPerLimit()) / 1000.0, e = 0;
        for (double l : truth.config().gpu().powerLimits())
            e += slice * truth.at(workload, 1, batch, l).power();
        return e;
    }

    private TruthModel truthModel(JobRun j) {
        return new TruthModel(truth, j.workload, cluster.maxLimit());
    }

    private void fit(JobRun j, long t, boolean newGpuCount) {
        j.model = models.truth() ? truthModel(j) : fitter.fit(j, j.model);
        j.fits++;
        listener.fitted(t, j, newGpuCount);
    }

    /** The job's slice ended: the next limit, or the sweep's end. Whether the policy decides now. */
    private boolean nextSlice(JobRun j, long t) {
        j.sweepSlice++;
        if (j.sweepSlice < limits.length) {
            double l = sliceLimit(j.sweepSlice);
            j.sliceEndMillis = t + sliceLength(j, j.gpus, l);
            set(j, j.gpus, l, t, false);
            return false;
        }
        j.sweepSlice = -1;
        if (profiling == Profiling.POWERFLOW) {
            fit(j, t, true);
            return true;
        }
        double[] step = new double[limits.length], energy = new double[limits.length];
        for (int k = 0; k < limits.length; k++) {
            Observation o = j.log.at(configuration(j, j.gpus, limits[k]));
            step[k] = o.stepTime();
            energy[k] = o.energyPerIteration();
        }
        j.zeusLimit = LimitChoice.zeusOptimum(limits, step, energy, j.gpus);
        set(j, j.gpus, j.zeusLimit, t, false);
        return false;
    }

    /** PowerFlow sweeps the limits upwards, as its pre-run; Zeus downwards from the largest, as its optimizer. */
    private double sliceLimit(int slice) {
        return profiling == Profiling.ZEUS ? limits[limits.length - 1 - slice] : limits[slice];
    }

    private long sliceLength(JobRun j, int gpus, double limit) {
        if (profiling == Profiling.POWERFLOW) return sliceMillis;
        return JobRun.millis(ZEUS_WINDOW * outcome(j, gpus, limit).stepTime());
    }

    /** What the policy knows of the active jobs. */
    private List<JobView> views() {
        List<JobView> views = new ArrayList<>(active.size());
        for (JobRun j : active)
            views.add(new JobView(
                    j.id,
                    j.submit,
                    j.workload,
                    j.batch,
                    // a non-elastic job asking for more than its power-of-two cap (the sampler may ask 7 GPUs of a
                    // 56-sample bert-squad batch) runs on the cap: workers are powers of two for every policy
                    Math.min(j.requestedGpus, j.maxGpus),
                    j.remaining(),
                    j.attained,
                    j.maxGpus,
                    j.model,
                    j.running() ? new Assignment(j.gpus, j.limit) : Assignment.WAITING,
                    profiling == Profiling.POWERFLOW && j.sweeping() && j.running(),
                    j.switchedMillis / 1000.0));
        return views;
    }

    /** Applies the policy's decision at {@code t}, starting the profiling it calls for, and samples the power. */
    private void apply(Map<Long, Assignment> decision, long t) {
        int total = 0;
        for (JobRun j : active) {
            Assignment a = decision.getOrDefault(j.id, Assignment.WAITING);
            if (a.running() && a.gpus() > j.maxGpus)
                throw new IllegalStateException(
                        policy.name() + " gave job " + j.id + " " + a.gpus() + " GPUs, more than its batch allows");
            total += a.gpus();
            if (profiling == Profiling.POWERFLOW && j.sweeping() && j.running()) {
                if (a.gpus() != j.gpus)
                    throw new IllegalStateException(
                            policy.name() + " moved job " + j.id + " off the GPU count it is profiling");
                continue;
            }
            int gpus = a.gpus();
            double limit = a.powerLimit();
            // a resume after a suspension (time-slicing): the overhead first, the work and any window after it
            long start = t;
            if (gpus > 0 && !j.running() && resumeMillis > 0 && j.attained > 0) {
                j.resumeEndMillis = t + resumeMillis;
                start = j.resumeEndMillis;
            }
            if (gpus > 0 && profiling == Profiling.POWERFLOW && !j.log.hasGpuCount(gpus)) {
                j.sweepSlice = 0;
                limit = sliceLimit(0);
                j.sliceEndMillis = t + sliceLength(j, gpus, limit);
            } else if (gpus > 0 && profiling == Profiling.ZEUS) {
                if (!Double.isNaN(j.zeusLimit)) limit = j.zeusLimit;
                else if (j.running()) limit = j.limit; // profiling on: the window goes on
                else {
                    // (re)start: the current window from its beginning
                    if (j.sweepSlice < 0) j.sweepSlice = 0;
                    limit = sliceLimit(j.sweepSlice);
                    j.sliceEndMillis = start + sliceLength(j, gpus, limit);
                }
            }
            set(j, gpus, limit, t, true);
        }
        if (total > cluster.totalGpus())
            throw new IllegalStateException(policy.name() + " allocated " + total + " GPUs of " + cluster.totalGpus());
        samplePower(t);
    }

    /** Moves a job to {@code gpus} at {@code limit} (its completion recomputed) if that is a change. */
    private void set(JobRun j, int gpus, double limit, long t, boolean byPolicy) {
        double l = gpus == 0 ? 0 : limit;
        if (gpus == j.gpus && l == j.limit) return;
        int fromGpus = j.gpus;
        double fromLimit = j.limit;
        if ((fromGpus == 0) != (gpus == 0)) j.switchedMillis = t;
        j.gpus = gpus;
        j.limit = l;
        j.dueMillis = gpus == 0
                ? JobRun.NEVER
                : Math.max(t, j.resumeEndMillis)
                        + JobRun.millis(j.remaining() * outcome(j, gpus, l).stepTime());
        listener.change(t, j, fromGpus, fromLimit, byPolicy);
    }

    private void samplePower(long t) {
        Map<Long, Integer> running = new HashMap<>();
        allocated = 0;
        double watts = 0;
        for (JobRun j : active)
            if (j.running()) {
                running.put(j.id, j.gpus);
                allocated += j.gpus;
                watts += outcome(j, j.gpus, j.limit).power();
            }
        nodesOn = placement.place(running);
        watts += truth.config().gpu().idleWatts() * (nodesOn * cluster.gpusPerNode() - allocated);
        listener.power(t, watts, allocated, nodesOn, idleJoules);
    }

    private GroundTruth.Outcome outcome(JobRun j, int gpus, double limit) {
        return truth.at(j.workload, gpus, j.batch, limit);
    }

    private Configuration configuration(JobRun j, int gpus, double limit) {
        return Configuration.of(gpus, cluster.gpusPerNode(), j.batch, cluster.freq(limit));
    }

    /** A job's ground truth as a model: what AFS and the ground-truth comparison see. */
    record TruthModel(GroundTruth truth, String workload, double maxLimit) implements JobModel {
        @Override
        public double stepTime(Configuration c) {
            return outcome(c).stepTime();
        }

        @Override
        public double energyPerIteration(Configuration c) {
            return outcome(c).energyPerIteration();
        }

        private GroundTruth.Outcome outcome(Configuration c) {
            return truth.at(workload, c.gpus(), c.localBatch() * c.gpus(), c.freq() * maxLimit);
        }
    }
}
