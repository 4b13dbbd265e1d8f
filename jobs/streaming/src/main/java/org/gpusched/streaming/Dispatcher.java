package org.gpusched.streaming;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.StateTtlConfig;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.formats.avro.typeutils.AvroTypeInfo;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;
import org.gpusched.streaming.avro.ExecutionTime;
import org.gpusched.streaming.avro.JobSubmitted;
import org.gpusched.streaming.avro.NodeEvent;
import org.gpusched.streaming.avro.RejectedRecord;
import org.gpusched.streaming.avro.TelemetryKind;
import org.gpusched.streaming.state.ControllerEvent;
import org.gpusched.streaming.state.EventBatch;
import org.gpusched.streaming.state.NodeSlot;

/**
 * The central queue of the hierarchical paper: sends each submission to one of the K controllers round robin (in
 * submission order, skipping a controller whose nodes cannot run the job; or, with
 * {@link SchedulerConfig.Dispatch#GPU_WEIGHTED}, round robin in proportion to each controller's GPUs), routes completions and job telemetry to
 * the job's controller and node events and node telemetry to the node's owner (configured node i: controller
 * i mod K; added nodes continue the count), and copies every routed event to each policy's key, so several
 * policies see the same stream. Events are buffered until the watermark passes their time, then handled sorted by
 * {@link EventOrder}, so the assignment does not depend on arrival order.
 *
 * <p>State (one key): {@link #PENDING} events per timestamp, cleared when their timer fires; {@link #NEXT} the round
 * robin counter or, dispatching by GPUs, {@link #CREDITS} the weighted round robin's credits; {@link #JOB_OWNER} job id to controller, removed when a completion is routed (live mode) and
 * otherwise expired by a TTL ({@link #JOB_OWNER_RETENTION}, processing time: a replay shorter than that keeps an
 * entry, a few dozen bytes, per accepted job, as replayed completions never reach the dispatcher); it
 * also rejects duplicate ids; {@link #NODES} and {@link #NODE_COUNT} the nodes, their owner and types.
 */
public final class Dispatcher extends KeyedProcessFunction<String, ControllerEvent, ControllerEvent> {
    private static final long serialVersionUID = 1L;
    public static final String KEY = "dispatch";
    public static final Duration JOB_OWNER_RETENTION = Duration.ofHours(24);
    public static final OutputTag<RejectedRecord> REJECTED = RecordParser.REJECTED;
    public static final OutputTag<JobSubmitted> ACCEPTED =
            new OutputTag<>("accepted-jobs", new AvroTypeInfo<>(JobSubmitted.class));
    /** The node events the scheduler applied, at the time it applied them (event time, whole milliseconds). */
    public static final OutputTag<NodeEvent> NODE_TIMELINE =
            new OutputTag<>("node-timeline", new AvroTypeInfo<>(NodeEvent.class));

    static final MapStateDescriptor<Long, EventBatch> PENDING =
            new MapStateDescriptor<>("dispatch-pending", Types.LONG, new AvroTypeInfo<>(EventBatch.class));
    static final ValueStateDescriptor<Integer> NEXT = new ValueStateDescriptor<>("dispatch-next", Types.INT);
    /** GPU_WEIGHTED: each controller's credit in the smooth weighted round robin. */
    static final ValueStateDescriptor<long[]> CREDITS =
            new ValueStateDescriptor<>("dispatch-credits", PrimitiveArrayTypeInfo.LONG_PRIMITIVE_ARRAY_TYPE_INFO);

    static final MapStateDescriptor<String, Integer> JOB_OWNER =
            new MapStateDescriptor<>("dispatch-job-owner", Types.STRING, Types.INT);
    static final MapStateDescriptor<String, NodeSlot> NODES =
            new MapStateDescriptor<>("dispatch-nodes", Types.STRING, new AvroTypeInfo<>(NodeSlot.class));
    static final MapStateDescriptor<String, Integer> NODE_OWNER =
            new MapStateDescriptor<>("dispatch-node-owner", Types.STRING, Types.INT);
    static final ValueStateDescriptor<Integer> NODE_COUNT =
            new ValueStateDescriptor<>("dispatch-node-count", Types.INT);

    static {
        // No background cleanup: on the heap backend an incremental cleanup step visits a whole key's map, and this
        // state has one key with an entry per active job, so each access cost O(jobs) (a third of a 10k-job replay's
        // dispatch time). Expired entries go when read and from full snapshots; live completions remove theirs.
        JOB_OWNER.enableTimeToLive(StateTtlConfig.newBuilder(JOB_OWNER_RETENTION)
                .disableCleanupInBackground()
                .cleanupFullSnapshot()
                .build());
    }

    private final SchedulerConfig config;
    private transient MapState<Long, EventBatch> pending;
    private transient ValueState<Integer> next;
    private transient ValueState<long[]> credits;
    private transient MapState<String, Integer> jobOwner;
    private transient MapState<String, NodeSlot> nodes;
    private transient MapState<String, Integer> nodeOwner;
    private transient ValueState<Integer> nodeCount;
    /** Per controller, the most GPUs of each type its up nodes offer; derived from NODES, rebuilt after a change. */
    private transient List<Map<String, Integer>> capacity;
    /** Per controller, the GPUs of its up nodes (GPU_WEIGHTED); derived with {@link #capacity}, dropped with it. */
    private transient long[] gpuWeights;

    public Dispatcher(SchedulerConfig config) {
        this.config = config;
    }

    @Override
    public void open(OpenContext openContext) {
        pending = getRuntimeContext().getMapState(PENDING);
        next = getRuntimeContext().getState(NEXT);
        credits = getRuntimeContext().getState(CREDITS);
        jobOwner = getRuntimeContext().getMapState(JOB_OWNER);
        nodes = getRuntimeContext().getMapState(NODES);
        nodeOwner = getRuntimeContext().getMapState(NODE_OWNER);
        nodeCount = getRuntimeContext().getState(NODE_COUNT);
        capacity = null;
    }

    @Override
    public void processElement(ControllerEvent event, Context ctx, Collector<ControllerEvent> out) throws Exception {
        EventOrder.holdUntilWatermark(event, pending, ctx.timerService());
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<ControllerEvent> out) throws Exception {
        EventBatch batch = pending.get(timestamp);
        if (batch == null) return;
        pending.remove(timestamp);
        initNodes();
        List<ControllerEvent> events = new ArrayList<>(batch.getEvents());
        events.sort(EventOrder.ORDER);
        for (ControllerEvent e : events) {
            switch (e.getKind()) {
                case SUBMISSION -> submit(e, ctx, out);
                case COMPLETION -> {
                    Integer owner = jobOwner.get(e.getId());
                    if (owner == null) reject(ctx, e, "completion of unknown or finished job " + e.getId(), "job");
                    else {
                        jobOwner.remove(e.getId());
                        broadcast(e, owner, out);
                    }
                }
                case TELEMETRY -> {
                    boolean job = e.getTelemetry().getKind() == TelemetryKind.JOB_PROGRESS;
                    Integer owner = job ? jobOwner.get(e.getId()) : nodeOwner.get(e.getId());
                    if (owner == null)
                        reject(
                                ctx,
                                e,
                                "telemetry of unknown " + (job ? "job " : "node ") + e.getId(),
                                job ? "job" : "node");
                    else broadcast(e, owner, out);
                }
                case NODE -> node(e, ctx, out);
            }
        }
    }

    private void submit(ControllerEvent e, OnTimerContext ctx, Collector<ControllerEvent> out) throws Exception {
        JobSubmitted job = e.getSubmitted();
        if (jobOwner.contains(job.getId())) {
            reject(ctx, e, "job " + job.getId() + ": duplicate id (" + whyTaken() + ")", "id");
            return;
        }
        int c = config.dispatch() == SchedulerConfig.Dispatch.GPU_WEIGHTED
                ? weightedController(job, capacity())
                : nextController(job, capacity());
        // Every node that can run it is down (FAILED, not REMOVED): it waits at a controller owning one until it is
        // back.
        if (c < 0) c = nextController(job, capacityOf(false));
        if (c < 0) {
            reject(
                    ctx,
                    e,
                    "job " + job.getId() + ": no controller has a node that can run any of its configurations "
                            + configurations(job),
                    "times");
            return;
        }
        jobOwner.put(job.getId(), c);
        ctx.output(ACCEPTED, job);
        broadcast(e, c, out);
    }

    /**
     * Why a job id is still taken. In replay mode the dispatcher never sees a job finish (completions are simulated
     * by the controllers), so an id stays taken for the whole replay, finished or not; live, until its completion is
     * read.
     */
    private String whyTaken() {
        return config.mode() == SchedulerConfig.Mode.REPLAY
                ? "a job with this id was submitted before in this replay, whether it has finished or not: ids are unique"
                        + " within a replay"
                : "a job with this id was submitted before and its completion has not been read: an id is taken until"
                        + " then";
    }

    /** Round robin: the next controller in turn that can run the job, or -1. */
    private int nextController(JobSubmitted job, List<Map<String, Integer>> cap) throws Exception {
        int k = config.controllers();
        int start = next.value() == null ? 0 : next.value();
        for (int i = 0; i < k; i++) {
            int c = (start + i) % k;
            if (canRun(cap.get(c), job)) {
                next.update((c + 1) % k);
                return c;
            }
        }
        return -1;
    }

    /**
     * Smooth weighted round robin (each controller's credit grows by its GPU count; the job goes to the controller
     * with the most credit among those that can run it, lowest index on ties, which then pays the total), or -1.
     */
    private int weightedController(JobSubmitted job, List<Map<String, Integer>> cap) throws Exception {
        int k = config.controllers();
        long[] credit = credits.value() == null ? new long[k] : credits.value();
        long[] weight = gpuWeights;
        long total = 0;
        for (int c = 0; c < k; c++) {
            total += weight[c];
            credit[c] += weight[c];
        }
        int chosen = -1;
        for (int c = 0; c < k; c++) {
            if (canRun(cap.get(c), job) && (chosen < 0 || credit[c] > credit[chosen])) chosen = c;
        }
        if (chosen < 0) {
            for (int c = 0; c < k; c++) credit[c] -= weight[c]; // nobody takes it: the turn did not happen
            return -1;
        }
        credit[chosen] -= total;
        credits.update(credit);
        return chosen;
    }

    private static boolean canRun(Map<String, Integer> cap, JobSubmitted job) {
        for (ExecutionTime t : job.getTimes()) {
            Integer g = cap.get(t.getType());
            if (g != null && g >= t.getGpus()) return true;
        }
        return false;
    }

    private static String configurations(JobSubmitted job) {
        List<String> c = new ArrayList<>();
        for (ExecutionTime t : job.getTimes()) c.add(t.getType() + "x" + t.getGpus());
        return c.toString();
    }

    private void node(ControllerEvent e, OnTimerContext ctx, Collector<ControllerEvent> out) throws Exception {
        NodeEvent ev = e.getNodeEvent();
        String id = ev.getNode();
        NodeSlot slot = nodes.get(id);
        Integer owner = nodeOwner.get(id);
        switch (ev.getKind()) {
            case ADDED -> {
                if (slot != null && slot.getUp()) {
                    reject(ctx, e, "node " + id + ": ADDED but already up", "node");
                    return;
                }
                if (owner == null) {
                    int count = nodeCount.value();
                    owner = count % config.controllers();
                    nodeCount.update(count + 1);
                    nodeOwner.put(id, owner);
                }
                nodes.put(id, new NodeSlot(id, ev.getType(), new ArrayList<>(ev.getAllowedTypes()), null, true));
            }
            case REMOVED, FAILED, TYPE_CHANGED -> {
                if (slot == null) {
                    reject(ctx, e, "node " + id + ": " + ev.getKind() + " of an unknown node", "node");
                    return;
                }
                if (ev.getKind() == org.gpusched.streaming.avro.NodeEventKind.REMOVED) {
                    nodes.remove(id);
                } else if (ev.getKind() == org.gpusched.streaming.avro.NodeEventKind.FAILED) {
                    slot.setUp(false);
                    nodes.put(id, slot);
                } else {
                    slot.setFixedType(ev.getType());
                    slot.setAllowedTypes(new ArrayList<>());
                    nodes.put(id, slot);
                }
            }
        }
        capacity = null;
        ctx.output(
                NODE_TIMELINE,
                NodeEvent.newBuilder(ev).setTime(e.getTimeMillis() / 1000.0).build());
        broadcast(e, owner, out);
    }

    private void broadcast(ControllerEvent e, int controller, Collector<ControllerEvent> out) {
        for (String policy : config.policies()) {
            // Shallow: the payload records are immutable once parsed, and Avro's builder copy would deep-copy them per
            // policy.
            out.collect(new ControllerEvent(
                    policy,
                    controller,
                    e.getTimeMillis(),
                    e.getKind(),
                    e.getId(),
                    e.getSource(),
                    e.getPosition(),
                    e.getSubmitted(),
                    e.getCompleted(),
                    e.getNodeEvent(),
                    e.getTelemetry()));
        }
    }

    private void reject(OnTimerContext ctx, ControllerEvent e, String reason, String field) {
        Object payload = e.getSubmitted() != null
                ? JobCodec.toTraceLine(e.getSubmitted())
                : e.getCompleted() != null
                        ? e.getCompleted()
                        : e.getNodeEvent() != null ? e.getNodeEvent() : e.getTelemetry();
        ctx.output(
                REJECTED,
                RejectedRecord.newBuilder()
                        .setSource(e.getSource())
                        .setPosition(e.getPosition())
                        .setText(String.valueOf(payload))
                        .setBytes(null)
                        .setReason(reason)
                        .setField(field)
                        .build());
    }

    /** First use: the configured nodes, node i owned by controller i mod K. */
    private void initNodes() throws Exception {
        if (nodeCount.value() != null) return;
        List<SchedulerConfig.NodeSpec> configured = config.nodes();
        for (int i = 0; i < configured.size(); i++) {
            SchedulerConfig.NodeSpec n = configured.get(i);
            nodes.put(n.id(), new NodeSlot(n.id(), n.fixedType(), new ArrayList<>(n.allowedTypes()), null, true));
            nodeOwner.put(n.id(), config.controllerOfNode(i));
        }
        nodeCount.update(configured.size());
        capacity = null;
    }

    /** Per controller, the most GPUs of each type its up nodes offer; also sets {@link #gpuWeights}. */
    private List<Map<String, Integer>> capacity() throws Exception {
        if (capacity == null) capacity = capacityOf(true);
        return capacity;
    }

    /** Per controller, the most GPUs of each type its nodes (only the up ones, or also the failed ones) offer; sets {@link #gpuWeights} for the up ones. */
    private List<Map<String, Integer>> capacityOf(boolean upOnly) throws Exception {
        List<Map<String, Integer>> cap = new ArrayList<>();
        for (int k = 0; k < config.controllers(); k++) cap.add(new HashMap<>());
        long[] weights = new long[config.controllers()];
        Map<String, Integer> gpusOf = new HashMap<>();
        config.types().forEach(t -> gpusOf.put(t.name(), t.gpus()));
        Set<String> allTypes = new HashSet<>(gpusOf.keySet());
        for (Map.Entry<String, NodeSlot> e : nodes.entries()) {
            NodeSlot slot = e.getValue();
            if (upOnly && !slot.getUp()) continue;
            int owner = nodeOwner.get(e.getKey());
            List<String> possible = slot.getFixedType() != null
                    ? List.of(slot.getFixedType())
                    : slot.getAllowedTypes().isEmpty() ? new ArrayList<>(allTypes) : slot.getAllowedTypes();
            int largest = 0;
            for (String t : possible) {
                cap.get(owner).merge(t, gpusOf.get(t), Math::max);
                largest = Math.max(largest, gpusOf.get(t));
            }
            weights[owner] += largest; // a rightsizable node counts its largest possible type
        }
        if (upOnly) gpuWeights = weights;
        return cap;
    }
}
