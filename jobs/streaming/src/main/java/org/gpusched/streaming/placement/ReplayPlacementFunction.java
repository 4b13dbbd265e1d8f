package org.gpusched.streaming.placement;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
import org.gpusched.placement.model.ClusterState;
import org.gpusched.placement.model.NodeSpec;
import org.gpusched.placement.model.Placement;
import org.gpusched.placement.model.TargetWorkload;
import org.gpusched.placement.model.Task;
import org.gpusched.placement.policy.PlacementPolicy;

/**
 * The placement operator of the time-driven replay, keyed by run ({@link ReplayRun#key()}: policy and seed), so several
 * policies replay the same pods side by side, each with its own state. An arriving task is only queued: it is decided
 * by the event-time timer at its creation time, so decisions follow trace time whatever the watermark cadence, and at
 * one instant the departures are applied before the arrivals (a task's interval is [creation, deletion)). A placed task
 * gets a timer at its deletion time (cut-off tasks at {@link Long#MAX_VALUE}, i.e. the end of input) that frees it.
 *
 * <p>State per run: {@link #RANDOM} the policy's tie-breaking random state; {@link #ARRIVALS} the pods and
 * {@link #DEPARTURES} the lines due at each pending timer, removed when that timer fires; {@link #PLACED} every running
 * task by line, removed when it leaves. The final timer (end of input) releases the cut-off tasks and clears
 * {@link #RANDOM}, so all state is empty at the end. Each run's cluster is a transient cache rebuilt from
 * {@link #PLACED} after a restore, so a restarted job decides exactly as an uninterrupted one.
 */
public final class ReplayPlacementFunction extends KeyedProcessFunction<String, ReplayPod, ReplayEvent> {
    private static final long serialVersionUID = 1L;

    static final ValueStateDescriptor<Long> RANDOM = new ValueStateDescriptor<>("replay-random", Types.LONG);
    static final MapStateDescriptor<Long, List<ReplayPod>> ARRIVALS =
            new MapStateDescriptor<>("replay-arrivals", Types.LONG, Types.LIST(TypeInformation.of(ReplayPod.class)));
    static final MapStateDescriptor<Long, List<Long>> DEPARTURES =
            new MapStateDescriptor<>("replay-departures", Types.LONG, Types.LIST(Types.LONG));
    static final MapStateDescriptor<Long, RunningPod> PLACED =
            new MapStateDescriptor<>("replay-placed", Types.LONG, TypeInformation.of(RunningPod.class));

    private final List<NodeSpec> nodes;
    private final List<Task> workloadTasks;
    private final Map<String, ReplayRun> runs;
    private final long endTime;

    private transient ValueState<Long> random;
    private transient MapState<Long, List<ReplayPod>> arrivals;
    private transient MapState<Long, List<Long>> departures;
    private transient MapState<Long, RunningPod> placed;
    private transient TargetWorkload workload;
    private transient Map<String, RunCache> caches;

    /** A run's policy and cluster as placed so far; rebuilt from state when missing. */
    private static final class RunCache {
        final PlacementPolicy policy;
        final ClusterState cluster;
        int running;

        RunCache(PlacementPolicy policy, ClusterState cluster) {
            this.policy = policy;
            this.cluster = cluster;
        }
    }

    /**
     * @param workloadTasks the tasks fgd and pwr-fgd derive their target workload from (the trace's valid rows)
     * @param endTime       the trace time reported for the departures of cut-off tasks (the end of the replay)
     */
    public ReplayPlacementFunction(List<NodeSpec> nodes, List<Task> workloadTasks, List<ReplayRun> runs, long endTime) {
        this.nodes = List.copyOf(nodes);
        this.workloadTasks = List.copyOf(workloadTasks);
        Map<String, ReplayRun> byKey = new LinkedHashMap<>();
        for (ReplayRun r : runs)
            if (byKey.put(r.key(), r) != null) throw new IllegalArgumentException("run " + r.key() + " given twice");
        this.runs = byKey;
        this.endTime = endTime;
    }

    @Override
    public void open(OpenContext context) {
        random = getRuntimeContext().getState(RANDOM);
        arrivals = getRuntimeContext().getMapState(ARRIVALS);
        departures = getRuntimeContext().getMapState(DEPARTURES);
        placed = getRuntimeContext().getMapState(PLACED);
        workload = TargetWorkload.fromTasks(workloadTasks);
        caches = new HashMap<>();
    }

    @Override
    public void processElement(ReplayPod pod, Context ctx, Collector<ReplayEvent> out) throws Exception {
        if (!runs.containsKey(pod.run))
            throw new IllegalArgumentException("replay pod for unknown run '" + pod.run + "'");
        append(arrivals, pod.creationTime, pod);
        ctx.timerService().registerEventTimeTimer(pod.creationTime);
    }

    /** Departure timer of a task: its deletion time (at least 1 s after creation), or end of input when cut off. */
    static long departureKey(ReplayPod pod) {
        return pod.deletionTime == ReplayPod.CUT_OFF
                ? Long.MAX_VALUE
                : Math.max(pod.deletionTime, pod.creationTime + 1);
    }

    @Override
    public void onTimer(long time, OnTimerContext ctx, Collector<ReplayEvent> out) throws Exception {
        String runKey = ctx.getCurrentKey();
        RunCache run = cache(runKey);
        long reported = time == Long.MAX_VALUE ? endTime : time;
        List<Long> leaving = departures.get(time);
        if (leaving != null) {
            for (long line : leaving) {
                RunningPod p = placed.get(line);
                if (p == null) continue;
                run.cluster.release(p.pod.task(), new Placement(p.node, p.gpus));
                placed.remove(line);
                run.running--;
                out.collect(event(runKey, run, reported, p.pod, "RELEASE", p.node, p.gpus));
            }
            departures.remove(time);
        }
        List<ReplayPod> arriving = arrivals.get(time);
        if (arriving != null) {
            Long saved = random.value();
            RandomState rng = saved == null
                    ? RandomState.derive(runs.get(runKey).seed(), InflationStepper.POLICY_STREAM)
                    : new RandomState(saved);
            for (ReplayPod pod : arriving) {
                Task task = pod.task();
                Placement p = run.policy.choose(task, run.cluster, rng);
                if (p == null) {
                    out.collect(event(runKey, run, reported, pod, "FAIL", -1, new int[0]));
                    continue;
                }
                run.cluster.place(task, p);
                placed.put(pod.line, new RunningPod(pod, p.node(), p.gpus()));
                run.running++;
                long leaves = departureKey(pod);
                append(departures, leaves, pod.line);
                ctx.timerService().registerEventTimeTimer(leaves);
                out.collect(event(runKey, run, reported, pod, "PLACE", p.node(), p.gpus()));
            }
            random.update(rng.state());
            arrivals.remove(time);
        }
        if (time == Long.MAX_VALUE) { // end of input: nothing can arrive any more
            random.clear();
            caches.remove(runKey);
        }
    }

    private RunCache cache(String runKey) throws Exception {
        RunCache c = caches.get(runKey);
        if (c == null) {
            c = new RunCache(runs.get(runKey).policy().factory().get(), new ClusterState(nodes, workload));
            for (RunningPod p : placed.values()) {
                c.cluster.place(p.pod.task(), new Placement(p.node, p.gpus));
                c.running++;
            }
            caches.put(runKey, c);
        }
        return c;
    }

    private static ReplayEvent event(
            String runKey, RunCache run, long time, ReplayPod pod, String action, int node, int[] gpus) {
        ClusterState cluster = run.cluster;
        ReplayEvent e = new ReplayEvent();
        e.run = runKey;
        e.time = time;
        e.line = pod.line;
        e.task = pod.name;
        e.action = action;
        e.node = node;
        e.gpus = gpus;
        e.gpuMilli = pod.gpuMilliPerGpu;
        e.eopcCpuWatts = cluster.eopcCpuWatts();
        e.eopcGpuWatts = cluster.eopcGpuWatts();
        e.allocatedGpuFraction = cluster.gpuMilliAllocated() / (double) cluster.gpuMilliCapacity();
        e.fragmentedGpus = cluster.fragmentationMilli() / Task.MILLI;
        e.running = run.running;
        return e;
    }

    private static <T> void append(MapState<Long, List<T>> map, long key, T value) throws Exception {
        List<T> rows = map.get(key);
        if (rows == null) rows = new ArrayList<>();
        rows.add(value);
        map.put(key, rows);
    }
}
