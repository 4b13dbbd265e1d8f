package org.gpusched.streaming.placement;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
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
import org.gpusched.core.random.RandomState;
import org.gpusched.placement.experiment.InflationStepper;
import org.gpusched.placement.model.ClusterState;
import org.gpusched.placement.model.NodeSpec;
import org.gpusched.placement.model.Placement;
import org.gpusched.placement.model.TargetWorkload;
import org.gpusched.placement.model.Task;
import org.gpusched.placement.policy.PlacementPolicy;
import org.gpusched.streaming.state.PlacedPod;
import org.gpusched.streaming.state.PlacementPod;
import org.gpusched.streaming.state.PodBatch;

/**
 * The placement operator of the time-driven replay, keyed by run ({@link ReplayRun#key()}: policy and seed), so several
 * policies replay the same pods side by side, each with its own state. An arriving task is only queued: it is decided
 * by the event-time timer at its creation time, so decisions follow trace time whatever the watermark cadence, and at
 * one instant the departures are applied before the arrivals (a task's interval is [creation, deletion)). A placed task
 * gets a timer at its deletion time (cut-off tasks at {@link Long#MAX_VALUE}, i.e. the end of input) that frees it.
 * Timers and event time are in milliseconds ({@link #millis}); the pods and the events carry trace seconds.
 *
 * <p>State per run (Avro, schemas/internal): {@link #RANDOM} the policy's tie-breaking random state; {@link #ARRIVALS}
 * the pods ({@link PodBatch}) and {@link #DEPARTURES} the lines due at each pending timer, removed when that timer
 * fires; {@link #PLACED} every running task by line ({@link PlacedPod}), removed when it leaves. The final timer (end of
 * input) releases the cut-off tasks and clears {@link #RANDOM}, so all state is empty at the end. Each run's cluster is
 * a transient cache rebuilt from {@link #PLACED} after a restore, so a restarted job decides exactly as an
 * uninterrupted one.
 */
public final class ReplayPlacementFunction extends KeyedProcessFunction<String, ReplayPod, ReplayEvent> {
    private static final long serialVersionUID = 1L;

    static final ValueStateDescriptor<Long> RANDOM = new ValueStateDescriptor<>("placement-random", Types.LONG);
    static final MapStateDescriptor<Long, PodBatch> ARRIVALS =
            new MapStateDescriptor<>("placement-arrivals", Types.LONG, new AvroTypeInfo<>(PodBatch.class));
    static final MapStateDescriptor<Long, List<Long>> DEPARTURES =
            new MapStateDescriptor<>("placement-departures", Types.LONG, Types.LIST(Types.LONG));
    static final MapStateDescriptor<Long, PlacedPod> PLACED =
            new MapStateDescriptor<>("placement-placed", Types.LONG, new AvroTypeInfo<>(PlacedPod.class));

    private final List<NodeSpec> nodes;
    private final List<Task> workloadTasks;
    private final Map<String, ReplayRun> runs;
    private final long endTime;

    private transient ValueState<Long> random;
    private transient MapState<Long, PodBatch> arrivals;
    private transient MapState<Long, List<Long>> departures;
    private transient MapState<Long, PlacedPod> placed;
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
        long at = millis(pod.creationTime);
        PodBatch batch = arrivals.get(at);
        if (batch == null) batch = new PodBatch(new ArrayList<>());
        batch.getPods().add(stateOf(pod));
        arrivals.put(at, batch);
        ctx.timerService().registerEventTimeTimer(at);
    }

    /** Event time (ms) of a trace time (s). */
    static long millis(long traceSeconds) {
        return traceSeconds * 1000;
    }

    /** Departure timer of a task: its deletion time (at least 1 s after creation), or end of input when cut off. */
    static long departureKey(PlacementPod pod) {
        return pod.getDeletionTime() == ReplayPod.CUT_OFF
                ? Long.MAX_VALUE
                : millis(Math.max(pod.getDeletionTime(), pod.getCreationTime() + 1));
    }

    @Override
    public void onTimer(long time, OnTimerContext ctx, Collector<ReplayEvent> out) throws Exception {
        String runKey = ctx.getCurrentKey();
        RunCache run = cache(runKey);
        long reported = time == Long.MAX_VALUE ? endTime : time / 1000;
        List<Long> leaving = departures.get(time);
        if (leaving != null) {
            for (long line : leaving) {
                PlacedPod p = placed.get(line);
                if (p == null) continue;
                int[] gpus = gpus(p);
                run.cluster.release(task(p.getPod()), new Placement(p.getNode(), gpus));
                placed.remove(line);
                run.running--;
                out.collect(event(runKey, run, reported, p.getPod(), "RELEASE", p.getNode(), gpus));
            }
            departures.remove(time);
        }
        PodBatch batch = arrivals.get(time);
        if (batch != null) {
            List<PlacementPod> arriving = batch.getPods();
            Long saved = random.value();
            RandomState rng = saved == null
                    ? RandomState.derive(runs.get(runKey).seed(), InflationStepper.POLICY_STREAM)
                    : new RandomState(saved);
            for (PlacementPod pod : arriving) {
                Task task = task(pod);
                Placement p = run.policy.choose(task, run.cluster, rng);
                if (p == null) {
                    out.collect(event(runKey, run, reported, pod, "FAIL", -1, new int[0]));
                    continue;
                }
                run.cluster.place(task, p);
                List<Integer> gpus = new ArrayList<>(p.gpus().length);
                for (int g : p.gpus()) gpus.add(g);
                placed.put(pod.getLine(), new PlacedPod(pod, p.node(), gpus));
                run.running++;
                long leaves = departureKey(pod);
                List<Long> due = departures.get(leaves);
                if (due == null) due = new ArrayList<>();
                due.add(pod.getLine());
                departures.put(leaves, due);
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
            for (PlacedPod p : placed.values()) {
                c.cluster.place(task(p.getPod()), new Placement(p.getNode(), gpus(p)));
                c.running++;
            }
            caches.put(runKey, c);
        }
        return c;
    }

    private static ReplayEvent event(
            String runKey, RunCache run, long time, PlacementPod pod, String action, int node, int[] gpus) {
        ClusterState cluster = run.cluster;
        ReplayEvent e = new ReplayEvent();
        e.run = runKey;
        e.time = time;
        e.line = pod.getLine();
        e.task = pod.getName();
        e.action = action;
        e.node = node;
        e.gpus = gpus;
        e.gpuMilli = pod.getGpuMilliPerGpu();
        e.eopcCpuWatts = cluster.eopcCpuWatts();
        e.eopcGpuWatts = cluster.eopcGpuWatts();
        e.allocatedGpuFraction = cluster.gpuMilliAllocated() / (double) cluster.gpuMilliCapacity();
        e.fragmentedGpus = cluster.fragmentationMilli() / Task.MILLI;
        e.running = run.running;
        return e;
    }

    /** A pod as state: its fields as they are, trace seconds. */
    static PlacementPod stateOf(ReplayPod pod) {
        return new PlacementPod(
                pod.line,
                pod.name,
                pod.cpuMilli,
                pod.memoryMiB,
                pod.gpuCount,
                pod.gpuMilliPerGpu,
                List.of(pod.gpuModels),
                pod.creationTime,
                pod.deletionTime);
    }

    static Task task(PlacementPod pod) {
        return new Task(
                pod.getName(),
                pod.getCpuMilli(),
                pod.getMemoryMiB(),
                pod.getGpuCount(),
                pod.getGpuMilliPerGpu(),
                Set.copyOf(pod.getGpuModels()),
                Set.of());
    }

    private static int[] gpus(PlacedPod p) {
        int[] gpus = new int[p.getGpus().size()];
        for (int i = 0; i < gpus.length; i++) gpus[i] = p.getGpus().get(i);
        return gpus;
    }
}
