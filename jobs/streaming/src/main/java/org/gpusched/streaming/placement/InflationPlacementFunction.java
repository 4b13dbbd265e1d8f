package org.gpusched.streaming.placement;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.formats.avro.typeutils.AvroTypeInfo;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;
import org.gpusched.placement.experiment.CurvePoint;
import org.gpusched.placement.experiment.InflationStepper;
import org.gpusched.placement.experiment.PolicySpec;
import org.gpusched.placement.model.NodeSpec;
import org.gpusched.placement.model.Placement;
import org.gpusched.placement.model.TargetWorkload;
import org.gpusched.placement.model.Task;
import org.gpusched.streaming.state.InflatedTask;
import org.gpusched.streaming.state.InflationProgress;

/**
 * The placement operator of the inflation experiment, keyed by run (policy, seed): each arrival goes through the same
 * {@link InflationStepper} as the plain-Java loop, and the grid points it crosses are emitted.
 *
 * <p>State (Avro, {@code schemas/internal}): {@link #PROGRESS} the run's random state and counters, {@link #LOG} every
 * placement of the run (trace row, node, GPUs); no timers. Both are cleared by the run's last arrival, after its end record is emitted. The cluster itself is a
 * transient cache per key, rebuilt from the log on the first arrival after a restore, so a restarted job decides
 * exactly as an uninterrupted one.
 */
public final class InflationPlacementFunction extends KeyedProcessFunction<String, InflationArrival, InflationOutput> {
    private static final long serialVersionUID = 1L;

    static final ValueStateDescriptor<InflationProgress> PROGRESS =
            new ValueStateDescriptor<>("inflation-progress", new AvroTypeInfo<>(InflationProgress.class));
    static final ListStateDescriptor<InflatedTask> LOG =
            new ListStateDescriptor<>("inflation-placements", new AvroTypeInfo<>(InflatedTask.class));

    private final List<NodeSpec> nodes;
    private final List<Task> trace;
    private final List<PolicySpec> policies;
    private final double step;
    private final double load;

    private transient ValueState<InflationProgress> progress;
    private transient ListState<InflatedTask> log;
    private transient TargetWorkload workload;
    private transient Map<String, InflationStepper> steppers;

    public InflationPlacementFunction(
            List<NodeSpec> nodes, List<Task> trace, List<PolicySpec> policies, double step, double load) {
        this.nodes = List.copyOf(nodes);
        this.trace = List.copyOf(trace);
        this.policies = List.copyOf(policies);
        this.step = step;
        this.load = load;
    }

    @Override
    public void open(OpenContext context) {
        progress = getRuntimeContext().getState(PROGRESS);
        log = getRuntimeContext().getListState(LOG);
        workload = TargetWorkload.fromTasks(trace);
        steppers = new HashMap<>();
    }

    @Override
    public void processElement(InflationArrival arrival, Context ctx, Collector<InflationOutput> out) throws Exception {
        String key = ctx.getCurrentKey();
        InflationProgress saved = progress.value();
        InflationStepper stepper = steppers.get(key);
        if (stepper == null) {
            stepper = saved == null
                    ? new InflationStepper(nodes, workload, policies.get(arrival.policyIndex), arrival.seed, step, load)
                    : restore(arrival, saved);
            steppers.put(key, stepper);
        }
        long nanos = saved == null ? 0 : saved.getPlaceNanos();
        Task task = trace.get(arrival.traceIndex);
        List<CurvePoint> points = new ArrayList<>(1);
        long t0 = System.nanoTime();
        Placement p = stepper.accept(task, points);
        nanos += System.nanoTime() - t0;
        for (CurvePoint point : points) out.collect(point(arrival, point, nanos));
        if (arrival.last) {
            InflationOutput end = new InflationOutput();
            end.end = true;
            end.policyIndex = arrival.policyIndex;
            end.seed = arrival.seed;
            end.arrivedTasks = stepper.progress().arrived();
            end.failedTasks = stepper.failed();
            end.placeNanos = nanos;
            out.collect(end);
            progress.clear();
            log.clear();
            steppers.remove(key);
            return;
        }
        if (p != null) log.add(new InflatedTask(arrival.traceIndex, p.node(), ints(p.gpus())));
        InflationStepper.Progress now = stepper.progress();
        progress.update(new InflationProgress(
                now.randomState(), now.requestedMilli(), now.failed(), now.arrived(), now.nextGrid(), nanos));
    }

    private static List<Integer> ints(int[] values) {
        List<Integer> list = new ArrayList<>(values.length);
        for (int v : values) list.add(v);
        return list;
    }

    private InflationStepper restore(InflationArrival arrival, InflationProgress saved) throws Exception {
        List<Task> tasks = new ArrayList<>();
        List<Placement> placements = new ArrayList<>();
        for (InflatedTask e : log.get()) {
            tasks.add(trace.get(e.getTraceIndex()));
            placements.add(new Placement(
                    e.getNode(),
                    e.getGpus().stream().mapToInt(Integer::intValue).toArray()));
        }
        return InflationStepper.restore(
                nodes,
                workload,
                policies.get(arrival.policyIndex),
                arrival.seed,
                step,
                load,
                tasks,
                placements,
                new InflationStepper.Progress(
                        saved.getRandomState(),
                        saved.getRequestedMilli(),
                        saved.getFailed(),
                        saved.getArrived(),
                        saved.getNextGrid()));
    }

    private static InflationOutput point(InflationArrival arrival, CurvePoint p, long nanos) {
        InflationOutput o = new InflationOutput();
        o.policyIndex = arrival.policyIndex;
        o.seed = arrival.seed;
        o.requestedGpuFraction = p.requestedGpuFraction();
        o.arrivedTasks = p.arrivedTasks();
        o.eopcCpuWatts = p.eopcCpuWatts();
        o.eopcGpuWatts = p.eopcGpuWatts();
        o.grar = p.grar();
        o.fragmentedGpus = p.fragmentedGpus();
        o.failedTasks = p.failedTasks();
        o.allocatedGpuFraction = p.allocatedGpuFraction();
        o.placeNanos = nanos;
        return o;
    }
}
