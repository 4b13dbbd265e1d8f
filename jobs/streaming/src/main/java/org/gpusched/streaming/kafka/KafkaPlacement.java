package org.gpusched.streaming.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.gpusched.placement.model.NodeSpec;
import org.gpusched.streaming.RawRecord;
import org.gpusched.streaming.Topics;
import org.gpusched.streaming.avro.PodAction;
import org.gpusched.streaming.avro.PodPlacement;
import org.gpusched.streaming.avro.RejectedRecord;
import org.gpusched.streaming.placement.PlacementReplay;
import org.gpusched.streaming.placement.PodEventParser;
import org.gpusched.streaming.placement.PodRowParser;
import org.gpusched.streaming.placement.ReplayEvent;
import org.gpusched.streaming.placement.ReplayPod;
import org.gpusched.streaming.placement.ReplayRun;
import org.gpusched.streaming.placement.ReplayTrace;

/**
 * The placement policies (fgd, pwr, pwr-fgd, ...) on Kafka ({@code gpusched run --nodes}): the pods topic
 * ({@link Topics#PODS}) -> {@link PodEventParser} (bad records to the rejected topic with a reason) -> the placement
 * stage of the file replay ({@link PlacementReplay#place}: the same keyed {@code ReplayPlacementFunction}) ->
 * {@link Topics#POD_PLACEMENTS}. Bounded, the only watermark is the one at the end of the input, as in place-replay, so
 * the decisions equal place-replay's for the same pods and seed; unbounded, event time (the pods' creation times) trails
 * the latest pod seen by {@link Config#outOfOrdernessSeconds}, so a pod is decided once a pod that much later arrives.
 */
public final class KafkaPlacement {
    private KafkaPlacement() {}

    /**
     * @param workload the pod list the target workload of fgd and pwr-fgd comes from, and whose last time is reported
     *                 for the departures of pods cut off by the trace's end
     */
    public record Config(
            List<NodeSpec> nodes,
            ReplayTrace workload,
            List<ReplayRun> runs,
            boolean bounded,
            long outOfOrdernessSeconds,
            int placementParallelism) {
        public Config {
            if (nodes.isEmpty()) throw new IllegalArgumentException("no nodes");
            if (runs.isEmpty()) throw new IllegalArgumentException("no runs");
            if (outOfOrdernessSeconds < 0)
                throw new IllegalArgumentException("out-of-orderness must be >= 0, got " + outOfOrdernessSeconds);
            if (placementParallelism < 1) throw new IllegalArgumentException("placement parallelism must be >= 1");
            nodes = List.copyOf(nodes);
            runs = List.copyOf(runs);
        }
    }

    public record Pipeline(DataStream<PodPlacement> placements, DataStream<RejectedRecord> rejected) {}

    /** The job on the pods topic's raw records (tests give a finite stream); {@code podsTopic} names it in rejections. */
    public static Pipeline define(DataStream<RawRecord> podRecords, String podsTopic, Config config) {
        SingleOutputStreamOperator<ReplayPod> pods = podRecords
                .process(new PodEventParser(podsTopic))
                .uid("pod-event-parser")
                .name("pod event parser")
                .setParallelism(1);
        WatermarkStrategy<ReplayPod> watermarks = config.bounded()
                ? WatermarkStrategy.noWatermarks()
                // event time is in trace seconds where Flink expects milliseconds: the bound is in the same unit
                : WatermarkStrategy.forBoundedOutOfOrderness(Duration.ofMillis(config.outOfOrdernessSeconds()));
        DataStream<PodPlacement> placements = PlacementReplay.place(
                        pods,
                        watermarks,
                        config.nodes(),
                        config.workload(),
                        config.runs(),
                        config.placementParallelism())
                .map(new ToPodPlacement(config.nodes()))
                .uid("pod-placement-records")
                .name("pod placement records")
                .setParallelism(config.placementParallelism());
        return new Pipeline(placements, pods.getSideOutput(PodRowParser.REJECTED));
    }

    /**
     * The job on Kafka: reads the pods topic, writes the placements and rejected topics (exactly once, in transactions
     * committed on checkpoints, when {@link KafkaSettings#exactlyOnce()}: checkpointing must then be enabled on env).
     */
    public static Pipeline define(StreamExecutionEnvironment env, KafkaSettings kafka, Config config) {
        if (kafka.exactlyOnce() && !env.getCheckpointConfig().isCheckpointingEnabled())
            throw new IllegalArgumentException(
                    "exactly-once Kafka sinks commit on checkpoints: enable checkpointing first");
        String topic = Topics.PODS.topic(kafka.topicPrefix());
        DataStream<RawRecord> records = env.fromSource(
                        new KafkaJobSources(kafka, false, Duration.ZERO).kafkaSource(Topics.PODS),
                        WatermarkStrategy.noWatermarks(),
                        "kafka-pods")
                .uid("source-kafka-pods")
                .setParallelism(1);
        Pipeline p = define(records, topic, config);
        KafkaJobSinks sinks = new KafkaJobSinks(kafka);
        sinks.podPlacements(p.placements());
        sinks.rejected(p.rejected());
        return p;
    }

    /** A decision as the placements topic's record, with the node's name. Stateless. */
    public static final class ToPodPlacement implements MapFunction<ReplayEvent, PodPlacement> {
        private static final long serialVersionUID = 1L;
        private final List<String> nodeNames;

        public ToPodPlacement(List<NodeSpec> nodes) {
            this.nodeNames = nodes.stream().map(NodeSpec::name).toList();
        }

        @Override
        public PodPlacement map(ReplayEvent e) {
            List<Integer> gpus = new ArrayList<>(e.gpus.length);
            for (int g : e.gpus) gpus.add(g);
            return PodPlacement.newBuilder()
                    .setRun(e.run)
                    .setTime(e.time)
                    .setTask(e.task)
                    .setSeq(e.line)
                    .setAction(PodAction.valueOf(e.action))
                    .setNode(e.node >= 0 ? nodeNames.get(e.node) : null)
                    .setGpus(gpus)
                    .setGpuMilli(e.gpuMilli)
                    .setRunning(e.running)
                    .setEopcCpuWatts(e.eopcCpuWatts)
                    .setEopcGpuWatts(e.eopcGpuWatts)
                    .setAllocatedGpuFraction(e.allocatedGpuFraction)
                    .setFragmentedGpus(e.fragmentedGpus)
                    .build();
        }
    }
}
