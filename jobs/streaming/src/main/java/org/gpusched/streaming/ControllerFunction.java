package org.gpusched.streaming;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.formats.avro.typeutils.AvroTypeInfo;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;
import org.gpusched.core.policy.PlanStabilizer;
import org.gpusched.core.policy.Policies;
import org.gpusched.core.policy.SchedulingPolicy;
import org.gpusched.streaming.avro.JobCompleted;
import org.gpusched.streaming.avro.JobMetrics;
import org.gpusched.streaming.avro.PlacementDecision;
import org.gpusched.streaming.avro.SchedulingMetrics;
import org.gpusched.streaming.state.ControllerEvent;
import org.gpusched.streaming.state.ControllerState;
import org.gpusched.streaming.state.EventBatch;
import org.gpusched.streaming.state.JobRecord;

/**
 * One local controller of one policy (key "policy#k"), the Flink shell over plain-Java controller logic: it owns its
 * share of the nodes and the jobs dispatched to it, and reschedules on each submission, completion and node event and
 * every H. Input events are buffered until the watermark passes their time and then handled in {@link EventOrder}, so
 * the decisions do not depend on arrival order (Kafka and files give the same). At each timer it loads the key's
 * state into {@link ControllerFacts}, runs a {@link ControllerStep} (events applied by {@link EventApplier}, problems
 * built by {@link ProblemBuilder}, schedules turned into decisions by {@link ScheduleDiff}) with the random state kept
 * in Flink state, and writes back what changed. It emits only the changes (START, RESIZE, MIGRATE, PREEMPT) plus
 * COMPLETE when a job ends. In replay mode a job completes by an event-time timer at its real end (predicted time x
 * actualFactor); in live mode completions come from the completions topic and telemetry progress corrects the done
 * fraction.
 *
 * <p>State: {@link #PENDING} input events per timestamp, removed when the timestamp's timer fires; {@link #JOBS} the
 * waiting and running jobs, each removed when it completes; {@link #CONTROLLER} the nodes, time, costs, random
 * state and decision sequence (bounded by the node count, kept for the key's lifetime). Work per event follows what
 * changed: a running job's progress is linear in time from its record's {@code progressMillis} and is written down
 * only when its placement changes, and costs accrue at a rate kept per node as jobs come and go ({@link NodeLoad}).
 * Derived, not state: each key's jobs as working memory ({@link ActiveJobs}, dropped when the key is idle) and its
 * {@link Topology} (with the nodes' load), both rebuilt from state on demand.
 */
public final class ControllerFunction extends KeyedProcessFunction<String, ControllerEvent, PlacementDecision> {
    private static final long serialVersionUID = 1L;

    public static final OutputTag<SchedulingMetrics> SCHEDULING_METRICS =
            new OutputTag<>("scheduling-metrics", new AvroTypeInfo<>(SchedulingMetrics.class));
    public static final OutputTag<JobMetrics> JOB_METRICS =
            new OutputTag<>("job-metrics", new AvroTypeInfo<>(JobMetrics.class));
    public static final OutputTag<JobCompleted> COMPLETIONS =
            new OutputTag<>("completions", new AvroTypeInfo<>(JobCompleted.class));

    static final MapStateDescriptor<Long, EventBatch> PENDING =
            new MapStateDescriptor<>("controller-pending", Types.LONG, new AvroTypeInfo<>(EventBatch.class));
    static final MapStateDescriptor<String, JobRecord> JOBS =
            new MapStateDescriptor<>("controller-jobs", Types.STRING, new AvroTypeInfo<>(JobRecord.class));
    static final ValueStateDescriptor<ControllerState> CONTROLLER =
            new ValueStateDescriptor<>("controller-state", new AvroTypeInfo<>(ControllerState.class));

    private final SchedulerConfig config;
    private transient MapState<Long, EventBatch> pending;
    private transient MapState<String, JobRecord> jobsState;
    private transient ValueState<ControllerState> controllerState;
    private transient Map<String, SchedulingPolicy> policies;
    private transient ControllerFacts.Catalog catalog;
    /** Per key, its active jobs as working memory ({@link ActiveJobs}): a cache of {@link #JOBS}, rebuilt on demand. */
    private transient Map<String, ActiveJobs> activeJobs;
    /**
     * Per key, the cluster of its up nodes and what follows from it; a cache derived from state, dropped on the key's
     * node events and rebuilt on demand (so also after a restore), never read as the truth.
     */
    private transient Map<String, Topology> topologies;
    /** Carries out only the moves of running jobs that pay for themselves (null: plans as the policy gives them). */
    private transient PlanStabilizer stabilizer;

    public ControllerFunction(SchedulerConfig config) {
        this.config = config;
    }

    @Override
    public void open(OpenContext openContext) {
        pending = getRuntimeContext().getMapState(PENDING);
        jobsState = getRuntimeContext().getMapState(JOBS);
        controllerState = getRuntimeContext().getState(CONTROLLER);
        policies = new HashMap<>();
        for (String p : config.policies()) policies.put(p, Policies.create(p, config.policyConfig()));
        catalog = ControllerFacts.Catalog.of(config);
        activeJobs = new HashMap<>();
        topologies = new HashMap<>();
        stabilizer = config.stability() == SchedulerConfig.Stability.STABLE
                ? new PlanStabilizer(config.moveOverheadSeconds())
                : null;
    }

    @Override
    public void processElement(ControllerEvent event, Context ctx, Collector<PlacementDecision> out) throws Exception {
        EventOrder.holdUntilWatermark(event, pending, ctx.timerService());
    }

    /** One timer firing of one key: loads the state, runs the step on the events of the timestamp, stores. */
    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<PlacementDecision> out) throws Exception {
        String key = ctx.getCurrentKey();
        ControllerState s = controllerState.value();
        EventBatch batch = pending.get(timestamp);
        if (s != null
                && batch == null
                && s.getNextEndMillis() >= 0
                && timestamp < s.getNextEndMillis()
                && (s.getNextPeriodMillis() < 0 || timestamp < s.getNextPeriodMillis())) {
            // A stale timer (a job's end before it was moved, or a deleted period): nothing happens now. Progress and
            // costs are linear until the next real event, which accounts for this interval too.
            return;
        }
        int controller = ControllerKey.controller(key);
        if (s == null) s = ControllerFacts.initialState(config, controller);
        Set<String> dirty = new HashSet<>();
        ActiveJobs jobs = loadJobs(key, s, dirty);
        List<ControllerEvent> events = new ArrayList<>();
        if (batch != null) {
            pending.remove(timestamp);
            events.addAll(batch.getEvents());
            events.sort(EventOrder.ORDER);
        }
        String policy = ControllerKey.policy(key);
        // A late event (behind the controller's clock) is handled now: time never runs backwards.
        long now = Math.max(timestamp, s.getNowMillis());
        Effects effects = new Effects(ctx, out);
        ControllerFacts facts = new ControllerFacts(
                config, catalog, policy, controller, s, jobs, dirty, topologies.get(key), now, effects, effects);
        new ControllerStep(facts, policies.get(policy), stabilizer).run(events);
        if (facts.cachedTopology() == null) topologies.remove(key);
        else topologies.put(key, facts.cachedTopology());
        for (String id : facts.removed) jobsState.remove(id);
        for (String id : dirty) if (!facts.removed.contains(id)) jobsState.put(id, jobs.get(id).record);
        if (jobs.isEmpty()) activeJobs.remove(key);
        controllerState.update(s);
    }

    /** A step's outputs and timers: the function's collector, side outputs and timer service for the current key. */
    private final class Effects implements ControllerFacts.Output, ControllerFacts.Timers {
        private final OnTimerContext ctx;
        private final Collector<PlacementDecision> out;

        Effects(OnTimerContext ctx, Collector<PlacementDecision> out) {
            this.ctx = ctx;
            this.out = out;
        }

        @Override
        public void decision(PlacementDecision d) {
            out.collect(d);
        }

        @Override
        public void jobMetrics(JobMetrics m) {
            ctx.output(JOB_METRICS, m);
        }

        @Override
        public void completion(JobCompleted c) {
            ctx.output(COMPLETIONS, c);
        }

        @Override
        public void schedulingMetrics(SchedulingMetrics m) {
            ctx.output(SCHEDULING_METRICS, m);
        }

        @Override
        public void register(long millis) {
            ctx.timerService().registerEventTimeTimer(millis);
        }

        @Override
        public void delete(long millis) {
            ctx.timerService().deleteEventTimeTimer(millis);
        }

        @Override
        public boolean inputPendingAt(long millis) throws Exception {
            return pending.contains(millis);
        }
    }

    /** The key's working set of jobs, from the cache or, when missing (first use, after a restore), from state. */
    private ActiveJobs loadJobs(String key, ControllerState s, Set<String> dirty) throws Exception {
        ActiveJobs cached = activeJobs.get(key);
        if (cached != null) return cached;
        ActiveJobs loaded = new ActiveJobs();
        for (Map.Entry<String, JobRecord> e : jobsState.entries()) {
            JobRecord j = e.getValue();
            if (j.getProgressMillis() < 0) {
                // written before progress carried its own time: done held at the controller's clock
                j = ControllerFacts.copy(j);
                j.setProgressMillis(s.getNowMillis());
                dirty.add(j.getSpec().getId());
            }
            loaded.add(j);
        }
        activeJobs.put(key, loaded);
        return loaded;
    }

    /** For tests: the key's active jobs. */
    int activeJobs() throws Exception {
        int n = 0;
        for (String ignored : jobsState.keys()) n++;
        return n;
    }

    /** For tests: keys whose active jobs are held in working memory. */
    int keysWithJobsInMemory() {
        return activeJobs.size();
    }

    /** For tests: buffered timestamps of the key. */
    int pendingTimestamps() throws Exception {
        int n = 0;
        for (Long ignored : pending.keys()) n++;
        return n;
    }
}
