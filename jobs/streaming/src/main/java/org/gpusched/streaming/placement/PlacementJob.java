package org.gpusched.streaming.placement;

import java.util.List;
import org.apache.flink.api.common.eventtime.SerializableTimestampAssigner;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.FlatMapFunction;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.gpusched.streaming.avro.RejectedRecord;

/**
 * The placement job's data flow, defined once for every entry point (place-replay and compare over files, {@code run
 * --nodes} on Kafka, tests):
 *
 * <pre>
 * sources (raw pod rows or PodEvents) -> PodParser (bad ones -> rejected) -> event time = creation time
 *   -> RunFanOut (a copy of every pod per run) -> keyBy run -> ReplayPlacementFunction -> placements
 * </pre>
 *
 * Each run (policy, seed) places every pod at its creation time and frees it at its deletion time, so the runs of a
 * compare see exactly the same pods. With {@link PlacementConfig#END_OF_INPUT} the only watermark is the one at the end
 * of a bounded input: the rows need not be sorted and every decision is taken then, in trace-time order, so a bounded
 * Kafka run decides exactly as the file replay.
 */
public final class PlacementJob {
    private PlacementJob() {}

    /** The operators of a defined job, for callers that want to attach more (tests). */
    public record Pipeline(SingleOutputStreamOperator<ReplayEvent> placements, DataStream<RejectedRecord> rejected) {}

    public static Pipeline define(
            StreamExecutionEnvironment env, PlacementSources sources, PlacementSinks sinks, PlacementConfig cfg) {
        Configuration pipeline = new Configuration();
        // Every record and state type is Avro, a Flink POJO or a basic type: a Kryo fallback would be a bug.
        pipeline.set(PipelineOptions.GENERIC_TYPES, false);
        pipeline.set(PipelineOptions.AUTO_WATERMARK_INTERVAL, cfg.watermarkInterval());
        env.configure(pipeline);
        if (!cfg.checkpointInterval().isZero())
            env.enableCheckpointing(cfg.checkpointInterval().toMillis());

        SingleOutputStreamOperator<ReplayPod> pods = sources.pods(env)
                .process(new PodParser(cfg.workload().format()))
                .uid("parse-pods")
                .name("parse pods")
                .setParallelism(1);
        WatermarkStrategy<ReplayPod> watermarks = cfg.watermarkAtEndOfInputOnly()
                ? WatermarkStrategy.noWatermarks()
                : WatermarkStrategy.forBoundedOutOfOrderness(cfg.outOfOrderness());
        SingleOutputStreamOperator<ReplayEvent> placements = pods.assignTimestampsAndWatermarks(
                        watermarks.withTimestampAssigner(new CreationTime()))
                .uid("event-time-pods")
                .name("event time pods")
                .setParallelism(1)
                .flatMap(new RunFanOut(cfg.runs()))
                .uid("run-fan-out")
                .name("run fan-out")
                .setParallelism(1)
                .keyBy(new RunKey())
                .process(new ReplayPlacementFunction(
                        cfg.nodes(),
                        cfg.workload().workloadTasks(),
                        cfg.runs(),
                        cfg.workload().endTime()))
                .uid("placement")
                .name("placement " + cfg.runs().stream().map(ReplayRun::key).toList())
                .setParallelism(cfg.placementParallelism());
        DataStream<RejectedRecord> rejected = pods.getSideOutput(PodParser.REJECTED);
        sinks.placements(placements);
        sinks.rejected(rejected);
        return new Pipeline(placements, rejected);
    }

    /** Key of a pod: its run. A named class, so Flink needs no lambda type extraction. */
    public static final class RunKey implements KeySelector<ReplayPod, String> {
        private static final long serialVersionUID = 1L;

        @Override
        public String getKey(ReplayPod p) {
            return p.run;
        }
    }

    /** Event time of a pod: its creation time, in milliseconds. */
    public static final class CreationTime implements SerializableTimestampAssigner<ReplayPod> {
        private static final long serialVersionUID = 1L;

        @Override
        public long extractTimestamp(ReplayPod p, long previous) {
            return ReplayPlacementFunction.millis(p.creationTime);
        }
    }

    /** Copies every pod to every run (the broadcast of the compare: all policies see exactly the same pods). Stateless. */
    public static final class RunFanOut implements FlatMapFunction<ReplayPod, ReplayPod> {
        private static final long serialVersionUID = 1L;
        private final List<String> runKeys;

        public RunFanOut(List<ReplayRun> runs) {
            this.runKeys = runs.stream().map(ReplayRun::key).toList();
        }

        @Override
        public void flatMap(ReplayPod pod, org.apache.flink.util.Collector<ReplayPod> out) {
            for (String key : runKeys) out.collect(pod.forRun(key));
        }
    }
}
