package org.gpusched.placement.experiment;

import java.util.ArrayList;
import java.util.List;
import org.gpusched.core.random.RandomState;
import org.gpusched.placement.model.ClusterState;
import org.gpusched.placement.model.NodeSpec;
import org.gpusched.placement.model.Placement;
import org.gpusched.placement.model.TargetWorkload;
import org.gpusched.placement.model.Task;
import org.gpusched.placement.policy.PlacementPolicy;

/**
 * The placement step of one inflation run, shared by the plain-Java loop ({@link InflationRun}) and the Flink operator
 * (org.gpusched.streaming.placement): place one arriving task (or count it failed), then report the curve points of
 * requested GPU capacity it crossed. Everything it depends on besides the cluster is a few numbers ({@link #progress}),
 * so a restarted operator rebuilds it from its placement log with {@link #restore}.
 */
public final class InflationStepper {
    /** Stream index of a policy's tie-breaking generator under a seed. */
    public static final long POLICY_STREAM = 0x504F_4C49L;
    /** Stream index of the per-seed node-name permutation that breaks the simulator policies' ties. */
    public static final long NODE_NAME_STREAM = 0x4E41_4D45L;

    /** What besides the cluster a run has to remember: random state, GPU milli requested, failures, tasks, next grid point. */
    public record Progress(long randomState, long requestedMilli, int failed, int arrived, int nextGrid) {}

    private final PolicySpec spec;
    private final long seed;
    private final double step;
    private final int lastGrid;
    private final ClusterState cluster;
    private final PlacementPolicy policy;
    private RandomState random;
    private long requested;
    private int failed;
    private int arrived;
    private int nextGrid = 1;

    public InflationStepper(
            List<NodeSpec> nodes, TargetWorkload workload, PolicySpec spec, long seed, double step, double load) {
        this.spec = spec;
        this.seed = seed;
        this.step = step;
        this.lastGrid = (int) Math.floor(load / step + 1e-9); // the last task may overshoot the load: no point past it
        this.cluster = new ClusterState(nodes, workload);
        this.cluster.permuteTieOrder(RandomState.derive(seed, NODE_NAME_STREAM)); // same for every policy of the seed
        this.policy = spec.factory().get();
        this.random = RandomState.derive(seed, POLICY_STREAM);
    }

    /** A stepper in the state after the logged placements, with the given progress. */
    public static InflationStepper restore(
            List<NodeSpec> nodes,
            TargetWorkload workload,
            PolicySpec spec,
            long seed,
            double step,
            double load,
            List<Task> placedTasks,
            List<Placement> placements,
            Progress progress) {
        InflationStepper s = new InflationStepper(nodes, workload, spec, seed, step, load);
        for (int i = 0; i < placements.size(); i++) s.cluster.place(placedTasks.get(i), placements.get(i));
        s.random = new RandomState(progress.randomState());
        s.requested = progress.requestedMilli();
        s.failed = progress.failed();
        s.arrived = progress.arrived();
        s.nextGrid = progress.nextGrid();
        return s;
    }

    /** Places (or fails) the task; returns its placement (null if failed). Crossed grid points go to {@code points}. */
    public Placement accept(Task task, List<CurvePoint> points) {
        Placement p = policy.choose(task, cluster, random);
        if (p != null) cluster.place(task, p);
        else failed++;
        arrived++;
        requested += task.gpuMilliTotal();
        double capacity = cluster.gpuMilliCapacity();
        while (nextGrid <= lastGrid && requested >= nextGrid * step * capacity - 1e-6) {
            double grar = requested == 0 ? 1 : cluster.gpuMilliAllocated() / (double) requested;
            points.add(new CurvePoint(
                    spec,
                    seed,
                    Math.round(nextGrid * step * 1e6) / 1e6,
                    arrived,
                    cluster.eopcCpuWatts(),
                    cluster.eopcGpuWatts(),
                    grar,
                    cluster.fragmentationMilli() / Task.MILLI,
                    failed,
                    cluster.gpuMilliAllocated() / capacity));
            nextGrid++;
        }
        return p;
    }

    public Progress progress() {
        return new Progress(random.state(), requested, failed, arrived, nextGrid);
    }

    public int failed() {
        return failed;
    }

    public ClusterState cluster() {
        return cluster;
    }

    /** Convenience for callers that do not collect points one by one. */
    public List<CurvePoint> accept(Task task) {
        List<CurvePoint> points = new ArrayList<>(1);
        accept(task, points);
        return points;
    }
}
