package org.gpusched.powerflow.sim;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.gpusched.powerflow.model.JobModel;
import org.gpusched.powerflow.policy.ClusterView;
import org.gpusched.powerflow.policy.EnergyPolicy;
import org.gpusched.powerflow.policy.Profiling;
import org.gpusched.powerflow.truth.GroundTruth;

/**
 * A deterministic simulation of one policy over a trace: {@link ClusterRun} (the simulated cluster the streaming replay
 * runs too) driven event by event, its changes, power samples and finished jobs collected. Policies see only the
 * fitted models (PowerFlow: pre-run at submission, profiled again at each new GPU count; AFS and the ground-truth
 * comparison: the truth).
 */
public final class Simulation {
    /** Per-job outcome. */
    public record JobResult(long id, String workload, double submit, double finish, double energyJoules) {
        public double jct() {
            return finish - submit;
        }
    }

    /** One sample of the cluster after an event: time, GPU power (W, idle included), GPUs allocated, nodes on. */
    public record PowerSample(double time, double watts, int gpusAllocated, int nodesOn) {}

    /**
     * A job's GPUs or limit changed (zero GPUs: it waits); {@code byPolicy} false when a profiling slice or Zeus moved
     * its limit. Unchanged assignments are not repeated.
     */
    public record Change(double time, long job, int gpus, double powerLimit) {}

    public record Result(
            String policy,
            List<JobResult> jobs,
            double totalEnergyJoules,
            double idleEnergyJoules,
            double meanJct,
            double makespan,
            List<PowerSample> power,
            List<Change> changes,
            int refits,
            double preRunJoules) {}

    private final GroundTruth truth;
    private final ClusterView cluster;
    private final long seed;
    private final Map<Long, JobModel> profileFits;
    private final ModelSource models;

    /**
     * {@code profileFits} caches the pre-run fits across simulations of the same trace and seed (they draw the same
     * samples); pass a shared map to reuse them, or a fresh one.
     */
    public Simulation(GroundTruth truth, int totalGpus, long seed, Map<Long, JobModel> profileFits) {
        this(truth, totalGpus, seed, profileFits, ModelSource.FITTED);
    }

    /**
     * {@code models}: what the policies that use models see ({@link ModelSource#TRUTH}: each job's ground truth and
     * nothing profiled, the paper's scheduling "with pre-profiled performance", Figure 9's ideal case).
     */
    public Simulation(
            GroundTruth truth, int totalGpus, long seed, Map<Long, JobModel> profileFits, ModelSource models) {
        int gpn = truth.config().gpu().gpusPerNode();
        if (totalGpus < gpn || totalGpus % gpn != 0)
            throw new IllegalArgumentException(
                    "GPU count must be a positive multiple of " + gpn + ", got " + totalGpus);
        this.truth = truth;
        this.cluster = cluster(truth, totalGpus);
        this.seed = seed;
        this.profileFits = profileFits;
        this.models = models;
    }

    /** Whether jobs are pre-run and profiled as PowerFlow's before and while {@code policy} schedules them. */
    public boolean profiles(EnergyPolicy policy) {
        return policy.profiling() == Profiling.POWERFLOW && models.profiles();
    }

    public ClusterView cluster() {
        return cluster;
    }

    /** The largest power-of-two worker count {@code batch} allows on the cluster (local batch >= smallest measured). */
    public static int maxGpus(GroundTruth truth, ClusterView cluster, String workload, double batch) {
        int m = (int) Math.floor(batch / truth.minLocalBatch(workload));
        return Math.max(1, Math.min(Integer.highestOneBit(Math.max(m, 1)), cluster.totalGpus()));
    }

    /** The cluster of {@code totalGpus} GPUs of the truth's hardware, as the policies see it. */
    public static ClusterView cluster(GroundTruth truth, int totalGpus) {
        return new ClusterView(
                totalGpus,
                truth.config().gpu().gpusPerNode(),
                truth.config().gpu().powerLimits().stream()
                        .mapToDouble(Double::doubleValue)
                        .toArray(),
                truth.maxPower());
    }

    public Result run(EnergyPolicy policy, List<TraceJob> trace) {
        List<JobResult> finished = new ArrayList<>();
        List<PowerSample> power = new ArrayList<>();
        List<Change> changes = new ArrayList<>();
        int[] refits = {0};
        ClusterRun.Fitter fit = new ModelFitting(truth, cluster, true);
        ClusterRun.Fitter cached = (job, previous) -> previous == null
                ? profileFits.computeIfAbsent(job.id(), id -> fit.fit(job, null))
                : fit.fit(job, previous);
        ClusterRun run = new ClusterRun(truth, cluster, policy, models, cached, new ClusterRun.Listener() {
            @Override
            public void change(long millis, JobRun job, int fromGpus, double fromLimit, boolean byPolicy) {
                changes.add(new Change(millis / 1000.0, job.id(), job.gpus(), job.limit()));
            }

            @Override
            public void fitted(long millis, JobRun job, boolean newGpuCount) {
                if (newGpuCount) refits[0]++;
            }

            @Override
            public void finished(long millis, JobRun job) {
                finished.add(
                        new JobResult(job.id(), job.workload(), job.submit(), millis / 1000.0, job.energyJoules()));
            }

            @Override
            public void power(long millis, double watts, int allocated, int nodesOn, double idleJoules) {
                power.add(new PowerSample(millis / 1000.0, watts, allocated, nodesOn));
            }
        });
        List<TraceJob> sorted = new ArrayList<>(trace);
        sorted.sort(Comparator.comparingDouble(TraceJob::submit).thenComparingLong(TraceJob::id));
        for (TraceJob t : sorted)
            run.submit(new JobRun(
                    t.id(),
                    t.id(),
                    seed,
                    t.submit(),
                    t.workload(),
                    t.batch(),
                    t.gpus(),
                    t.iterations(),
                    maxGpus(truth, cluster, t.workload(), t.batch())));
        while (run.hasWork()) {
            long t = run.nextEventMillis();
            if (t == JobRun.NEVER)
                throw new IllegalStateException(
                        policy.name() + ": jobs wait but nothing runs at t=" + run.now() / 1000.0);
            run.event(t);
        }
        finished.sort(Comparator.comparingLong(JobResult::id));
        double preRun = 0;
        if (profiles(policy))
            for (TraceJob t : trace) preRun += ClusterRun.preRunJoules(truth, t.workload(), t.batch());
        double total = run.idleJoules(), jct = 0;
        for (JobResult r : finished) {
            total += r.energyJoules();
            jct += r.jct();
        }
        return new Result(
                policy.name(),
                finished,
                total,
                run.idleJoules(),
                jct / finished.size(),
                run.now() / 1000.0,
                power,
                changes,
                refits[0],
                preRun);
    }
}
