package org.gpusched.powerflow.sim;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.gpusched.core.random.RandomState;
import org.gpusched.powerflow.model.Configuration;
import org.gpusched.powerflow.model.JobModel;
import org.gpusched.powerflow.model.ModelFitter;
import org.gpusched.powerflow.model.Observation;
import org.gpusched.powerflow.model.PerformanceModel;
import org.gpusched.powerflow.policy.Assignment;
import org.gpusched.powerflow.policy.ClusterView;
import org.gpusched.powerflow.policy.EnergyPolicy;
import org.gpusched.powerflow.policy.JobView;
import org.gpusched.powerflow.truth.GroundTruth;

/**
 * A deterministic event-driven simulation of one policy over a trace. Events are submissions and completions; at each
 * the running jobs advance at their true speed since the last event, energy is charged (jobs' GPUs and the idle GPUs
 * of powered nodes), each job that ran reports one telemetry sample of its last configuration (true step time and
 * energy with seeded Gaussian noise), and the policy decides again. Policies see only the fitted models: a job using
 * them is pre-run at submission on one GPU at every power limit (the paper's offline profiling, its time added to the
 * job's JCT and its energy to the job's), fitted on those samples, and refitted (warm start) whenever its telemetry
 * shows a GPU count it had not run at. Telemetry at a known configuration is averaged into that configuration's
 * observation without a refit.
 */
public final class Simulation {
    /** Per-job outcome. */
    public record JobResult(long id, String workload, double submit, double finish, double energyJoules) {
        public double jct() {
            return finish - submit;
        }
    }

    /** One sample of the cluster after a decision: time, GPU power (W, idle included), GPUs allocated, nodes on. */
    public record PowerSample(double time, double watts, int gpusAllocated, int nodesOn) {}

    /** A job's assignment changed at a decision (zero GPUs: it waits); unchanged assignments are not repeated. */
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
            int refits) {}

    private final GroundTruth truth;
    private final ClusterView cluster;
    private final int nodes;
    private final long seed;
    private final Map<Long, PerformanceModel> profileFits;
    private final boolean truthModels;

    /**
     * {@code profileFits} caches the pre-run fits across simulations of the same trace and seed (they draw the same
     * samples); pass a shared map to reuse them, or a fresh one.
     */
    public Simulation(GroundTruth truth, int totalGpus, long seed, Map<Long, PerformanceModel> profileFits) {
        this(truth, totalGpus, seed, profileFits, false);
    }

    /**
     * {@code truthModels}: policies that use models see each job's ground truth instead of fitted models, and jobs are
     * not profiled (the paper's scheduling "with pre-profiled performance", Figure 9: the ideal case, profiling not
     * charged).
     */
    public Simulation(
            GroundTruth truth, int totalGpus, long seed, Map<Long, PerformanceModel> profileFits, boolean truthModels) {
        int gpn = truth.config().gpu().gpusPerNode();
        if (totalGpus < gpn || totalGpus % gpn != 0)
            throw new IllegalArgumentException(
                    "GPU count must be a positive multiple of " + gpn + ", got " + totalGpus);
        this.truth = truth;
        this.cluster = new ClusterView(
                totalGpus,
                gpn,
                truth.config().gpu().powerLimits().stream()
                        .mapToDouble(Double::doubleValue)
                        .toArray(),
                truth.maxPower());
        this.nodes = totalGpus / gpn;
        this.seed = seed;
        this.profileFits = profileFits;
        this.truthModels = truthModels;
    }

    public boolean truthModels() {
        return truthModels;
    }

    /** Whether jobs are pre-run on one GPU at every limit before they are scheduled under {@code policy}. */
    public boolean profiles(EnergyPolicy policy) {
        return policy.usesModels() && !truthModels;
    }

    /** A job's ground truth as a model: what the policy sees in the ground-truth comparison. */
    private record TruthModel(GroundTruth truth, String workload, double maxLimit) implements JobModel {
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

    public ClusterView cluster() {
        return cluster;
    }

    private final class Job {
        final TraceJob trace;
        final int maxGpus;
        final RandomState noise;
        final Map<Configuration, double[]> telemetry = new LinkedHashMap<>();
        JobModel model;
        double ready, done, attained, energy;
        Assignment assignment = Assignment.WAITING;
        GroundTruth.Outcome outcome;
        boolean newGpuCount;

        Job(TraceJob t) {
            this.trace = t;
            this.noise = RandomState.derive(seed, t.id());
            int m = (int) Math.floor(t.batch() / truth.minLocalBatch(t.workload()));
            this.maxGpus = Math.max(1, Math.min(Integer.highestOneBit(Math.max(m, 1)), cluster.totalGpus()));
        }

        double remaining() {
            return Math.max(0, trace.iterations() - done);
        }

        Configuration config(Assignment a) {
            return Configuration.of(a.gpus(), cluster.gpusPerNode(), trace.batch(), cluster.freq(a.powerLimit()));
        }

        void observe(Assignment a, GroundTruth.Outcome o) {
            Configuration c = config(a);
            double t = o.stepTime() * (1 + truth.config().telemetry().noise() * gaussian());
            double e = o.energyPerIteration() * (1 + truth.config().telemetry().noise() * gaussian());
            double[] acc = telemetry.get(c);
            if (acc == null) {
                boolean seen = telemetry.keySet().stream().anyMatch(k -> k.gpus() == c.gpus());
                telemetry.put(c, new double[] {t, e, 1});
                if (!seen) newGpuCount = true;
            } else {
                acc[0] += t;
                acc[1] += e;
                acc[2]++;
            }
        }

        List<Observation> observations() {
            List<Observation> obs = new ArrayList<>();
            telemetry.forEach((c, acc) ->
                    obs.add(new Observation(c, Math.max(acc[0] / acc[2], 1e-9), Math.max(acc[1] / acc[2], 1e-9))));
            return obs;
        }

        double gaussian() {
            double u = Math.max(noise.nextDouble(), 1e-300), v = noise.nextDouble();
            return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
        }
    }

    public Result run(EnergyPolicy policy, List<TraceJob> trace) {
        List<Job> pending = new ArrayList<>();
        for (TraceJob t : trace) pending.add(new Job(t));
        pending.sort(Comparator.comparingDouble((Job j) -> j.trace.submit()).thenComparingLong(j -> j.trace.id()));
        double profileSeconds = truth.config().telemetry().profileSecondsPerLimit();
        List<Job> active = new ArrayList<>();
        List<JobResult> finished = new ArrayList<>();
        List<PowerSample> power = new ArrayList<>();
        List<Change> changes = new ArrayList<>();
        NodePlacement placement = new NodePlacement(nodes, cluster.gpusPerNode(), policy.migrates());
        double now = 0, idleEnergy = 0;
        int next = 0, nodesOn = 0, allocated = 0, refits = 0;
        while (next < pending.size() || !active.isEmpty()) {
            double tArrive = next < pending.size()
                    ? readyTime(pending.get(next), policy, profileSeconds)
                    : Double.POSITIVE_INFINITY;
            double tDone = Double.POSITIVE_INFINITY;
            for (Job j : active)
                if (j.assignment.running()) tDone = Math.min(tDone, now + j.remaining() * j.outcome.stepTime());
            double t = Math.min(tArrive, tDone);
            if (t == Double.POSITIVE_INFINITY)
                throw new IllegalStateException(policy.name() + ": jobs wait but nothing runs at t=" + now);
            double dt = t - now;
            idleEnergy += dt * truth.config().gpu().idleWatts() * (nodesOn * cluster.gpusPerNode() - allocated);
            for (Job j : active) {
                if (!j.assignment.running()) continue;
                j.done += dt / j.outcome.stepTime();
                j.energy += dt * j.outcome.power();
                j.attained += dt * j.assignment.gpus();
                if (dt > 0) j.observe(j.assignment, j.outcome);
            }
            now = t;
            for (var it = active.iterator(); it.hasNext(); ) {
                Job j = it.next();
                if (j.assignment.running() && j.remaining() <= 1e-6 * j.trace.iterations()) {
                    finished.add(new JobResult(j.trace.id(), j.trace.workload(), j.trace.submit(), now, j.energy));
                    it.remove();
                }
            }
            while (next < pending.size() && readyTime(pending.get(next), policy, profileSeconds) <= now) {
                Job j = pending.get(next++);
                if (profiles(policy)) profile(j, profileSeconds);
                else if (policy.usesModels()) j.model = new TruthModel(truth, j.trace.workload(), cluster.maxLimit());
                if (j.remaining() <= 1e-6 * j.trace.iterations())
                    finished.add(new JobResult(j.trace.id(), j.trace.workload(), j.trace.submit(), now, j.energy));
                else active.add(j);
            }
            for (Job j : active) {
                if (profiles(policy) && j.newGpuCount) {
                    j.model = ModelFitter.refit(
                            (PerformanceModel) j.model,
                            j.observations(),
                            truth.config().gpu().freqLevels());
                    refits++;
                }
                j.newGpuCount = false;
            }
            List<JobView> views = new ArrayList<>(active.size());
            for (Job j : active)
                views.add(new JobView(
                        j.trace.id(),
                        j.trace.submit(),
                        j.trace.workload(),
                        j.trace.batch(),
                        // A non-elastic job asking for more than its power-of-two cap (the sampler may ask 7 GPUs
                        // of a 56-sample bert-squad batch) runs on the cap: workers are powers of two for every policy.
                        Math.min(j.trace.gpus(), j.maxGpus),
                        j.remaining(),
                        j.attained,
                        j.maxGpus,
                        j.model,
                        j.assignment));
            Map<Long, Assignment> decision = active.isEmpty() ? Map.of() : policy.decide(cluster, views);
            Map<Long, Integer> running = new HashMap<>();
            allocated = 0;
            double watts = 0;
            for (Job j : active) {
                Assignment a = decision.getOrDefault(j.trace.id(), Assignment.WAITING);
                if (a.running() && a.gpus() > j.maxGpus)
                    throw new IllegalStateException(policy.name() + " gave job " + j.trace.id() + " " + a.gpus()
                            + " GPUs, more than its batch allows");
                if (!a.equals(j.assignment)) changes.add(new Change(now, j.trace.id(), a.gpus(), a.powerLimit()));
                j.assignment = a;
                if (a.running()) {
                    j.outcome = truth.at(j.trace.workload(), a.gpus(), j.trace.batch(), a.powerLimit());
                    running.put(j.trace.id(), a.gpus());
                    allocated += a.gpus();
                    watts += j.outcome.power();
                }
            }
            if (allocated > cluster.totalGpus())
                throw new IllegalStateException(
                        policy.name() + " allocated " + allocated + " GPUs of " + cluster.totalGpus());
            nodesOn = placement.place(running);
            watts += truth.config().gpu().idleWatts() * (nodesOn * cluster.gpusPerNode() - allocated);
            power.add(new PowerSample(now, watts, allocated, nodesOn));
        }
        finished.sort(Comparator.comparingLong(JobResult::id));
        double total = idleEnergy, jct = 0;
        for (JobResult r : finished) {
            total += r.energyJoules();
            jct += r.jct();
        }
        return new Result(
                policy.name(), finished, total, idleEnergy, jct / finished.size(), now, power, changes, refits);
    }

    private double readyTime(Job j, EnergyPolicy policy, double profileSeconds) {
        return j.trace.submit() + (profiles(policy) ? profileSeconds * cluster.powerLimits().length : 0);
    }

    private void profile(Job j, double profileSeconds) {
        for (double limit : cluster.powerLimits()) {
            Assignment a = new Assignment(1, limit);
            GroundTruth.Outcome o = truth.at(j.trace.workload(), 1, j.trace.batch(), limit);
            double seconds = Math.min(profileSeconds, j.remaining() * o.stepTime());
            j.done += seconds / o.stepTime();
            j.energy += seconds * o.power();
            j.observe(a, o);
        }
        j.newGpuCount = false;
        j.model = profileFits.computeIfAbsent(
                j.trace.id(),
                id -> ModelFitter.fit(j.observations(), truth.config().gpu().freqLevels()));
    }
}
