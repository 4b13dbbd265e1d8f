package org.gpusched.streaming.placement;

import java.time.Duration;
import java.util.List;
import org.gpusched.placement.model.NodeSpec;

/**
 * The whole configuration of one placement job, immutable and validated on construction; every entry point (the file
 * replay, compare, Kafka, tests) builds one and calls {@link PlacementJob#define}.
 *
 * @param workload             the pod list fgd's and pwr-fgd's target workload comes from; its format parses text rows
 *                             and its last time is reported for the departures of pods cut off by the trace's end
 * @param runs                 one per (policy, seed): place-replay has one, compare several
 * @param outOfOrderness       how far event time trails the latest creation time seen, or {@link #END_OF_INPUT} (one
 *                             watermark at the end of a bounded input: every decision is taken then, in trace-time order)
 * @param placementParallelism parallelism of the keyed placement operator (runs are its keys)
 * @param checkpointInterval   zero: no checkpoints
 * @param watermarkInterval    how often event time advances (Flink's auto-watermark interval)
 */
public record PlacementConfig(
        List<NodeSpec> nodes,
        ReplayTrace workload,
        List<ReplayRun> runs,
        Duration outOfOrderness,
        int placementParallelism,
        Duration checkpointInterval,
        Duration watermarkInterval) {
    /** A value of -1 ms: no watermark before the end of a bounded input. */
    public static final Duration END_OF_INPUT = Duration.ofMillis(-1);

    public PlacementConfig {
        if (nodes.isEmpty()) throw new IllegalArgumentException("no nodes");
        if (runs.isEmpty()) throw new IllegalArgumentException("no runs");
        if (runs.stream().map(ReplayRun::key).distinct().count() != runs.size())
            throw new IllegalArgumentException("a run is given twice: " + runs);
        if (outOfOrderness.isNegative() && !outOfOrderness.equals(END_OF_INPUT))
            throw new IllegalArgumentException("out-of-orderness must be >= 0, got " + outOfOrderness);
        if (placementParallelism < 1) throw new IllegalArgumentException("placement parallelism must be >= 1");
        if (checkpointInterval.isNegative())
            throw new IllegalArgumentException("checkpoint interval must be >= 0, got " + checkpointInterval);
        if (watermarkInterval.toMillis() < 1)
            throw new IllegalArgumentException("watermark interval must be >= 1 ms, got " + watermarkInterval);
        nodes = List.copyOf(nodes);
        runs = List.copyOf(runs);
    }

    /** {@link #boundedReplay(List, ReplayTrace, List, int, Duration)} at the default watermark interval. */
    public static PlacementConfig boundedReplay(
            List<NodeSpec> nodes, ReplayTrace workload, List<ReplayRun> runs, int maxParallelism) {
        return boundedReplay(nodes, workload, runs, maxParallelism, PlacementOptions.WATERMARK_INTERVAL.defaultValue());
    }

    /**
     * The bounded replay of a pod list: one watermark at the end of the input, no checkpoints, one placement subtask per
     * run up to {@code maxParallelism}.
     */
    public static PlacementConfig boundedReplay(
            List<NodeSpec> nodes,
            ReplayTrace workload,
            List<ReplayRun> runs,
            int maxParallelism,
            Duration watermarkInterval) {
        return new PlacementConfig(
                nodes,
                workload,
                runs,
                END_OF_INPUT,
                Math.max(1, Math.min(runs.size(), maxParallelism)),
                Duration.ZERO,
                watermarkInterval);
    }

    public boolean watermarkAtEndOfInputOnly() {
        return outOfOrderness.equals(END_OF_INPUT);
    }
}
