package org.gpusched.streaming.placement;

import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;
import org.gpusched.core.random.RandomState;
import org.gpusched.placement.experiment.InflationStepper;
import org.gpusched.placement.experiment.PolicySpec;
import org.gpusched.placement.model.ClusterState;
import org.gpusched.placement.model.NodeSpec;
import org.gpusched.placement.model.Placement;
import org.gpusched.placement.model.TargetWorkload;
import org.gpusched.placement.model.Task;
import org.gpusched.placement.policy.PlacementPolicy;

/**
 * The placement operator of the time-driven replay, keyed by cluster. An arriving task is only queued: it is decided
 * by the event-time timer at its creation time, so decisions follow trace time whatever the watermark cadence, and at
 * one instant the departures are applied before the arrivals (a task's interval is [creation, deletion)). A placed task
 * gets a timer at its deletion time (cut-off tasks at {@link Long#MAX_VALUE}, i.e. the end of input) that frees it.
 *
 * <p>State: {@link #RANDOM} the policy's tie-breaking random state; {@link #ARRIVALS} and {@link #DEPARTURES} the trace
 * rows due at each pending timer, removed when that timer fires; {@link #PLACED} the placement of every running task,
 * removed when it leaves. The final timer (end of input) releases the cut-off tasks and clears {@link #RANDOM}, so all
 * state is empty at the end. The cluster is a transient cache rebuilt from {@link #PLACED} after a restore, so a
 * restarted job decides exactly as an uninterrupted one.
 */
public final class ReplayPlacementFunction extends KeyedProcessFunction<String, ReplayPod, ReplayEvent> {
    private static final long serialVersionUID = 1L;

    static final ValueStateDescriptor<Long> RANDOM = new ValueStateDescriptor<>("replay-random", Types.LONG);
    static final MapStateDescriptor<Long, List<ReplayPod>> ARRIVALS =
            new MapStateDescriptor<>("replay-arrivals", Types.LONG, Types.LIST(TypeInformation.of(ReplayPod.class)));
    static final MapStateDescriptor<Long, List<Integer>> DEPARTURES =
            new MapStateDescriptor<>("replay-departures", Types.LONG, Types.LIST(Types.INT));
    static final MapStateDescriptor<Integer, PlacedTask> PLACED =
            new MapStateDescriptor<>("replay-placed", Types.INT, TypeInformation.of(PlacedTask.class));

    private final List<NodeSpec> nodes;
    private final List<Task> trace;
    private final PolicySpec policySpec;
    private final long seed;
    private final long endTime;

    private transient ValueState<Long> random;
    private transient MapState<Long, List<ReplayPod>> arrivals;
    private transient MapState<Long, List<Integer>> departures;
    private transient MapState<Integer, PlacedTask> placed;
    private transient TargetWorkload workload;
    private transient PlacementPolicy policy;
    private transient ClusterState cluster;
    private transient int running;

    /** {@code endTime}: the trace time reported for the departures of cut-off tasks (the end of the replay). */
    public ReplayPlacementFunction(List<NodeSpec> nodes, List<Task> trace, PolicySpec policy, long seed, long endTime) {
        this.nodes = List.copyOf(nodes);
        this.trace = List.copyOf(trace);
        this.policySpec = policy;
        this.seed = seed;
        this.endTime = endTime;
    }

    @Override
    public void open(OpenContext context) {
        random = getRuntimeContext().getState(RANDOM);
        arrivals = getRuntimeContext().getMapState(ARRIVALS);
        departures = getRuntimeContext().getMapState(DEPARTURES);
        placed = getRuntimeContext().getMapState(PLACED);
        workload = TargetWorkload.fromTasks(trace);
        policy = policySpec.factory().get();
    }

    @Override
    public void processElement(ReplayPod pod, Context ctx, Collector<ReplayEvent> out) throws Exception {
        if (pod.traceIndex < 0 || pod.traceIndex >= trace.size())
            throw new IllegalArgumentException("replay pod with trace row " + pod.traceIndex + " outside the trace");
        append(arrivals, pod.creationTime, pod);
        ctx.timerService().registerEventTimeTimer(pod.creationTime);
    }

    /** Departure timer of a task: its deletion time (at least 1 s after creation), or end of input when cut off. */
    static long departureKey(ReplayPod pod) {
        return pod.deletionTime == ReplayPod.CUT_OFF ? Long.MAX_VALUE : Math.max(pod.deletionTime, pod.creationTime + 1);
    }

    @Override
    public void onTimer(long time, OnTimerContext ctx, Collector<ReplayEvent> out) throws Exception {
        ClusterState state = cluster();
        long reported = time == Long.MAX_VALUE ? endTime : time;
        List<Integer> leaving = departures.get(time);
        if (leaving != null) {
            for (int entry : leaving) {
                PlacedTask p = placed.get(entry);
                if (p == null) continue;
                state.release(trace.get(entry), new Placement(p.node, p.gpus));
                placed.remove(entry);
                running--;
                out.collect(event(reported, entry, "RELEASE", p.node, p.gpus));
            }
            departures.remove(time);
        }
        List<ReplayPod> arriving = arrivals.get(time);
        if (arriving != null) {
            Long saved = random.value();
            RandomState rng = saved == null ? RandomState.derive(seed, InflationStepper.POLICY_STREAM) : new RandomState(saved);
            for (ReplayPod pod : arriving) {
                int index = pod.traceIndex;
                Task task = trace.get(index);
                Placement p = policy.choose(task, state, rng);
                if (p == null) {
                    out.collect(event(reported, index, "FAIL", -1, new int[0]));
                    continue;
                }
                state.place(task, p);
                placed.put(index, new PlacedTask(index, p.node(), p.gpus()));
                running++;
                long leaves = departureKey(pod);
                append(departures, leaves, index);
                ctx.timerService().registerEventTimeTimer(leaves);
                out.collect(event(reported, index, "PLACE", p.node(), p.gpus()));
            }
            random.update(rng.state());
            arrivals.remove(time);
        }
        if (time == Long.MAX_VALUE) random.clear(); // end of input: nothing can arrive any more
    }

    private ClusterState cluster() throws Exception {
        if (cluster == null) {
            cluster = new ClusterState(nodes, workload);
            running = 0;
            for (PlacedTask p : placed.values()) {
                cluster.place(trace.get(p.traceIndex), new Placement(p.node, p.gpus));
                running++;
            }
        }
        return cluster;
    }

    private ReplayEvent event(long time, int index, String action, int node, int[] gpus) {
        Task task = trace.get(index);
        ReplayEvent e = new ReplayEvent();
        e.time = time;
        e.traceIndex = index;
        e.action = action;
        e.node = node;
        e.gpus = gpus;
        e.gpuMilli = task.gpuMilliPerGpu();
        e.eopcCpuWatts = cluster.eopcCpuWatts();
        e.eopcGpuWatts = cluster.eopcGpuWatts();
        e.allocatedGpuFraction = cluster.gpuMilliAllocated() / (double) cluster.gpuMilliCapacity();
        e.fragmentedGpus = cluster.fragmentationMilli() / Task.MILLI;
        e.running = running;
        return e;
    }

    private static <T> void append(MapState<Long, List<T>> map, long key, T value) throws Exception {
        List<T> rows = map.get(key);
        if (rows == null) rows = new ArrayList<>();
        rows.add(value);
        map.put(key, rows);
    }
}
