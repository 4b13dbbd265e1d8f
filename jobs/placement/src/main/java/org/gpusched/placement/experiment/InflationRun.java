package org.gpusched.placement.experiment;

import java.util.ArrayList;
import java.util.List;
import org.gpusched.placement.model.NodeSpec;
import org.gpusched.placement.model.TargetWorkload;
import org.gpusched.placement.model.Task;

/**
 * One (policy, seed) inflation in plain Java: feeds the sequence's tasks one at a time to an {@link InflationStepper}
 * on an initially empty cluster (tasks never leave; a task no node fits fails and is dropped) and collects the
 * {@link CurvePoint} of every grid step of requested GPU capacity.
 */
public final class InflationRun {
    public record Result(
            PolicySpec policy, long seed, List<CurvePoint> curve, int tasks, int failed, long placeNanos) {}

    private InflationRun() {}

    public static Result run(
            List<NodeSpec> nodes,
            TargetWorkload workload,
            List<Task> trace,
            int[] sequence,
            PolicySpec spec,
            long seed,
            double step,
            double load) {
        InflationStepper stepper = new InflationStepper(nodes, workload, spec, seed, step, load);
        List<CurvePoint> curve = new ArrayList<>();
        long nanos = 0;
        for (int index : sequence) {
            long t0 = System.nanoTime();
            stepper.accept(trace.get(index), curve);
            nanos += System.nanoTime() - t0;
        }
        return new Result(spec, seed, curve, sequence.length, stepper.failed(), nanos);
    }
}
