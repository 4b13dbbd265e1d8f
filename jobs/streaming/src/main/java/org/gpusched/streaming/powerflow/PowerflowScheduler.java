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
import org.gpusched.core.random.RandomState;
import org.gpusched.powerflow.model.Configuration;
import org.gpusched.powerflow.model.PerformanceModel;
import org.gpusched.powerflow.policy.Assignment;
import org.gpusched.powerflow.policy.ClusterView;
import org.gpusched.powerflow.policy.JobView;
import org.gpusched.powerflow.policy.PowerFlowPolicy;
import org.gpusched.powerflow.truth.GroundTruth;
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
import org.gpusched.streaming.state.PowerflowJobState;
import org.gpusched.streaming.state.SimulatedJob;

/**
 * The powerflow policy over a stream (one key, {@link PowerflowSettings#POLICY}): at each scheduling event it asks
 * {@link PowerFlowPolicy} for every ready job's GPU count and power limit under eta x G x P_max, from the jobs' fitted
 * models only, and emits the changes as decisions with the GPU count, the power limit and the local batch.
 *
 * <p>Scheduling events: a completion, a job becoming ready (live: its first fitted model arrives; replay: its profiling
 * pre-run ends) and a refit from the first telemetry at a GPU count. Events are handled when the watermark passes their
 * time, those of one time sorted ({@link PowerflowEvents#ORDER}), one decision per time; so arrival order does not change
 * decisions.
 *
 * <p>Live: models come from {@link JobModelFunction} upstream ({@code MODEL} events), progress from telemetry's
 * {@code iterationsDone}, completions from the completions topic. Replay: the job simulates the cluster from the ground
 * truth (the policy never sees it): at submission a job is pre-run on one GPU at every power limit for
 * {@code profileSecondsPerLimit} each; between events every running job advances at its true speed and reports one
 * telemetry sample (true step time and power, times 1 + noise x N(0,1) from the job's own seeded generator); the
 * samples go to {@link #TELEMETRY} and into the job's model, refitted on a new configuration as the live function does
 * (Flink has no stream iterations to carry them back to a function upstream); a job completes by an event-time timer at
 * its true end.
 *
 * <p>State: {@link #JOBS}, the active jobs (request, latest fit, progress, assignment, and in replay the simulated
 * execution with its noise generator and telemetry); a job leaves it when it completes. {@link #PENDING}, events not yet
 * passed by the watermark. {@link #CLOCK}, the time of the last handled event; {@link #COUNTERS}, the next job index
 * and decision sequence number; {@link #CLUSTER_POWER} (replay), the last power sample and the idle energy so far. An idle
 * key holds only these.
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
    /** Replay: [time of the last power sample (s), GPUs allocated and nodes on after it, idle energy so far (J)]. */
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

    private static final double DONE = 1e-6;

    private final PowerflowSettings settings;
    private transient MapState<String, PowerflowJobState> jobs;
    private transient ListState<PowerflowEvent> pending;
    private transient ValueState<Long> clock;
    private transient ValueState<long[]> counters;
    private transient ValueState<double[]> clusterPower;
    private transient PowerFlowPolicy policy;
    private transient ClusterView cluster;
    private transient GroundTruth truth;
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
        boolean reschedule = false;
        if (truth != null) reschedule |= advance(last == null ? now : last, now, ctx, out, count);
        for (PowerflowEvent e : due) reschedule |= handle(e, now, ctx, out, count);
        if (reschedule) decide(now, ctx, out, count);
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
                PowerflowJob request = e.getSubmitted();
                PowerflowJobState.Builder b = PowerflowJobState.newBuilder()
                        .setIndex(count[0]++)
                        .setJob(request)
                        .setFit(null)
                        .setIterationsDone(0)
                        .setProgressMillis(now)
                        .setAttainedGpuSeconds(0)
                        .setGpus(0)
                        .setPowerLimitWatts(0)
                        .setReplay(null);
                PowerflowJobState created = b.build();
                if (truth != null) {
                    created = profile(created, now, ctx);
                    ctx.timerService()
                            .registerEventTimeTimer(created.getReplay().getReadyMillis());
                }
                jobs.put(id, created);
                return false;
            }
            case COMPLETION -> {
                if (job == null || truth != null) return false;
                complete(job, now, out, count);
                return true;
            }
            case TELEMETRY -> {
                Double done = e.getTelemetry().getIterationsDone();
                if (job == null || done == null || truth != null) return false;
                jobs.put(
                        id,
                        PowerflowJobState.newBuilder(job)
                                .setIterationsDone(done)
                                .setProgressMillis(now)
                                .build());
                return false;
            }
            case MODEL -> {
                if (job == null || truth != null) return false;
                boolean first = job.getFit() == null;
                jobs.put(
                        id,
                        PowerflowJobState.newBuilder(job).setFit(e.getModel()).build());
                return first || e.getModel().getNewGpuCount();
            }
            default -> throw new IllegalStateException(e.getKind().name());
        }
    }

    private void complete(PowerflowJobState job, long now, Collector<PlacementDecision> out, long[] count)
            throws Exception {
        out.collect(decision(job, DecisionAction.COMPLETE, job.getGpus(), job.getPowerLimitWatts(), now, null, count));
        jobs.remove(job.getJob().getId());
    }

    /** Asks the policy and emits what changed, in job index order. */
    private void decide(long now, OnTimerContext ctx, Collector<PlacementDecision> out, long[] count) throws Exception {
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
                    .build();
            jobs.put(j.getJob().getId(), changed);
            out.collect(
                    a.gpus() == 0
                            ? decision(j, action, before, j.getPowerLimitWatts(), now, null, count)
                            : decision(
                                    changed, action, a.gpus(), a.powerLimit(), now, expectedEnd(changed, now), count));
            if (truth != null && a.gpus() > 0) {
                GroundTruth.Outcome o = outcome(changed);
                double remaining = changed.getJob().getIterations() - changed.getIterationsDone();
                ctx.timerService().registerEventTimeTimer(now + (long) Math.ceil(remaining * o.stepTime() * 1000));
            }
        }
        if (truth != null) samplePower(now, ctx, count);
    }

    /**
     * Replay: the cluster's true power after a decision, to {@link #POWER}, and the idle GPUs' energy since the last
     * sample. Nodes on are {@code ceil(allocated / GPUs per node)}: with migration, power-of-two jobs pack nodes fully
     * (buddy allocation), and a node with no job is off.
     */
    private void samplePower(long now, OnTimerContext ctx, long[] count) throws Exception {
        double t = now / 1000.0;
        double[] last = clusterPower.value();
        double idleWatts = truth.config().gpu().idleWatts();
        int perNode = settings.gpusPerNode();
        double idle = last == null ? 0 : last[3] + (t - last[0]) * idleWatts * (last[2] * perNode - last[1]);
        int allocated = 0;
        double watts = 0;
        for (PowerflowJobState j : jobs.values())
            if (j.getGpus() > 0) {
                allocated += j.getGpus();
                watts += outcome(j).power();
            }
        int nodesOn = (allocated + perNode - 1) / perNode;
        watts += idleWatts * (nodesOn * perNode - allocated);
        clusterPower.update(new double[] {t, allocated, nodesOn, idle});
        ctx.output(
                POWER,
                PowerflowPowerSample.newBuilder()
                        .setTime(t)
                        .setWatts(watts)
                        .setGpusAllocated(allocated)
                        .setNodesOn(nodesOn)
                        .setIdleEnergyJoules(idle)
                        .setSeq(count[1])
                        .build());
    }

    private boolean ready(PowerflowJobState j, long now) {
        if (j.getFit() == null) return false;
        return j.getReplay() == null || j.getReplay().getReadyMillis() <= now;
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

    private GroundTruth.Outcome outcome(PowerflowJobState j) {
        return truth.at(j.getJob().getWorkload(), j.getGpus(), j.getJob().getGlobalBatch(), j.getPowerLimitWatts());
    }

    /** The profiling pre-run at submission: one GPU at every limit; the job is ready when it ends. */
    private PowerflowJobState profile(PowerflowJobState job, long now, OnTimerContext ctx) {
        PowerflowJob r = job.getJob();
        RandomState noise = RandomState.derive(settings.seed(), job.getIndex());
        JobModelState model = JobModels.empty(r.getId());
        double done = 0, energy = 0, t = now / 1000.0;
        for (double limit : settings.powerLimits()) {
            GroundTruth.Outcome o = truth.at(r.getWorkload(), 1, r.getGlobalBatch(), limit);
            double seconds = Math.min(settings.profileSecondsPerLimit(), (r.getIterations() - done) * o.stepTime());
            done += seconds / o.stepTime();
            energy += seconds * o.power();
            t += seconds;
            Configuration c = Configuration.of(1, settings.gpusPerNode(), r.getGlobalBatch(), settings.freq(limit));
            model = sample(model, c, o, noise, t, done, limit, ctx);
        }
        model = JobModels.fit(model, t, settings.freqLevels(), true);
        ctx.output(MODELS, model.getFit());
        // ready when the whole pre-run would have ended, as in the simulator, even if the job's work ended earlier
        long ready = now + (long) Math.ceil(settings.profileSecondsPerLimit() * settings.powerLimits().length * 1000);
        return PowerflowJobState.newBuilder(job)
                .setIterationsDone(done)
                .setFit(model.getFit())
                .setReplay(SimulatedJob.newBuilder()
                        .setReadyMillis(ready)
                        .setNoise(noise.state())
                        .setEnergyJoules(energy)
                        .setModel(model)
                        .build())
                .build();
    }

    /** One noisy telemetry sample of the true outcome, into the model's data and to {@link #TELEMETRY}. */
    private JobModelState sample(
            JobModelState model,
            Configuration c,
            GroundTruth.Outcome o,
            RandomState noise,
            double time,
            double done,
            double limit,
            OnTimerContext ctx) {
        double step = o.stepTime() * (1 + settings.telemetryNoise() * gaussian(noise));
        double energy = o.energyPerIteration() * (1 + settings.telemetryNoise() * gaussian(noise));
        step = Math.max(step, 1e-9);
        energy = Math.max(energy, 1e-9);
        ctx.output(
                TELEMETRY,
                Telemetry.newBuilder()
                        .setTime(time)
                        .setKind(TelemetryKind.JOB_PROGRESS)
                        .setJob(model.getJob())
                        .setIterationsDone(done)
                        .setStepSeconds(step)
                        .setGpuPowerWatts(energy / step)
                        .setGpus(c.gpus())
                        .setPowerLimitWatts(limit)
                        .setLocalBatch(c.localBatch())
                        .build());
        return JobModels.observe(model, c, step, energy);
    }

    private static double gaussian(RandomState noise) {
        double u = Math.max(noise.nextDouble(), 1e-300), v = noise.nextDouble();
        return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
    }

    /**
     * Runs the cluster from {@code from} to {@code to}: progress, energy and one sample per running job; completes the
     * jobs that end; refits models that saw a new configuration. Whether a decision is due (a completion, a refit at a
     * new GPU count, a profiling run that ended).
     */
    private boolean advance(long from, long to, OnTimerContext ctx, Collector<PlacementDecision> out, long[] count)
            throws Exception {
        List<PowerflowJobState> active = new ArrayList<>();
        for (Map.Entry<String, PowerflowJobState> e : jobs.entries()) active.add(e.getValue());
        active.sort(Comparator.comparingLong(PowerflowJobState::getIndex));
        boolean reschedule = false;
        double dt = (to - from) / 1000.0;
        for (PowerflowJobState j : active) {
            SimulatedJob sim = j.getReplay();
            if (sim.getReadyMillis() == to) {
                reschedule = true;
                if (j.getIterationsDone() >= (1 - DONE) * j.getJob().getIterations()) {
                    finish(j, to, ctx, out, count);
                    continue;
                }
            }
            if (j.getGpus() == 0) continue;
            GroundTruth.Outcome o = outcome(j);
            double iterations = j.getJob().getIterations();
            double done = Math.min(iterations, j.getIterationsDone() + dt / o.stepTime());
            RandomState noise = new RandomState(sim.getNoise());
            JobModelState model = sim.getModel();
            if (dt > 0) {
                Configuration c = configuration(j);
                int known = model.getConfigurations().size();
                boolean newGpus = JobModels.newGpuCount(model, c.gpus());
                model = sample(model, c, o, noise, to / 1000.0, done, j.getPowerLimitWatts(), ctx);
                if (model.getConfigurations().size() > known) {
                    model = JobModels.fit(model, to / 1000.0, settings.freqLevels(), newGpus);
                    ctx.output(MODELS, model.getFit());
                    reschedule |= newGpus;
                }
            }
            PowerflowJobState advanced = PowerflowJobState.newBuilder(j)
                    .setIterationsDone(done)
                    .setProgressMillis(to)
                    .setAttainedGpuSeconds(j.getAttainedGpuSeconds() + dt * j.getGpus())
                    .setFit(model.getFit())
                    .setReplay(SimulatedJob.newBuilder(sim)
                            .setNoise(noise.state())
                            .setEnergyJoules(sim.getEnergyJoules() + dt * o.power())
                            .setModel(model)
                            .build())
                    .build();
            double remainingSeconds = (iterations - done) * o.stepTime();
            if (remainingSeconds <= 0.001 + DONE * iterations * o.stepTime()) {
                finish(advanced, to, ctx, out, count);
                reschedule = true;
            } else {
                jobs.put(j.getJob().getId(), advanced);
            }
        }
        return reschedule;
    }

    /** Replay: a job's work is done; its completion, true energy and JCT go out and it leaves the state. */
    private void finish(
            PowerflowJobState j, long to, OnTimerContext ctx, Collector<PlacementDecision> out, long[] count)
            throws Exception {
        PowerflowJob r = j.getJob();
        double t = to / 1000.0;
        ctx.output(
                JOB_ENERGY,
                PowerflowJobEnergy.newBuilder()
                        .setTime(t)
                        .setJob(r.getId())
                        .setWorkload(r.getWorkload())
                        .setSubmit(r.getSubmit())
                        .setJctSeconds(t - r.getSubmit())
                        .setEnergyJoules(j.getReplay().getEnergyJoules())
                        .setSeq(count[1])
                        .build());
        complete(j, to, out, count);
        ctx.output(
                COMPLETIONS,
                JobCompleted.newBuilder()
                        .setTime(t)
                        .setJob(r.getId())
                        .setNode(null)
                        .setType(settings.gpuModel())
                        .setGpus(j.getGpus())
                        .setPolicy(PowerflowSettings.POLICY)
                        .setController(0)
                        .build());
    }
}
