package org.gpusched.streaming;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
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
import org.gpusched.core.model.Cluster;
import org.gpusched.core.model.Job;
import org.gpusched.core.model.JobState;
import org.gpusched.core.model.JobTimes;
import org.gpusched.core.model.MoveCost;
import org.gpusched.core.model.Node;
import org.gpusched.core.model.NodeType;
import org.gpusched.core.model.Placement;
import org.gpusched.core.model.Schedule;
import org.gpusched.core.model.SchedulingProblem;
import org.gpusched.core.objective.ObjectiveFunction;
import org.gpusched.core.objective.RealCost;
import org.gpusched.core.policy.FreeNodePolicy;
import org.gpusched.core.policy.PlanStabilizer;
import org.gpusched.core.policy.Policies;
import org.gpusched.core.policy.SchedulingPolicy;
import org.gpusched.core.random.RandomState;
import org.gpusched.streaming.avro.DecisionAction;
import org.gpusched.streaming.avro.JobCompleted;
import org.gpusched.streaming.avro.JobMetrics;
import org.gpusched.streaming.avro.JobSubmitted;
import org.gpusched.streaming.avro.NodeEvent;
import org.gpusched.streaming.avro.PlacementDecision;
import org.gpusched.streaming.avro.SchedulingMetrics;
import org.gpusched.streaming.avro.Telemetry;
import org.gpusched.streaming.avro.TelemetryKind;
import org.gpusched.streaming.state.ControllerEvent;
import org.gpusched.streaming.state.ControllerState;
import org.gpusched.streaming.state.EventBatch;
import org.gpusched.streaming.state.JobRecord;
import org.gpusched.streaming.state.NodeSlot;

/**
 * One local controller of one policy (key "policy#k"): it owns its share of the nodes and the jobs dispatched to it,
 * and reschedules on each submission, completion and node event and every H. Input events are buffered until the
 * watermark passes their time and then handled in {@link EventOrder}, so the decisions do not depend on arrival
 * order (Kafka and files give the same). At each rescheduling it advances progress and real costs to the event
 * time, builds a {@link SchedulingProblem}, calls the policy with the random state kept in Flink state, and emits
 * only the changes (START, RESIZE, MIGRATE, PREEMPT) plus COMPLETE when a job ends. In replay mode a job completes
 * by an event-time timer at its real end (predicted time x actualFactor); in live mode completions come from the
 * completions topic and telemetry progress corrects the done fraction.
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

    /** Periodic ticks kept for a waiting job (with nothing running) after its due date; see Step.waitingJobMayStart. */
    static final long WAITING_TICKS_AFTER_DUE = 1000;
    /** Waiting jobs up to which f_OBJ is summed job by job; see Step.exactPricing. */
    static final int EXACT_PRICING_QUEUE = 2048;
    /** Jobs of the queue handed to a queue baseline at least at once; see Step.startOnFreeNodes. */
    static final int QUEUE_SLICE_MIN = 64;
    /** Waiting jobs per GPU of a key's up nodes that an optimizer is asked about at most; see Step.optimizerCandidates. */
    static final int OPTIMIZER_WINDOW_PER_GPU = 2;
    /** Waiting jobs an optimizer is asked about at least. */
    static final int OPTIMIZER_WINDOW_MIN = 256;

    static final MapStateDescriptor<Long, EventBatch> PENDING =
            new MapStateDescriptor<>("controller-pending", Types.LONG, new AvroTypeInfo<>(EventBatch.class));
    static final MapStateDescriptor<String, JobRecord> JOBS =
            new MapStateDescriptor<>("controller-jobs", Types.STRING, new AvroTypeInfo<>(JobRecord.class));
    static final ValueStateDescriptor<ControllerState> CONTROLLER =
            new ValueStateDescriptor<>("controller-state", new AvroTypeInfo<>(ControllerState.class));

    /** Largest done fraction the optimizer may see: the model requires done < 1 while a job still runs. */
    private static final double MAX_MODEL_DONE = 1 - 1e-6;

    private final SchedulerConfig config;
    private transient MapState<Long, EventBatch> pending;
    private transient MapState<String, JobRecord> jobsState;
    private transient ValueState<ControllerState> controllerState;
    private transient Map<String, SchedulingPolicy> policies;
    private transient List<NodeType> catalog;
    private transient Map<String, NodeType> typesByName;
    /** Type name to its index in the catalog, the index {@link JobTimes} rows use. */
    private transient Map<String, Integer> catalogIndex;
    /** Per key, its active jobs as working memory ({@link ActiveJobs}): a cache of {@link #JOBS}, rebuilt on demand. */
    private transient Map<String, ActiveJobs> activeJobs;
    /**
     * Per key, the cluster of its up nodes and what follows from it; a cache derived from state, dropped on the key's
     * node events and rebuilt on demand (so also after a restore), never read as the truth.
     */
    private transient Map<String, Topology> topologies;
    /** Carries out only the moves of running jobs that pay for themselves (null: plans as the policy gives them). */
    private transient PlanStabilizer stabilizer;
    /** What stopping a running job costs it: progress since its last snapshot and a restart. */
    private transient MoveCost moveCost;

    public ControllerFunction(SchedulerConfig config) {
        this.config = config;
    }

    @Override
    public void open(OpenContext openContext) {
        pending = getRuntimeContext().getMapState(PENDING);
        jobsState = getRuntimeContext().getMapState(JOBS);
        controllerState = getRuntimeContext().getState(CONTROLLER);
        policies = new HashMap<>();
        moveCost = config.moveCost();
        for (String p : config.policies()) policies.put(p, Policies.create(p, config.policyConfig()));
        catalog = config.cluster().types();
        typesByName = config.cluster().typesByName();
        catalogIndex = new HashMap<>();
        for (int t = 0; t < catalog.size(); t++) catalogIndex.put(catalog.get(t).name(), t);
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

    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<PlacementDecision> out) throws Exception {
        String key = ctx.getCurrentKey();
        Step step = new Step(ControllerKey.policy(key), ControllerKey.controller(key), ctx, out);
        step.run(timestamp);
    }

    /** One timer firing of one key: loads the state, applies the events of the timestamp, reschedules, stores. */
    private final class Step {
        final String policy;
        final int controller;
        final OnTimerContext ctx;
        final Collector<PlacementDecision> out;
        ControllerState s;
        ActiveJobs jobs;
        /** Jobs whose record this step replaced (their new record goes to state at the end) or created. */
        final Set<String> dirty = new HashSet<>();

        final Set<String> removed = new HashSet<>();
        final TreeSet<String> triggers = new TreeSet<>(Comparator.comparingInt(Step::triggerRank));
        long now;

        Step(String policy, int controller, OnTimerContext ctx, Collector<PlacementDecision> out) {
            this.policy = policy;
            this.controller = controller;
            this.ctx = ctx;
            this.out = out;
        }

        static int triggerRank(String t) {
            return switch (t) {
                case "COMPLETION" -> 0;
                case "NODE" -> 1;
                case "SUBMISSION" -> 3;
                case "PERIOD" -> 4;
                default -> 2;
            };
        }

        /**
         * Whether a waiting job's postponement penalty (rho x weight x worst-case tardiness) can still grow enough to
         * make the policy start it: weight > 0, and not more than {@value #WAITING_TICKS_AFTER_DUE} periods past its due
         * date (a safety stop, so a policy that never starts a job cannot keep a replay's final watermark firing).
         */
        boolean waitingJobMayStart() {
            long horizon = WAITING_TICKS_AFTER_DUE * config.periodMillis();
            for (ActiveJobs.Entry e : jobs.inOrder()) {
                JobRecord j = e.record;
                if (j.getNode() == null
                        && j.getSpec().getWeight() > 0
                        && now < (long) (j.getSpec().getDue() * 1000) + horizon) return true;
            }
            return false;
        }

        void run(long timestamp) throws Exception {
            s = controllerState.value();
            EventBatch batch = pending.get(timestamp);
            if (s != null
                    && batch == null
                    && s.getNextEndMillis() >= 0
                    && timestamp < s.getNextEndMillis()
                    && (s.getNextPeriodMillis() < 0 || timestamp < s.getNextPeriodMillis())) {
                // A stale timer (a job's end before it was moved, or a deleted period): nothing happens now. Progress
                // and costs are linear until the next real event, which accounts for this interval too.
                return;
            }
            if (s == null) s = initialState();
            jobs = loadJobs();
            // A late event (behind the controller's clock) is handled now: time never runs backwards.
            now = Math.max(timestamp, s.getNowMillis());
            advance();

            if (config.mode() == SchedulerConfig.Mode.REPLAY) {
                for (ActiveJobs.Entry e : jobs.endingBy(now)) complete(e, true);
            }
            if (batch != null) {
                pending.remove(timestamp);
                List<ControllerEvent> events = new ArrayList<>(batch.getEvents());
                events.sort(EventOrder.ORDER);
                for (ControllerEvent e : events) apply(e);
            }
            if (s.getNextPeriodMillis() >= 0 && now >= s.getNextPeriodMillis()) {
                if (!jobs.isEmpty()) triggers.add("PERIOD");
                s.setNextPeriodMillis(-1L);
            }
            if (!triggers.isEmpty()) reschedule();
            int running = jobs.runningCount();
            long nextEnd = jobs.nextEndMillis();
            // Periodic rescheduling while something runs, and while a job waits whose postponement penalty still grows:
            // a policy may postpone by choice (milp-relaxed) and only the passing of time makes it start the job.
            // Otherwise a tick would change nothing, and in replay it would keep the final watermark firing forever;
            // nor for a policy whose decisions a tick cannot change (the queue baselines).
            if (policies.get(policy).decidesOnTicks()
                    && !jobs.isEmpty()
                    && (running > 0 || waitingJobMayStart())
                    && s.getNextPeriodMillis() < 0) {
                long period = config.periodMillis();
                long next = (now / period + 1) * period;
                s.setNextPeriodMillis(next);
                ctx.timerService().registerEventTimeTimer(next);
            }
            if (jobs.isEmpty() && s.getNextPeriodMillis() >= 0) {
                // idle: no periodic rescheduling pending, so an idle key holds no timer. Timers are one per timestamp:
                // keep it when input events are buffered for that same time, or they would never be handled.
                if (!pending.contains(s.getNextPeriodMillis()))
                    ctx.timerService().deleteEventTimeTimer(s.getNextPeriodMillis());
                s.setNextPeriodMillis(-1L);
            }
            s.setNextEndMillis(config.mode() == SchedulerConfig.Mode.REPLAY ? nextEnd : -1L);
            for (String id : removed) jobsState.remove(id);
            for (String id : dirty) if (!removed.contains(id)) jobsState.put(id, jobs.get(id).record);
            if (jobs.isEmpty()) activeJobs.remove(ctx.getCurrentKey());
            controllerState.update(s);
        }

        /** The key's working set of jobs, from the cache or, when missing (first use, after a restore), from state. */
        ActiveJobs loadJobs() throws Exception {
            ActiveJobs cached = activeJobs.get(ctx.getCurrentKey());
            if (cached != null) return cached;
            ActiveJobs loaded = new ActiveJobs();
            for (Map.Entry<String, JobRecord> e : jobsState.entries()) {
                JobRecord j = e.getValue();
                if (j.getProgressMillis() < 0) {
                    // written before progress carried its own time: done held at the controller's clock
                    j = copy(j);
                    j.setProgressMillis(s.getNowMillis());
                    dirty.add(j.getSpec().getId());
                }
                loaded.add(j);
            }
            activeJobs.put(ctx.getCurrentKey(), loaded);
            return loaded;
        }

        ControllerState initialState() {
            List<NodeSlot> nodes = new ArrayList<>();
            List<SchedulerConfig.NodeSpec> configured = config.nodes();
            for (int i = 0; i < configured.size(); i++) {
                if (config.controllerOfNode(i) != controller) continue;
                SchedulerConfig.NodeSpec n = configured.get(i);
                nodes.add(new NodeSlot(n.id(), n.fixedType(), new ArrayList<>(n.allowedTypes()), null, true));
            }
            return ControllerState.newBuilder()
                    .setNowMillis(Long.MIN_VALUE)
                    .setRandomState(
                            RandomState.derive(config.seed(), controller).state())
                    .setAccruedExecutionCost(0)
                    .setAccruedTardinessCost(0)
                    .setCompletedJobs(0)
                    .setNextPeriodMillis(-1)
                    .setSeq(0)
                    .setNextEndMillis(-1)
                    .setNodes(nodes)
                    .build();
        }

        /**
         * Real node cost from the controller's clock to now, at the rate of the placements that held meanwhile. Progress
         * needs no update: a running job's done fractions are linear in time from its progressMillis (see {@link
         * #modelDone}), and are written down only when its placement changes.
         */
        void advance() {
            long from = s.getNowMillis();
            s.setNowMillis(now);
            if (from == Long.MIN_VALUE || now <= from) return;
            Topology topology = jobs.isEmpty() ? null : topology();
            double rate = topology == null ? 0 : topology.load.costPerSecond();
            s.setAccruedExecutionCost(s.getAccruedExecutionCost() + rate * ((now - from) / 1000.0));
        }

        /** The predicted done fraction now: the recorded one plus linear progress on the current placement since. */
        double modelDone(ActiveJobs.Entry e) {
            JobRecord j = e.record;
            if (j.getNode() == null || now <= j.getProgressMillis()) return j.getModelDone();
            return j.getModelDone() + (now - j.getProgressMillis()) / 1000.0 / predictedSeconds(e);
        }

        /**
         * The job as the optimizer sees it, with what moving it would cost ({@link MoveCost}): a running job would lose
         * its progress since its last snapshot and restore it; a job preempted before would restore its snapshot.
         */
        JobState jobState(ActiveJobs.Entry e, Placement current) {
            double done = optimizerDone(e);
            if (e.record.getFirstStart() == null || moveCost.isFree()) return new JobState(model(e), done, current);
            double ifRestarted = done;
            if (current != null && e.record.getRunStartMillis() >= 0) {
                long lost = moveCost.lostMillis(now - e.record.getRunStartMillis());
                ifRestarted = Math.max(0, done - lost / 1000.0 / predictedSeconds(e));
            }
            return new JobState(model(e), done, current, ifRestarted, moveCost.restartOverheadSeconds());
        }

        /** Restart seconds a waiting job pays when it starts: a job preempted before restores its snapshot. */
        double restartSeconds(ActiveJobs.Entry e) {
            return e.record.getFirstStart() == null ? 0 : moveCost.restartOverheadSeconds();
        }

        /** The done fraction the optimizer sees: the predicted one, kept below 1 while the job still runs. */
        double optimizerDone(ActiveJobs.Entry e) {
            return Math.min(modelDone(e), MAX_MODEL_DONE);
        }

        /** The true done fraction now (replay: the actual duration is the predicted one times actualFactor). */
        double done(ActiveJobs.Entry e) {
            JobRecord j = e.record;
            if (j.getNode() == null || now <= j.getProgressMillis()) return j.getDone();
            return j.getDone() + (now - j.getProgressMillis()) / 1000.0 / (predictedSeconds(e) * factor(j));
        }

        /**
         * The job's record, writable: a copy replacing it on its first change in this step (the stored one may be in
         * an asynchronous snapshot), with its progress written down to now on the placement it had until now.
         */
        JobRecord writable(ActiveJobs.Entry e) {
            String id = e.record.getSpec().getId();
            if (dirty.add(id)) {
                JobRecord j = copy(e.record);
                j.setDone(done(e));
                j.setModelDone(modelDone(e));
                // a job still restoring its snapshot starts progressing later than now
                j.setProgressMillis(Math.max(now, e.record.getProgressMillis()));
                jobs.replace(e, j);
            }
            e.changed();
            return e.record;
        }

        void apply(ControllerEvent e) {
            switch (e.getKind()) {
                case SUBMISSION -> {
                    JobSubmitted spec = e.getSubmitted();
                    if (jobs.contains(spec.getId())) return;
                    jobs.add(JobRecord.newBuilder()
                            .setSpec(spec)
                            .setDone(0)
                            .setModelDone(0)
                            .setProgressMillis(now)
                            .setNode(null)
                            .setType(null)
                            .setGpus(0)
                            .setEndMillis(-1)
                            .setFirstStart(null)
                            .setPreemptions(0)
                            .setMigrations(0)
                            .setResizes(0)
                            .build());
                    dirty.add(spec.getId());
                    triggers.add("SUBMISSION");
                }
                case COMPLETION -> {
                    ActiveJobs.Entry j = jobs.get(e.getId());
                    if (j != null) complete(j, false);
                }
                case TELEMETRY -> telemetry(e.getTelemetry());
                case NODE -> node(e.getNodeEvent());
            }
        }

        void telemetry(Telemetry t) {
            if (t.getKind() != TelemetryKind.JOB_PROGRESS) return;
            ActiveJobs.Entry e = jobs.get(t.getJob());
            if (e == null) return;
            JobRecord j = writable(e);
            // Measured progress replaces both views: it is the truth the prediction drifted from.
            j.setDone(t.getProgress());
            j.setModelDone(t.getProgress());
            if (j.getNode() != null && config.mode() == SchedulerConfig.Mode.REPLAY) setEnd(e);
            if (j.getNode() == null) jobs.refigure(e);
        }

        void node(NodeEvent ev) {
            topologies.remove(ctx.getCurrentKey());
            List<NodeSlot> nodes = s.getNodes();
            NodeSlot slot = null;
            for (NodeSlot n : nodes) if (n.getId().equals(ev.getNode())) slot = n;
            switch (ev.getKind()) {
                case ADDED -> {
                    if (slot == null) {
                        nodes.add(new NodeSlot(
                                ev.getNode(), ev.getType(), new ArrayList<>(ev.getAllowedTypes()), null, true));
                    } else {
                        slot.setUp(true);
                        slot.setFixedType(ev.getType());
                        slot.setAllowedTypes(new ArrayList<>(ev.getAllowedTypes()));
                    }
                }
                case REMOVED, FAILED, TYPE_CHANGED -> {
                    if (slot == null) return;
                    String reason = "node " + ev.getNode() + " "
                            + ev.getKind().name().toLowerCase().replace('_', ' ');
                    List<ActiveJobs.Entry> onNode = new ArrayList<>();
                    for (ActiveJobs.Entry j : jobs.inOrder())
                        if (ev.getNode().equals(j.record.getNode())) onNode.add(j);
                    for (ActiveJobs.Entry j : onNode) preempt(j, reason);
                    slot.setCurrentType(null);
                    switch (ev.getKind()) {
                        case REMOVED -> nodes.remove(slot);
                        case FAILED -> slot.setUp(false);
                        default -> {
                            slot.setFixedType(ev.getType());
                            slot.setAllowedTypes(new ArrayList<>());
                        }
                    }
                }
            }
            triggers.add("NODE");
        }

        void preempt(ActiveJobs.Entry e, String reason) {
            JobRecord j = writable(e);
            emit(decision(j, DecisionAction.PREEMPT, j.getNode(), j.getType(), j.getGpus(), null, null, null)
                    .setReason(reason)
                    .build());
            stop(e);
        }

        /** A running job stops where it is and waits (its record is writable already). */
        void stop(ActiveJobs.Entry e) {
            JobRecord j = e.record;
            loseSinceSnapshot(e);
            moved(j.getNode(), j.getType(), -j.getGpus());
            j.setNode(null);
            j.setType(null);
            j.setGpus(0);
            j.setEndMillis(-1L);
            j.setRunStartMillis(-1L);
            j.setPreemptions(j.getPreemptions() + 1);
            jobs.reindex(e);
        }

        /**
         * A running job leaving its placement (preempted, migrated or resized; its record is writable, its progress
         * written down to now) falls back to its last snapshot ({@link MoveCost}): both its true and its predicted
         * done fractions lose the progress made on the placement since then.
         */
        void loseSinceSnapshot(ActiveJobs.Entry e) {
            JobRecord j = e.record;
            long lost = moveCost.lostMillis(now - j.getRunStartMillis());
            if (j.getRunStartMillis() < 0 || lost == 0) return;
            double predicted = predictedSeconds(e);
            j.setDone(Math.max(0, j.getDone() - lost / 1000.0 / (predicted * factor(j))));
            j.setModelDone(Math.max(0, j.getModelDone() - lost / 1000.0 / predicted));
            e.changed();
        }

        /** A job ends now: COMPLETE decision, its tardiness cost, job metrics and (replay) the completion record. */
        void complete(ActiveJobs.Entry e, boolean simulated) {
            JobRecord j = e.record;
            JobSubmitted spec = j.getSpec();
            double t = now / 1000.0;
            if (j.getNode() != null) {
                emit(decision(j, DecisionAction.COMPLETE, j.getNode(), j.getType(), j.getGpus(), null, t, null)
                        .build());
                moved(j.getNode(), j.getType(), -j.getGpus());
            }
            double tardiness = RealCost.tardinessCost(spec.getWeight(), t, spec.getDue());
            s.setAccruedTardinessCost(s.getAccruedTardinessCost() + tardiness);
            s.setCompletedJobs(s.getCompletedJobs() + 1);
            ctx.output(
                    JOB_METRICS,
                    JobMetrics.newBuilder()
                            .setTime(t)
                            .setJob(spec.getId())
                            .setPolicy(policy)
                            .setController(controller)
                            .setSubmit(spec.getSubmit())
                            .setDue(spec.getDue())
                            .setWeight(spec.getWeight())
                            .setFirstStart(j.getFirstStart())
                            .setJctSeconds(t - spec.getSubmit())
                            .setTardinessSeconds(Math.max(0, t - spec.getDue()))
                            .setTardinessCost(tardiness)
                            .setPreemptions(j.getPreemptions())
                            .setMigrations(j.getMigrations())
                            .setResizes(j.getResizes())
                            .setActualFactor(factor(j))
                            .build());
            if (simulated) {
                ctx.output(
                        COMPLETIONS,
                        JobCompleted.newBuilder()
                                .setTime(t)
                                .setJob(spec.getId())
                                .setNode(j.getNode())
                                .setType(j.getType())
                                .setGpus(j.getNode() == null ? null : j.getGpus())
                                .setPolicy(policy)
                                .setController(controller)
                                .build());
            }
            jobs.remove(spec.getId());
            removed.add(spec.getId());
            triggers.add("COMPLETION");
        }

        /** Calls the policy (unless its schedule would be the current one), applies it and emits the scheduling metrics. */
        void reschedule() {
            long nanos = 0;
            double objective = 0;
            List<PlacementDecision> changes = new ArrayList<>();
            Topology topology = jobs.isEmpty() ? null : topology();
            SchedulingPolicy scheduler = policies.get(policy);
            if (topology != null) rankWaiting(topology, scheduler);
            if (topology != null && scheduler.startsOnlyOnFreeNodes() && nothingToStart(topology)) {
                objective = keptObjective(topology);
                updateNodeTypes(topology, n -> topology.currentType[n]);
            } else if (topology != null && scheduler instanceof FreeNodePolicy free) {
                Call call = startOnFreeNodes(topology, free, changes);
                objective = call.objective;
                nanos = call.nanos;
            } else if (topology != null) {
                Cluster cluster = topology.cluster;
                List<ActiveJobs.Entry> candidates = optimizerCandidates(topology);
                List<JobState> states = new ArrayList<>(candidates.size());
                List<JobTimes> tables = new ArrayList<>(candidates.size());
                for (ActiveJobs.Entry e : candidates) {
                    JobRecord j = e.record;
                    Placement current = j.getNode() == null
                            ? null
                            : new Placement(e.nodeIndex(cluster), e.typeIndex(cluster), j.getGpus());
                    states.add(jobState(e, current));
                    tables.add(e.times);
                }
                if (!candidates.isEmpty()) {
                    double beyondWindow = postponedBeyond(candidates);
                    SchedulingProblem problem = SchedulingProblem.ofDistinctJobs(
                            now / 1000.0, cluster, states, tables, topology.currentType, config.objective());
                    RandomState random = new RandomState(s.getRandomState());
                    long start = System.nanoTime();
                    Schedule schedule = scheduler.schedule(problem, random);
                    if (stabilizer != null) schedule = stabilizer.stabilize(problem, schedule, movesSoFar(candidates));
                    nanos = System.nanoTime() - start;
                    s.setRandomState(random.state());
                    objective = schedule.objective() + beyondWindow;
                    applySchedule(cluster, candidates, schedule, changes);
                    updateNodeTypes(topology, schedule::nodeType);
                }
            }
            changes.forEach(this::emit);
            int running = jobs.runningCount();
            Topology placed = running == 0 ? null : topology();
            ctx.output(
                    SCHEDULING_METRICS,
                    SchedulingMetrics.newBuilder()
                            .setTime(now / 1000.0)
                            .setPolicy(policy)
                            .setController(controller)
                            .setTrigger(String.join("+", triggers))
                            .setFObj(objective)
                            .setOptimizerNanos(nanos)
                            .setQueueLength(jobs.size() - running)
                            .setRunning(running)
                            .setDecisions(changes.size())
                            .setAccruedExecutionCost(s.getAccruedExecutionCost())
                            .setAccruedTardinessCost(s.getAccruedTardinessCost())
                            .setCompletedJobs(s.getCompletedJobs())
                            .setBusyGpus(placed == null ? 0 : placed.load.busyGpus())
                            .setCostRatePerHour(placed == null ? 0 : placed.load.costPerSecond() * 3600.0)
                            .build());
        }

        /** A policy call's f_OBJ and wall time. */
        private record Call(double objective, long nanos) {}

        /**
         * For a {@link FreeNodePolicy}: the policy is given waiting jobs alone, with the nodes the running jobs hold,
         * and the running jobs keep their placements. The queue is handed over from its head in slices, each with the
         * nodes the slices before it took, until no node is free or the queue ends: the policy serves jobs in queue
         * order one whole free node each, so this starts exactly the jobs one call over the whole queue starts, and
         * an event costs the head it reads rather than the backlog. f_OBJ is summed over every job as {@link
         * #keptObjective} sums it, so it is the value the call over the whole problem returns.
         */
        Call startOnFreeNodes(Topology topology, FreeNodePolicy policy, List<PlacementDecision> changes) {
            Cluster cluster = topology.cluster;
            int[] held = new int[cluster.nodeCount()];
            java.util.Arrays.fill(held, -1);
            for (ActiveJobs.Entry e : jobs.runningInOrder()) {
                if (priced(e, cluster).runnable) held[e.nodeIndex(cluster)] = e.typeIndex(cluster);
            }
            int free = 0;
            for (int type : held) if (type == -1) free++;
            Map<ActiveJobs.Entry, Placement> started = new java.util.IdentityHashMap<>();
            long nanos = 0;
            java.util.Iterator<ActiveJobs.Entry> queue =
                    jobs.waitingInRankOrder().iterator();
            while (free > 0 && queue.hasNext()) {
                List<ActiveJobs.Entry> slice = new ArrayList<>();
                List<JobState> waiting = new ArrayList<>();
                List<JobTimes> tables = new ArrayList<>();
                int size = Math.max(QUEUE_SLICE_MIN, 2 * free);
                while (slice.size() < size && queue.hasNext()) {
                    ActiveJobs.Entry e = queue.next();
                    slice.add(e);
                    waiting.add(jobState(e, null));
                    tables.add(e.times);
                }
                SchedulingProblem problem = SchedulingProblem.ofDistinctJobs(
                        now / 1000.0, cluster, waiting, tables, topology.currentType, config.objective());
                long start = System.nanoTime();
                Placement[] placed = policy.startOnFreeNodes(problem, held);
                nanos += System.nanoTime() - start;
                for (int i = 0; i < placed.length; i++) {
                    if (placed[i] == null) continue;
                    started.put(slice.get(i), placed[i]);
                    held[placed[i].node()] = placed[i].type();
                    free--;
                }
            }
            if (jobs.runningCount() == 0 && jobs.queuedCount() == 0) return new Call(0, nanos);
            double objective = Double.NaN;
            if (exactPricing()) {
                ObjectiveFunction.Sum sum =
                        new ObjectiveFunction.Sum(config.objective(), cluster, now / 1000.0, jobs.size());
                for (ActiveJobs.Entry e : jobs.inOrder()) {
                    if (priced(e, cluster).runnable) price(sum, cluster, e, e.running() ? null : started.get(e));
                }
                objective = sum.total(held);
            }
            List<ActiveJobs.Entry> startedInOrder = new ArrayList<>(started.keySet());
            startedInOrder.sort(Comparator.comparing(e -> e.record, ActiveJobs.ORDER));
            Placement[] placements = new Placement[startedInOrder.size()];
            for (int i = 0; i < placements.length; i++) placements[i] = started.get(startedInOrder.get(i));
            Schedule schedule = new Schedule(placements, held, objective);
            applySchedule(cluster, startedInOrder, schedule, changes);
            updateNodeTypes(topology, schedule::nodeType);
            return new Call(Double.isNaN(objective) ? keptObjective(topology) : objective, nanos);
        }

        /**
         * For a policy that only starts waiting jobs on free nodes: whether no job that some up node can run waits,
         * or no up node is free, so that its schedule would be the current placements. False with no such job at
         * all, which the general path handles (it calls no policy then either).
         */
        boolean nothingToStart(Topology topology) {
            int usedNodes = topology.load.usedNodes();
            if (usedNodes == topology.cluster.nodeCount()) return true;
            if (jobs.queuedCount() > 0) return false;
            return usedNodes > 0;
        }

        /**
         * f_OBJ of the current placements, summed over the jobs as {@link #reschedule} hands them to the policy (same
         * jobs, order and figures), so it is the value the policy would have returned for keeping them.
         */
        double keptObjective(Topology topology) {
            Cluster cluster = topology.cluster;
            ObjectiveFunction.Sum sum =
                    new ObjectiveFunction.Sum(config.objective(), cluster, now / 1000.0, jobs.size());
            if (!exactPricing()) {
                for (ActiveJobs.Entry e : jobs.runningInOrder()) {
                    if (priced(e, cluster).runnable) price(sum, cluster, e, null);
                }
                return sum.total(topology.currentType) + jobs.postponedPenalty(now / 1000.0);
            }
            for (ActiveJobs.Entry e : jobs.inOrder()) {
                if (priced(e, cluster).runnable) price(sum, cluster, e, null);
            }
            return sum.total(topology.currentType);
        }

        /**
         * Whether f_OBJ is summed job by job in submission order, the order a policy sums it in (to the bit), or, with
         * more than {@value #EXACT_PRICING_QUEUE} jobs waiting, as the running jobs' terms plus the queue's summed
         * postponement terms ({@link ActiveJobs#postponedPenalty}), which agree to rounding and cost no walk over the queue.
         */
        boolean exactPricing() {
            return jobs.size() - jobs.runningCount() <= EXACT_PRICING_QUEUE;
        }

        /**
         * Ranks the key's waiting jobs for the policy on the topology's cluster: a queue baseline's own queue order,
         * else the optimizers' pressure (ANDREAS eq. 2, most urgent first; the order among waiting jobs does not
         * change with time), with each one's postponement term.
         */
        void rankWaiting(Topology topology, SchedulingPolicy scheduler) {
            Cluster cluster = topology.cluster;
            double horizon = config.objective().horizonSeconds();
            FreeNodePolicy queue = scheduler instanceof FreeNodePolicy free ? free : null;
            jobs.rankFor(
                    cluster,
                    e -> {
                        if (!priced(e, cluster).runnable) return false;
                        double left = 1 - Math.min(e.record.getModelDone(), MAX_MODEL_DONE);
                        e.waitRank = queue != null
                                ? queue.queueKey(model(e))
                                : e.dueSeconds - e.times.fastest(cluster) * left;
                        e.penaltyWeight = e.weightPerHour;
                        e.penaltyOffset = horizon + e.slowestSeconds * left - e.dueSeconds;
                        return true;
                    },
                    config.objective().rho());
        }

        /**
         * The jobs an optimizer is asked about: every runnable job in submission order while at most the window's
         * count of jobs wait ({@link Topology#optimizerWindow}), else the running jobs and the window's most urgent
         * waiting ones. A schedule places at most one job per GPU, so jobs further down a longer queue could only take
         * what the urgent ones leave; they stay postponed and are priced by {@link #postponedBeyond}.
         */
        List<ActiveJobs.Entry> optimizerCandidates(Topology topology) {
            Cluster cluster = topology.cluster;
            List<ActiveJobs.Entry> candidates = new ArrayList<>();
            if (jobs.queuedCount() <= topology.optimizerWindow) {
                for (ActiveJobs.Entry e : jobs.inOrder()) {
                    if (priced(e, cluster).runnable)
                        candidates.add(e); // else it waits until a node that can run it comes (back)
                }
                return candidates;
            }
            for (ActiveJobs.Entry e : jobs.runningInOrder()) if (priced(e, cluster).runnable) candidates.add(e);
            for (ActiveJobs.Entry e : jobs.waitingInRankOrder()) {
                if (candidates.size() >= jobs.runningCount() + topology.optimizerWindow) break;
                candidates.add(e);
            }
            candidates.sort(Comparator.comparing(e -> e.record, ActiveJobs.ORDER));
            return candidates;
        }

        /** Per candidate, how often it was moved already (preempted, migrated or resized). */
        int[] movesSoFar(List<ActiveJobs.Entry> candidates) {
            int[] moves = new int[candidates.size()];
            for (int i = 0; i < moves.length; i++) {
                JobRecord j = candidates.get(i).record;
                moves[i] = j.getPreemptions() + j.getMigrations() + j.getResizes();
            }
            return moves;
        }

        /** f_OBJ's postponement terms of the runnable waiting jobs not among {@code candidates} (0 when none is left out). */
        double postponedBeyond(List<ActiveJobs.Entry> candidates) {
            int waitingCandidates = 0;
            for (ActiveJobs.Entry e : candidates) if (!e.running()) waitingCandidates++;
            if (waitingCandidates == jobs.queuedCount()) return 0;
            Cluster cluster = topologies.get(ctx.getCurrentKey()).cluster;
            ObjectiveFunction.Sum inWindow = new ObjectiveFunction.Sum(config.objective(), cluster, now / 1000.0, 1);
            for (ActiveJobs.Entry e : candidates) if (!e.running()) price(inWindow, cluster, e, null);
            return Math.max(0, jobs.postponedPenalty(now / 1000.0) - inWindow.total(new int[0]));
        }

        /**
         * Adds job {@code e} to f_OBJ with the figures a problem would give it: where it runs (then {@code started} is
         * not read), else at {@code started} (a waiting job the policy starts), else as postponed.
         */
        void price(ObjectiveFunction.Sum sum, Cluster cluster, ActiveJobs.Entry e, Placement started) {
            double left = 1 - optimizerDone(e);
            if (e.running()) {
                // its time table's time on its placement: the cluster's type indices are the catalog's
                sum.scheduled(
                        e.weightPerHour,
                        e.dueSeconds,
                        predictedSeconds(e) * left,
                        e.nodeIndex(cluster),
                        e.typeIndex(cluster),
                        e.record.getGpus());
            } else if (started == null) {
                sum.postponed(e.weightPerHour, e.dueSeconds, e.slowestSeconds * left);
            } else {
                sum.scheduled(
                        e.weightPerHour,
                        e.dueSeconds,
                        e.times.seconds(started.type(), started.gpus()) * left + restartSeconds(e),
                        started);
            }
        }

        /** The key's cached topology, or a new one from the up nodes in state (after a node event or a restore); null when none is up. */
        Topology topology() {
            String key = ctx.getCurrentKey();
            Topology topology = topologies.get(key);
            if (topology == null || topology.slots != s.getNodes().size()) {
                List<NodeSlot> slots = s.getNodes();
                List<Node> nodes = new ArrayList<>(slots.size());
                int[] slotOfNode = new int[slots.size()];
                for (int i = 0; i < slots.size(); i++) {
                    NodeSlot n = slots.get(i);
                    if (!n.getUp()) continue;
                    slotOfNode[nodes.size()] = i;
                    nodes.add(new Node(n.getId(), n.getFixedType(), n.getAllowedTypes()));
                }
                if (nodes.isEmpty()) return null; // no node is up: nothing can be scheduled
                Cluster cluster = new Cluster(catalog, nodes);
                topology = new Topology(cluster, slots.size(), java.util.Arrays.copyOf(slotOfNode, nodes.size()));
                for (int n = 0; n < nodes.size(); n++) {
                    String t = slots.get(topology.slotOfNode[n]).getCurrentType();
                    topology.currentType[n] = t == null ? -1 : cluster.typeIndex(t);
                }
                for (ActiveJobs.Entry e : jobs.inOrder()) {
                    if (e.running()) topology.load.add(e.nodeIndex(cluster), e.typeIndex(cluster), e.record.getGpus());
                }
                topologies.put(key, topology);
            }
            return topology;
        }

        /**
         * A job of {@code gpus} GPUs came to this node as this type (negative: left it): the node's load changes, and
         * its type is checked at the next update of node types. Without a topology nothing is kept: the next one is
         * built from the jobs as they are then.
         */
        void moved(String node, String type, int gpus) {
            Topology topology = topologies.get(ctx.getCurrentKey());
            if (topology == null) return;
            int n = topology.cluster.nodeIndex(node);
            topology.load.add(n, topology.cluster.typeIndex(type), gpus);
            topology.touched.add(n);
        }

        /**
         * The type each up node runs as after the schedule: the type the policy gave it ({@code scheduledType}) while
         * it hosts jobs, else none. Only nodes some placement changed on since the last update can change (all of
         * them after a rebuild).
         */
        void updateNodeTypes(Topology topology, java.util.function.IntUnaryOperator scheduledType) {
            Cluster cluster = topology.cluster;
            List<NodeSlot> slots = s.getNodes();
            java.util.function.IntConsumer update = n -> {
                int t = scheduledType.applyAsInt(n);
                int type = topology.load.used(n) && t >= 0 ? t : -1;
                if (type != topology.currentType[n]) {
                    topology.currentType[n] = type;
                    slots.get(topology.slotOfNode[n])
                            .setCurrentType(type < 0 ? null : cluster.type(type).name());
                }
            };
            if (topology.allTouched) {
                for (int n = 0; n < cluster.nodeCount(); n++) update.accept(n);
            } else {
                for (int n : topology.touched) update.accept(n);
            }
            topology.touched.clear();
            topology.allTouched = false;
        }

        void applySchedule(
                Cluster cluster,
                List<ActiveJobs.Entry> candidates,
                Schedule schedule,
                List<PlacementDecision> changes) {
            List<PlacementDecision> preempt = new ArrayList<>();
            List<PlacementDecision> resize = new ArrayList<>();
            List<PlacementDecision> migrate = new ArrayList<>();
            List<PlacementDecision> start = new ArrayList<>();
            double t = now / 1000.0;
            for (int i = 0; i < candidates.size(); i++) {
                ActiveJobs.Entry e = candidates.get(i);
                Placement p = schedule.placement(i);
                String oldNode = e.record.getNode();
                if (p == null) {
                    if (oldNode != null) {
                        JobRecord j = writable(e);
                        preempt.add(
                                decision(j, DecisionAction.PREEMPT, oldNode, j.getType(), j.getGpus(), null, null, null)
                                        .build());
                        stop(e);
                    }
                    continue;
                }
                String node = cluster.node(p.node()).id();
                String type = cluster.type(p.type()).name();
                boolean sameNode = node.equals(oldNode);
                if (sameNode && type.equals(e.record.getType()) && p.gpus() == e.record.getGpus()) continue;
                DecisionAction action = oldNode == null
                        ? DecisionAction.START
                        : sameNode ? DecisionAction.RESIZE : DecisionAction.MIGRATE;
                JobRecord j = writable(e);
                if (oldNode != null) {
                    loseSinceSnapshot(e);
                    moved(oldNode, j.getType(), -j.getGpus());
                }
                moved(node, type, p.gpus());
                boolean restart = oldNode != null || j.getFirstStart() != null;
                long progressFrom = now + (restart ? moveCost.restartOverheadMillis() : 0);
                j.setNode(node);
                j.setType(type);
                j.setGpus(p.gpus());
                j.setProgressMillis(progressFrom);
                j.setRunStartMillis(progressFrom);
                e.changed();
                if (j.getFirstStart() == null) j.setFirstStart(t);
                if (action == DecisionAction.RESIZE) j.setResizes(j.getResizes() + 1);
                if (action == DecisionAction.MIGRATE) j.setMigrations(j.getMigrations() + 1);
                if (config.mode() == SchedulerConfig.Mode.REPLAY) setEnd(e);
                jobs.reindex(e);
                double remaining = model(e).timeOn(type, p.gpus()) * (1 - optimizerDone(e));
                double expectedEnd = progressFrom / 1000.0 + remaining;
                double expectedCost = remaining / 3600.0 * typesByName.get(type).costPerHour(p.gpus())
                        + RealCost.tardinessCost(
                                j.getSpec().getWeight(),
                                expectedEnd,
                                j.getSpec().getDue());
                PlacementDecision d = decision(
                                j, action, node, type, p.gpus(), sameNode ? null : oldNode, expectedEnd, expectedCost)
                        .build();
                (action == DecisionAction.START ? start : action == DecisionAction.RESIZE ? resize : migrate).add(d);
            }
            // Releases first, so a reader applying decisions in order never sees a node over capacity.
            resize.sort(Comparator.comparingInt(PlacementDecision::getGpus));
            changes.addAll(preempt);
            changes.addAll(resize);
            changes.addAll(migrate);
            changes.addAll(start);
        }

        /** Replay: the real end of a running job on its placement, and a timer for it (its progress is as of now). */
        void setEnd(ActiveJobs.Entry e) {
            JobRecord j = e.record;
            double actualRemaining =
                    model(e).timeOn(j.getType(), j.getGpus()) * factor(j) * Math.max(0, 1 - j.getDone());
            long from = Math.max(now, j.getProgressMillis());
            long end = from + Math.max(1, (long) Math.ceil(actualRemaining * 1000 - 1e-6));
            j.setEndMillis(end);
            jobs.reindex(e);
            ctx.timerService().registerEventTimeTimer(end);
        }

        PlacementDecision.Builder decision(
                JobRecord j,
                DecisionAction action,
                String node,
                String type,
                int gpus,
                String previousNode,
                Double expectedCompletion,
                Double expectedCost) {
            return PlacementDecision.newBuilder()
                    .setTime(now / 1000.0)
                    .setJob(j.getSpec().getId())
                    .setAction(action)
                    .setNode(node)
                    .setType(type)
                    .setGpus(gpus)
                    .setPreviousNode(previousNode)
                    .setExpectedCompletion(expectedCompletion)
                    .setExpectedCost(expectedCost)
                    .setPolicy(policy)
                    .setController(controller)
                    .setSeq(0)
                    .setReason(null);
        }

        void emit(PlacementDecision d) {
            s.setSeq(s.getSeq() + 1);
            d.setSeq(s.getSeq());
            out.collect(d);
        }
    }

    /**
     * A key's cluster of up nodes and a mirror of their current types. Derived from state and dropped on the key's
     * node events.
     */
    private static final class Topology {
        final Cluster cluster;
        /** Node slots in state when built (up or not): a different count means the node list changed under it. */
        final int slots;
        /** Per up node (cluster index), its position in the state's node list. */
        final int[] slotOfNode;
        /** Per up node, the catalog index of the type it runs as, or -1: the same as its slot's currentType. */
        final int[] currentType;

        final NodeLoad load;
        /** Up nodes where a placement changed since the node types were last updated. */
        final Set<Integer> touched = new TreeSet<>();
        /** Built afresh: every node's type is checked at the next update. */
        boolean allTouched = true;
        /** Waiting jobs an optimizer is asked about at most: {@value #OPTIMIZER_WINDOW_PER_GPU} per GPU the nodes can have. */
        final int optimizerWindow;

        Topology(Cluster cluster, int slots, int[] slotOfNode) {
            this.cluster = cluster;
            int gpus = 0;
            for (int n = 0; n < cluster.nodeCount(); n++) {
                int most = 0;
                for (int t : cluster.candidateTypes(n))
                    most = Math.max(most, cluster.type(t).gpus());
                gpus += most;
            }
            this.optimizerWindow = Math.max(OPTIMIZER_WINDOW_MIN, OPTIMIZER_WINDOW_PER_GPU * gpus);
            this.slots = slots;
            this.slotOfNode = slotOfNode;
            this.currentType = new int[cluster.nodeCount()];
            this.load = new NodeLoad(cluster.types(), cluster.nodeCount());
        }
    }

    private static Job model(ActiveJobs.Entry e) {
        if (e.model == null) e.model = RecordParser.toJob(e.record.getSpec());
        return e.model;
    }

    /** Full predicted time of a running job on its placement, from its time table when it has one. */
    private double predictedSeconds(ActiveJobs.Entry e) {
        if (!Double.isNaN(e.predictedSeconds)) return e.predictedSeconds;
        JobRecord j = e.record;
        Integer t = e.times == null ? null : catalogIndex.get(j.getType());
        e.predictedSeconds = t == null ? model(e).timeOn(j.getType(), j.getGpus()) : e.times.seconds(t, j.getGpus());
        return e.predictedSeconds;
    }

    /** The entry, its pricing figures derived for this cluster (see {@link ActiveJobs.Entry#pricedIn}). */
    private static ActiveJobs.Entry priced(ActiveJobs.Entry e, Cluster cluster) {
        if (e.pricedIn == cluster) return e;
        JobTimes table = times(e, cluster);
        Job job = model(e);
        e.runnable = table.runsOn(cluster);
        e.weightPerHour = job.weightPerHour();
        e.dueSeconds = job.dueSeconds();
        e.slowestSeconds = table.slowest(cluster);
        e.pricedIn = cluster;
        return e;
    }

    private static JobTimes times(ActiveJobs.Entry e, Cluster cluster) {
        if (e.times == null || !e.times.fits(cluster)) e.times = JobTimes.of(model(e), cluster);
        return e.times;
    }

    /** A shallow copy of a job's record: its spec is never changed, every other field is a value. */
    private static JobRecord copy(JobRecord j) {
        return new JobRecord(
                j.getSpec(),
                j.getDone(),
                j.getModelDone(),
                j.getProgressMillis(),
                j.getNode(),
                j.getType(),
                j.getGpus(),
                j.getEndMillis(),
                j.getFirstStart(),
                j.getPreemptions(),
                j.getMigrations(),
                j.getResizes(),
                j.getRunStartMillis());
    }

    private static double factor(JobRecord j) {
        Double f = j.getSpec().getActualFactor();
        return f == null ? 1.0 : f;
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
