package org.gpusched.streaming.powerflow;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.formats.avro.typeutils.AvroTypeInfo;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;
import org.gpusched.powerflow.model.Configuration;
import org.gpusched.powerflow.model.PerformanceModel;
import org.gpusched.powerflow.policy.Assignment;
import org.gpusched.powerflow.policy.ClusterView;
import org.gpusched.powerflow.policy.JobView;
import org.gpusched.powerflow.policy.PowerFlowPolicy;
import org.gpusched.powerflow.sim.ClusterRun;
import org.gpusched.powerflow.sim.JobRun;
import org.gpusched.powerflow.sim.ModelFitting;
import org.gpusched.powerflow.sim.ModelSource;
import org.gpusched.powerflow.truth.GroundTruth;
import org.gpusched.streaming.RecordParser;
import org.gpusched.streaming.avro.DecisionAction;
import org.gpusched.streaming.avro.JobCompleted;
import org.gpusched.streaming.avro.JobModelFit;
import org.gpusched.streaming.avro.PlacementDecision;
import org.gpusched.streaming.avro.PowerflowJob;
import org.gpusched.streaming.avro.PowerflowJobEnergy;
import org.gpusched.streaming.avro.PowerflowPowerSample;
import org.gpusched.streaming.avro.Telemetry;
import org.gpusched.streaming.avro.TelemetryKind;
import org.gpusched.streaming.state.JobModelState;
import org.gpusched.streaming.state.PowerflowEvent;
import org.gpusched.streaming.state.PowerflowEventKind;
import org.gpusched.streaming.state.PowerflowJobState;
import org.gpusched.streaming.state.SimulatedJob;

/**
 * The powerflow policy over a stream (one key, {@link PowerflowSettings#POLICY}): at each scheduling event it asks
 * {@link PowerFlowPolicy} for every ready job's GPU count and power limit under eta x G x P_max, from the jobs' fitted
 * models only, and emits the changes as decisions with the GPU count, the power limit and the local batch.
 *
 * <p>Live: scheduling events are a completion, a job becoming ready (its first fitted model arrives) and a refit from
 * the first telemetry at a GPU count; models come from {@link JobModelFunction} upstream ({@code MODEL} events),
 * progress from telemetry's {@code iterationsDone}, completions from the completions topic. Events are handled when the
 * watermark passes their time, those of one time sorted ({@link PowerflowEvents#ORDER}), one decision per time; so
 * arrival order does not change decisions.
 *
 * <p>Replay: the job simulates the cluster with the simulator's own {@link ClusterRun} (the policy never sees the
 * ground truth): PowerFlow's offline pre-run at submission, execution and energy on the ground truth, noisy
 * telemetry, profiling sweeps at new GPU counts, refits and completions, event by event on the millisecond grid,
 * exactly as {@code gpusched powerflow} runs them; its jobs live in {@link #JOBS} between events (their
 * {@link JobRun.State}). The telemetry, fits, completions, each finished job's energy and the power after each event go
 * to side outputs. Flink has no stream iterations, so the simulated cluster lives in this operator.
 *
 * <p>State: {@link #JOBS}, the active jobs (request, latest fit, progress, assignment, and in replay the simulated
 * execution with its noise generator and telemetry); a job leaves it when it completes. {@link #PENDING}, events not yet
 * passed by the watermark. {@link #CLOCK}, the time of the last handled timer; {@link #COUNTERS}, the next job index
 * and decision sequence number; {@link #CLUSTER_POWER} (replay), the time of the last cluster event, GPUs allocated
 * and nodes on after it, and the idle energy so far. An idle key holds only these.
 */
public final class PowerflowScheduler extends KeyedProcessFunction<String, PowerflowEvent, PlacementDecision> {
    private static final long serialVersionUID = 1L;

    public static final MapStateDescriptor<String, PowerflowJobState> JOBS =
            new MapStateDescriptor<>("jobs", Types.STRING, new AvroTypeInfo<>(PowerflowJobState.class));
    public static final ListStateDescriptor<PowerflowEvent> PENDING =
            new ListStateDescriptor<>("pending-events", new AvroTypeInfo<>(PowerflowEvent.class));
    public static final ValueStateDescriptor<Long> CLOCK = new ValueStateDescriptor<>("clock", Types.LONG);
    /** [next job index, next decision sequence number]. */
    public static final ValueStateDescriptor<long[]> COUNTERS = new ValueStateDescriptor<>(
            "counters", org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo.LONG_PRIMITIVE_ARRAY_TYPE_INFO);
    /** Replay: [time of the last cluster event (ms), GPUs allocated and nodes on after it, idle energy so far (J)]. */
    public static final ValueStateDescriptor<double[]> CLUSTER_POWER = new ValueStateDescriptor<>(
            "cluster-power",
            org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo.DOUBLE_PRIMITIVE_ARRAY_TYPE_INFO);

    /** Replay: the simulated completions. */
    public static final OutputTag<JobCompleted> COMPLETIONS =
            new OutputTag<>("powerflow-completions", new AvroTypeInfo<>(JobCompleted.class));
    /** Replay: the simulated telemetry. */
    public static final OutputTag<Telemetry> TELEMETRY =
            new OutputTag<>("powerflow-telemetry", new AvroTypeInfo<>(Telemetry.class));
    /** Replay: each finished job's true energy and JCT. */
    public static final OutputTag<PowerflowJobEnergy> JOB_ENERGY =
            new OutputTag<>("powerflow-job-energy", new AvroTypeInfo<>(PowerflowJobEnergy.class));
    /** Replay: the cluster's true power after each decision. */
    public static final OutputTag<PowerflowPowerSample> POWER =
            new OutputTag<>("powerflow-power", new AvroTypeInfo<>(PowerflowPowerSample.class));
    /** Replay: every fit (live fits come from {@link JobModelFunction#MODELS}). */
    public static final OutputTag<JobModelFit> MODELS =
            new OutputTag<>("powerflow-models", new AvroTypeInfo<>(JobModelFit.class));

    private final PowerflowSettings settings;
    private transient MapState<String, PowerflowJobState> jobs;
    private transient ListState<PowerflowEvent> pending;
    private transient ValueState<Long> clock;
    private transient ValueState<long[]> counters;
    private transient ValueState<double[]> clusterPower;
    private transient PowerFlowPolicy policy;
    private transient ClusterView cluster;
    private transient GroundTruth truth;
    /** Replay: how the simulated cluster fits its jobs' models (the simulator's own fitter). */
    private transient ClusterRun.Fitter fitter;
    /**
     * The model instance of each active job's latest fit, kept while the fit is the same so that the policy's table of
     * model values lasts across decisions (models are pure: a new instance gives the same values, only slower).
     */
    private transient Map<String, KeptModel> models;

    private record KeptModel(JobModelFit fit, PerformanceModel model) {}

    public PowerflowScheduler(PowerflowSettings settings) {
        this.settings = settings;
    }

    @Override
    public void open(OpenContext openContext) {
        jobs = getRuntimeContext().getMapState(JOBS);
        pending = getRuntimeContext().getListState(PENDING);
        clock = getRuntimeContext().getState(CLOCK);
        counters = getRuntimeContext().getState(COUNTERS);
        clusterPower = getRuntimeContext().getState(CLUSTER_POWER);
        policy = settings.policy();
        cluster = settings.cluster();
        truth = settings.replay() ? settings.groundTruth() : null;
        fitter = truth == null ? null : new ModelFitting(truth, cluster, true);
        models = new HashMap<>();
    }

    @Override
    public void processElement(PowerflowEvent event, Context ctx, Collector<PlacementDecision> out) throws Exception {
        pending.add(event);
        ctx.timerService().registerEventTimeTimer(event.getTimeMillis());
    }

    @Override
    public void onTimer(long time, OnTimerContext ctx, Collector<PlacementDecision> out) throws Exception {
        List<PowerflowEvent> later = new ArrayList<>();
        List<PowerflowEvent> due = PowerflowEvents.due(pending.get(), time, later);
        if (later.isEmpty()) pending.clear();
        else pending.update(later);
        Long last = clock.value();
        long now = last == null ? time : Math.max(last, time);
        long[] count = counters.value();
        if (count == null) count = new long[2];
        if (truth != null) {
            simulate(due, now, ctx, out, count);
        } else {
            account(due);
            boolean reschedule = false;
            for (PowerflowEvent e : due) reschedule |= handle(e, now, ctx, out, count);
            if (reschedule) decide(now, out, count);
        }
        clock.update(now);
        counters.update(count);
    }

    /** One input event; whether it calls for a decision. */
    private boolean handle(
            PowerflowEvent e, long now, OnTimerContext ctx, Collector<PlacementDecision> out, long[] count)
            throws Exception {
        String id = e.getJob();
        PowerflowJobState job = jobs.get(id);
        switch (e.getKind()) {
            case SUBMISSION -> {
                if (job != null) return false;
                jobs.put(id, submitted(e.getSubmitted(), count[0]++, now));
                return false;
            }
            case COMPLETION -> {
                if (job == null) return false;
                PowerflowJob r = job.getJob();
                ctx.output(
                        JOB_ENERGY,
                        PowerflowJobEnergy.newBuilder()
                                .setTime(now / 1000.0)
                                .setJob(r.getId())
                                .setWorkload(r.getWorkload())
                                .setSubmit(r.getSubmit())
                                .setJctSeconds(now / 1000.0 - r.getSubmit())
                                .setEnergyJoules(job.getTelemetryEnergyJoules())
                                .setSeq(count[1])
                                .setFromTelemetry(true)
                                .build());
                complete(job, now, out, count);
                return true;
            }
            case TELEMETRY -> {
                Double done = e.getTelemetry().getIterationsDone();
                if (job == null || done == null) return false;
                jobs.put(
                        id,
                        PowerflowJobState.newBuilder(job)
                                .setIterationsDone(done)
                                .setProgressMillis(now)
                                .build());
                return false;
            }
            case MODEL -> {
                if (job == null) return false;
                boolean first = job.getFit() == null;
                jobs.put(
                        id,
                        PowerflowJobState.newBuilder(job).setFit(e.getModel()).build());
                return first || e.getModel().getNewGpuCount();
            }
            default -> throw new IllegalStateException(e.getKind().name());
        }
    }

    /**
     * Live: the energy of the telemetry samples due, into their jobs', before the events are handled (a sample taken
     * at a completion's time covers the time before it). A job's samples of one time count as their mean power over
     * the time since its previous sample (or its submission), or since it last got GPUs; counted while the job
     * profiles (before its first start) or holds GPUs, not while it waits.
     */
    private void account(List<PowerflowEvent> due) throws Exception {
        Map<String, double[]> group = new java.util.LinkedHashMap<>(); // "time/job" -> [time, power sum, count]
        Map<String, String> jobOf = new HashMap<>();
        for (PowerflowEvent e : due) {
            Telemetry t = e.getTelemetry();
            if (e.getKind() != PowerflowEventKind.TELEMETRY
                    || !PowerflowEvents.isSample(t)
                    || t.getGpuPowerWatts() == null) continue;
            String key = e.getTimeMillis() + "/" + e.getJob();
            double[] g = group.computeIfAbsent(key, k -> new double[] {e.getTimeMillis(), 0, 0});
            g[1] += t.getGpuPowerWatts();
            g[2]++;
            jobOf.put(key, e.getJob());
        }
        for (var entry : group.entrySet()) {
            PowerflowJobState job = jobs.get(jobOf.get(entry.getKey()));
            if (job == null) continue;
            long at = (long) entry.getValue()[0];
            double watts = entry.getValue()[1] / entry.getValue()[2];
            long from = Math.max(
                    job.getLastSampleMillis() >= 0
                            ? job.getLastSampleMillis()
                            : RecordParser.toMillis(job.getJob().getSubmit()),
                    job.getResumedMillis());
            boolean draws = job.getResumedMillis() < 0 || job.getGpus() > 0;
            double energy = job.getTelemetryEnergyJoules();
            if (draws && at > from) energy += watts * (at - from) / 1000.0;
            jobs.put(
                    job.getJob().getId(),
                    PowerflowJobState.newBuilder(job)
                            .setTelemetryEnergyJoules(energy)
                            .setLastSampleMillis(Math.max(at, job.getLastSampleMillis()))
                            .build());
        }
    }

    /** A job just submitted: no model, no progress, waiting. */
    private static PowerflowJobState submitted(PowerflowJob request, long index, long now) {
        return PowerflowJobState.newBuilder()
                .setIndex(index)
                .setJob(request)
                .setFit(null)
                .setIterationsDone(0)
                .setProgressMillis(now)
                .setAttainedGpuSeconds(0)
                .setGpus(0)
                .setPowerLimitWatts(0)
                .setReplay(null)
                .build();
    }

    private void complete(PowerflowJobState job, long now, Collector<PlacementDecision> out, long[] count)
            throws Exception {
        out.collect(decision(job, DecisionAction.COMPLETE, job.getGpus(), job.getPowerLimitWatts(), now, null, count));
        jobs.remove(job.getJob().getId());
    }

    /** Asks the policy and emits what changed, in job index order. */
    private void decide(long now, Collector<PlacementDecision> out, long[] count) throws Exception {
        List<PowerflowJobState> active = new ArrayList<>();
        for (Map.Entry<String, PowerflowJobState> e : jobs.entries()) active.add(e.getValue());
        active.sort(Comparator.comparingLong(PowerflowJobState::getIndex));
        List<JobView> views = new ArrayList<>();
        for (PowerflowJobState j : active) if (ready(j, now)) views.add(view(j));
        Set<String> ids = new HashSet<>();
        for (PowerflowJobState j : active) ids.add(j.getJob().getId());
        models.keySet().retainAll(ids);
        Map<Long, Assignment> decided = views.isEmpty() ? Map.of() : policy.decide(cluster, views);
        for (PowerflowJobState j : active) {
            Assignment a = decided.getOrDefault(j.getIndex(), Assignment.WAITING);
            int before = j.getGpus();
            boolean same = a.gpus() == before && (a.gpus() == 0 || a.powerLimit() == j.getPowerLimitWatts());
            if (same) continue;
            DecisionAction action =
                    before == 0 ? DecisionAction.START : a.gpus() == 0 ? DecisionAction.PREEMPT : DecisionAction.RESIZE;
            PowerflowJobState changed = PowerflowJobState.newBuilder(j)
                    .setGpus(a.gpus())
                    .setPowerLimitWatts(a.gpus() == 0 ? 0 : a.powerLimit())
                    .setResumedMillis(before == 0 ? now : j.getResumedMillis())
                    .build();
            jobs.put(j.getJob().getId(), changed);
            out.collect(
                    a.gpus() == 0
                            ? decision(j, action, before, j.getPowerLimitWatts(), now, null, count)
                            : decision(
                                    changed, action, a.gpus(), a.powerLimit(), now, expectedEnd(changed, now), count));
        }
    }

    private boolean ready(PowerflowJobState j, long now) {
        return j.getFit() != null;
    }

    private JobView view(PowerflowJobState j) {
        PowerflowJob r = j.getJob();
        return new JobView(
                j.getIndex(),
                r.getSubmit(),
                r.getWorkload(),
                r.getGlobalBatch(),
                r.getGpus(),
                Math.max(0, r.getIterations() - j.getIterationsDone()),
                j.getAttainedGpuSeconds(),
                settings.maxGpus(r.getWorkload(), r.getGlobalBatch()),
                model(j),
                j.getGpus() == 0 ? Assignment.WAITING : new Assignment(j.getGpus(), j.getPowerLimitWatts()));
    }

    private PerformanceModel model(PowerflowJobState j) {
        KeptModel kept = models.get(j.getJob().getId());
        if (kept == null || !kept.fit().equals(j.getFit())) {
            kept = new KeptModel(j.getFit(), JobModels.model(j.getFit()));
            models.put(j.getJob().getId(), kept);
        }
        return kept.model();
    }

    private Double expectedEnd(PowerflowJobState j, long now) {
        PerformanceModel m = model(j);
        double remaining = Math.max(0, j.getJob().getIterations() - j.getIterationsDone());
        return now / 1000.0 + remaining * m.stepTime(configuration(j));
    }

    private Configuration configuration(PowerflowJobState j) {
        return Configuration.of(
                j.getGpus(),
                settings.gpusPerNode(),
                j.getJob().getGlobalBatch(),
                settings.freq(j.getPowerLimitWatts()));
    }

    private PlacementDecision decision(
            PowerflowJobState j,
            DecisionAction action,
            int gpus,
            double limit,
            long now,
            Double expectedCompletion,
            long[] count) {
        boolean running = action != DecisionAction.PREEMPT && action != DecisionAction.COMPLETE;
        return PlacementDecision.newBuilder()
                .setTime(now / 1000.0)
                .setJob(j.getJob().getId())
                .setAction(action)
                .setNode(null)
                .setType(settings.gpuModel())
                .setGpus(gpus)
                .setPreviousNode(null)
                .setExpectedCompletion(expectedCompletion)
                .setExpectedCost(null)
                .setPolicy(PowerflowSettings.POLICY)
                .setController(0)
                .setSeq(count[1]++)
                .setReason(null)
                .setPowerLimitWatts(gpus == 0 ? null : limit)
                .setLocalBatch(running && gpus > 0 ? j.getJob().getGlobalBatch() / gpus : null)
                .build();
    }

    // ---------------------------------------------------------------- replay: the simulated cluster

    /**
     * Replay at {@code now}: the jobs submitted by now are pre-run, then the simulated cluster runs every event due by
     * now ({@link ClusterRun#runUntil}); the jobs go back to state and a timer is set at the next event.
     */
    private void simulate(
            List<PowerflowEvent> due, long now, OnTimerContext ctx, Collector<PlacementDecision> out, long[] count)
            throws Exception {
        Map<Long, PowerflowJobState> byIndex = new HashMap<>();
        List<JobRun> restored = new ArrayList<>();
        for (PowerflowJobState j : jobs.values()) {
            byIndex.put(j.getIndex(), j);
            restored.add(run(j));
        }
        Map<Long, JobModelFit> fits = new HashMap<>();
        ClusterRun cluster = new ClusterRun(
                truth,
                this.cluster,
                policy,
                ModelSource.FITTED,
                fitter,
                new ReplayOutputs(ctx, out, count, byIndex, fits));
        double[] power = clusterPower.value();
        if (power != null) cluster.restore((long) power[0], power[3], (int) power[1], (int) power[2]);
        else cluster.restore(now, 0, 0, 0);
        cluster.restore(restored);
        for (PowerflowEvent e : due) {
            if (e.getKind() != PowerflowEventKind.SUBMISSION || jobs.contains(e.getJob())) continue;
            PowerflowJob r = e.getSubmitted();
            long index = count[0]++;
            byIndex.put(index, submitted(r, index, now));
            cluster.submit(new JobRun(
                    index,
                    JobRun.noiseStream(r.getId()),
                    settings.seed(),
                    r.getSubmit(),
                    r.getWorkload(),
                    r.getGlobalBatch(),
                    r.getGpus(),
                    r.getIterations(),
                    settings.maxGpus(r.getWorkload(), r.getGlobalBatch())));
        }
        cluster.runUntil(now);
        for (JobRun j : cluster.jobs()) {
            PowerflowJobState s = byIndex.get(j.id());
            jobs.put(s.getJob().getId(), state(s, j, fits.getOrDefault(j.id(), s.getFit())));
        }
        clusterPower.update(new double[] {cluster.now(), cluster.allocated(), cluster.nodesOn(), cluster.idleJoules()});
        long next = cluster.nextEventMillis();
        if (next != JobRun.NEVER) ctx.timerService().registerEventTimeTimer(next);
    }

    /** A job of the state as the simulator's {@link JobRun}. */
    private JobRun run(PowerflowJobState j) {
        SimulatedJob sim = j.getReplay();
        PowerflowJob r = j.getJob();
        JobModelState m = sim.getModel();
        return new JobRun(new JobRun.State(
                j.getIndex(),
                JobRun.noiseStream(r.getId()),
                r.getSubmit(),
                r.getWorkload(),
                r.getGlobalBatch(),
                r.getGpus(),
                r.getIterations(),
                settings.maxGpus(r.getWorkload(), r.getGlobalBatch()),
                sim.getReadyMillis(),
                j.getIterationsDone(),
                sim.getEnergyJoules(),
                j.getAttainedGpuSeconds(),
                j.getGpus(),
                j.getPowerLimitWatts(),
                sim.getSweepSlice(),
                sim.getSliceEndMillis(),
                Double.NaN,
                sim.getDueMillis(),
                sim.getNoise(),
                JobModels.log(m),
                j.getFit() == null ? null : model(j),
                j.getFit() == null ? 0 : j.getFit().getRefits(),
                // PowerFlow does not time-slice: when a job last started or waited and its resume overhead are not
                // read, and not kept in state
                sim.getReadyMillis(),
                0));
    }

    /** The state of a job after the simulated cluster ran. */
    private static PowerflowJobState state(PowerflowJobState s, JobRun run, JobModelFit fit) {
        JobRun.State j = run.state();
        return PowerflowJobState.newBuilder(s)
                .setFit(fit)
                .setIterationsDone(j.done())
                .setAttainedGpuSeconds(j.attainedGpuSeconds())
                .setGpus(j.gpus())
                .setPowerLimitWatts(j.limit())
                .setReplay(SimulatedJob.newBuilder()
                        .setReadyMillis(j.readyMillis())
                        .setNoise(j.noise())
                        .setEnergyJoules(j.energyJoules())
                        .setModel(JobModels.state(s.getJob().getId(), j.log(), fit))
                        .setDueMillis(j.dueMillis())
                        .setSweepSlice(j.sweepSlice())
                        .setSliceEndMillis(j.sliceEndMillis())
                        .build())
                .build();
    }

    /** The simulated cluster's reports as this operator's decisions and side outputs. */
    private final class ReplayOutputs implements ClusterRun.Listener {
        private final OnTimerContext ctx;
        private final Collector<PlacementDecision> out;
        private final long[] count;
        private final Map<Long, PowerflowJobState> byIndex;
        private final Map<Long, JobModelFit> fits;

        ReplayOutputs(
                OnTimerContext ctx,
                Collector<PlacementDecision> out,
                long[] count,
                Map<Long, PowerflowJobState> byIndex,
                Map<Long, JobModelFit> fits) {
            this.ctx = ctx;
            this.out = out;
            this.count = count;
            this.byIndex = byIndex;
            this.fits = fits;
        }

        private PowerflowJob request(JobRun j) {
            return byIndex.get(j.id()).getJob();
        }

        @Override
        public void change(long millis, JobRun j, int fromGpus, double fromLimit, boolean byPolicy) {
            PowerflowJobState s = PowerflowJobState.newBuilder(byIndex.get(j.id()))
                    .setIterationsDone(j.done())
                    .setGpus(j.gpus())
                    .setPowerLimitWatts(j.limit())
                    .setFit(fits.getOrDefault(j.id(), byIndex.get(j.id()).getFit()))
                    .build();
            DecisionAction action = fromGpus == 0
                    ? DecisionAction.START
                    : j.gpus() == 0 ? DecisionAction.PREEMPT : DecisionAction.RESIZE;
            out.collect(
                    j.gpus() == 0
                            ? decision(s, action, fromGpus, fromLimit, millis, null, count)
                            : decision(
                                    s,
                                    action,
                                    j.gpus(),
                                    j.limit(),
                                    millis,
                                    millis / 1000.0
                                            + j.remaining()
                                                    * j.model()
                                                            .stepTime(Configuration.of(
                                                                    j.gpus(),
                                                                    settings.gpusPerNode(),
                                                                    j.batch(),
                                                                    settings.freq(j.limit()))),
                                    count));
        }

        @Override
        public void telemetry(long millis, JobRun j, Configuration c, double step, double energy) {
            ctx.output(
                    TELEMETRY,
                    Telemetry.newBuilder()
                            .setTime(millis / 1000.0)
                            .setKind(TelemetryKind.JOB_PROGRESS)
                            .setJob(request(j).getId())
                            .setIterationsDone(j.done())
                            .setStepSeconds(step)
                            .setGpuPowerWatts(energy / step)
                            .setGpus(c.gpus())
                            .setPowerLimitWatts(c.freq() * settings.powerLimits()[settings.powerLimits().length - 1])
                            .setLocalBatch(c.localBatch())
                            .build());
        }

        @Override
        public void fitted(long millis, JobRun j, boolean newGpuCount) {
            JobModelFit fit = JobModels.fitRecord(
                    request(j).getId(), millis / 1000.0, (PerformanceModel) j.model(), j.log(), j.fits(), newGpuCount);
            fits.put(j.id(), fit);
            models.put(fit.getJob(), new KeptModel(fit, (PerformanceModel) j.model()));
            ctx.output(MODELS, fit);
        }

        @Override
        public void finished(long millis, JobRun j) {
            PowerflowJob r = request(j);
            double t = millis / 1000.0;
            ctx.output(
                    JOB_ENERGY,
                    PowerflowJobEnergy.newBuilder()
                            .setTime(t)
                            .setJob(r.getId())
                            .setWorkload(r.getWorkload())
                            .setSubmit(r.getSubmit())
                            .setJctSeconds(t - r.getSubmit())
                            .setEnergyJoules(j.energyJoules())
                            .setSeq(count[1])
                            .setFromTelemetry(false)
                            .build());
            PowerflowJobState s = byIndex.get(j.id());
            out.collect(decision(s, DecisionAction.COMPLETE, j.gpus(), j.limit(), millis, null, count));
            ctx.output(
                    COMPLETIONS,
                    JobCompleted.newBuilder()
                            .setTime(t)
                            .setJob(r.getId())
                            .setNode(null)
                            .setType(settings.gpuModel())
                            .setGpus(j.gpus())
                            .setPolicy(PowerflowSettings.POLICY)
                            .setController(0)
                            .build());
            try {
                jobs.remove(r.getId());
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
            byIndex.remove(j.id());
            models.remove(r.getId());
        }

        @Override
        public void power(long millis, double watts, int allocated, int nodesOn, double idleJoules) {
            ctx.output(
                    POWER,
                    PowerflowPowerSample.newBuilder()
                            .setTime(millis / 1000.0)
                            .setWatts(watts)
                            .setGpusAllocated(allocated)
                            .setNodesOn(nodesOn)
                            .setIdleEnergyJoules(idleJoules)
                            .setSeq(count[1])
                            .build());
        }
    }
}
