package org.gpusched.streaming.placement;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.gpusched.placement.model.NodeSpec;
import org.gpusched.streaming.RawRecord;
import org.gpusched.streaming.Topics;
import org.gpusched.streaming.avro.PodAction;
import org.gpusched.streaming.avro.PodPlacement;
import org.gpusched.streaming.avro.RejectedRecord;
import org.gpusched.streaming.kafka.KafkaJobSinks;
import org.gpusched.streaming.kafka.KafkaJobSources;
import org.gpusched.streaming.kafka.KafkaSettings;

/**
 * The placement job on Kafka ({@code gpusched run --nodes}): {@link PlacementJob} over the pods topic
 * ({@link Topics#PODS}, {@code PodEvent}s published by {@link PodProducer}) into {@link Topics#POD_PLACEMENTS} and the
 * rejected topic. Bounded with {@link PlacementConfig#END_OF_INPUT}, the decisions equal place-replay's for the same pods
 * and seed; unbounded, event time trails the latest pod seen by the configured out-of-orderness, so a pod is decided
 * once a pod that much later arrives.
 */
public final class KafkaPlacement {
    private KafkaPlacement() {}

    /**
     * The job on Kafka: reads the pods topic, writes the placements and rejected topics (exactly once, in transactions
     * committed on checkpoints, when {@link KafkaSettings#exactlyOnce()}: the configuration must then checkpoint).
     */
    public static PlacementJob.Pipeline define(
            StreamExecutionEnvironment env, KafkaSettings kafka, PlacementConfig cfg) {
        if (kafka.exactlyOnce() && cfg.checkpointInterval().isZero())
            throw new IllegalArgumentException(
                    "exactly-once Kafka sinks commit on checkpoints: set a checkpoint interval first");
        return PlacementJob.define(env, new Pods(kafka), new Sinks(kafka, cfg), cfg);
    }

    /** The pods topic's records, unparsed. */
    public record Pods(KafkaSettings kafka) implements PlacementSources {
        @Override
        public DataStream<RawRecord> pods(StreamExecutionEnvironment env) {
            return env.fromSource(
                            new KafkaJobSources(kafka, false, Duration.ZERO).kafkaSource(Topics.PODS),
                            WatermarkStrategy.noWatermarks(),
                            "kafka-pods")
                    .uid("source-kafka-pods")
                    .name("kafka " + Topics.PODS.topic(kafka.topicPrefix()))
                    .setParallelism(1);
        }
    }

    /** The placements topic (as {@link PodPlacement}s, node names resolved) and the rejected topic. */
    public static final class Sinks implements PlacementSinks {
        private final KafkaJobSinks kafka;
        private final PlacementConfig cfg;

        public Sinks(KafkaSettings kafka, PlacementConfig cfg) {
            this.kafka = new KafkaJobSinks(kafka);
            this.cfg = cfg;
        }

        @Override
        public void placements(DataStream<ReplayEvent> events) {
            kafka.podPlacements(events.map(new ToPodPlacement(cfg.nodes()))
                    .uid("pod-placement-records")
                    .name("pod placement records")
                    .setParallelism(cfg.placementParallelism()));
        }

        @Override
        public void rejected(DataStream<RejectedRecord> rejected) {
            kafka.rejected(rejected);
        }
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
