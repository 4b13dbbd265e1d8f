package org.gpusched.streaming.placement;

import java.util.List;
import org.apache.flink.api.common.functions.FlatMapFunction;
import org.apache.flink.util.Collector;
import org.gpusched.placement.experiment.TaskSequence;
import org.gpusched.placement.model.Task;

/** Expands a run into its arrivals: the seed's Monte-Carlo sequence (the same for every policy), in arrival order. */
public final class ArrivalGenerator implements FlatMapFunction<InflationRunStart, InflationArrival> {
    private static final long serialVersionUID = 1L;

    private final List<Task> trace;
    private final long capacityMilli;
    private final double load;

    public ArrivalGenerator(List<Task> trace, long capacityMilli, double load) {
        this.trace = List.copyOf(trace);
        this.capacityMilli = capacityMilli;
        this.load = load;
    }

    @Override
    public void flatMap(InflationRunStart run, Collector<InflationArrival> out) {
        int[] sequence = TaskSequence.sample(trace, capacityMilli, load, run.seed);
        for (int i = 0; i < sequence.length; i++)
            out.collect(new InflationArrival(run.policyIndex, run.seed, i, sequence[i], i == sequence.length - 1));
    }
}
