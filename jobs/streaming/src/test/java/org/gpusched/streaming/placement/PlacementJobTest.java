package org.gpusched.streaming.placement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.flink.api.common.typeutils.base.MapSerializer;
import org.apache.flink.api.dag.Transformation;
import org.apache.flink.formats.avro.typeutils.AvroSerializer;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.graph.StreamGraph;
import org.apache.flink.streaming.api.graph.StreamNode;
import org.gpusched.placement.experiment.PolicySpec;
import org.gpusched.placement.io.AlibabaTraceCsv;
import org.gpusched.streaming.kafka.KafkaSettings;
import org.junit.jupiter.api.Test;

/**
 * The placement job graph, for both entry points (pod-list file with collected events, Kafka topics), and the
 * inflation experiment's: no Kryo, a uid and a name on every operator, Avro state, event time in milliseconds.
 */
class PlacementJobTest {
    private static final ReplayTrace TRACE = ReplayTrace.scan(ReplayPlacementFunctionTest.PODS);
    private static final List<ReplayRun> RUNS = List.of(
            new ReplayRun(new PolicySpec("fgd", Double.NaN), 42), new ReplayRun(new PolicySpec("pwr-fgd", 0.1), 42));

    private static PlacementConfig config(Duration outOfOrderness, Duration checkpoints) {
        return new PlacementConfig(
                AlibabaTraceCsv.readNodes(ReplayPlacementFunctionTest.NODES),
                TRACE,
                RUNS,
                outOfOrderness,
                2,
                checkpoints,
                Duration.ofMillis(7));
    }

    @Test
    void everyOperatorOfTheFileJobHasAUidAndANameAndGenericTypesAreDisabled() {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        PlacementJob.define(
                env,
                new PlacementReplay.FilePods(ReplayPlacementFunctionTest.PODS),
                new PlacementReplay.CollectedPlacements(Path.of("target/unused")),
                config(PlacementConfig.END_OF_INPUT, Duration.ZERO));
        Set<String> uids = checkGraph(env);
        assertTrue(
                uids.containsAll(List.of(
                        "source-file-pods",
                        "parse-pods",
                        "event-time-pods",
                        "run-fan-out",
                        "placement",
                        "sink-file-rejected")),
                uids.toString());
        assertEquals(7, env.getConfig().getAutoWatermarkInterval());
    }

    @Test
    void everyOperatorOfTheKafkaJobHasAUidAndANameAndCheckpointsFollowTheConfig() {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        KafkaSettings kafka = KafkaSettings.of("127.0.0.1:1").withExactlyOnce(true);
        KafkaPlacement.define(env, kafka, config(Duration.ofSeconds(30), Duration.ofSeconds(3)));
        Set<String> uids = checkGraph(env);
        assertTrue(
                uids.containsAll(List.of(
                        "source-kafka-pods",
                        "parse-pods",
                        "event-time-pods",
                        "run-fan-out",
                        "placement",
                        "pod-placement-records")),
                uids.toString());
        assertEquals(3000, env.getCheckpointConfig().getCheckpointInterval());
    }

    @Test
    void exactlyOnceWithoutCheckpointsIsRefused() {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        KafkaSettings kafka = KafkaSettings.of("127.0.0.1:1").withExactlyOnce(true);
        assertThrows(
                IllegalArgumentException.class,
                () -> KafkaPlacement.define(env, kafka, config(PlacementConfig.END_OF_INPUT, Duration.ZERO)));
    }

    @Test
    void eventTimeIsTheCreationTimeInMilliseconds() {
        ReplayPod pod = ReplayPlacementFunctionTest.pods(ReplayPlacementFunctionTest.PODS, "r")
                .get(1);
        assertEquals(10, pod.creationTime);
        assertEquals(10_000, new PlacementJob.CreationTime().extractTimestamp(pod, 0));
    }

    @Test
    void theRunsStateIsAvroNotPojoOrKryo() {
        org.apache.flink.api.common.ExecutionConfig serializers = new org.apache.flink.api.common.ExecutionConfig();
        ((org.apache.flink.api.common.serialization.SerializerConfigImpl) serializers.getSerializerConfig())
                .setGenericTypes(false);
        ReplayPlacementFunction.ARRIVALS.initializeSerializerUnlessSet(serializers);
        ReplayPlacementFunction.PLACED.initializeSerializerUnlessSet(serializers);
        ReplayPlacementFunction.DEPARTURES.initializeSerializerUnlessSet(serializers);
        for (var d : List.of(ReplayPlacementFunction.ARRIVALS, ReplayPlacementFunction.PLACED)) {
            MapSerializer<?, ?> map = assertInstanceOf(MapSerializer.class, d.getSerializer());
            assertInstanceOf(AvroSerializer.class, map.getValueSerializer(), d.getName());
        }
        assertNotNull(ReplayPlacementFunction.DEPARTURES.getSerializer());
    }

    @Test
    void everyOperatorOfTheInflationJobHasAUidAndANameAndItsStateIsAvro() {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        StreamingInflation.define(
                env,
                new StreamingInflation.RunList(List.of(new InflationRunStart(0, 4))),
                new StreamingInflation.Collected(),
                InflationFixture.config(1));
        Set<String> uids = checkGraph(env);
        assertTrue(
                uids.containsAll(List.of("inflation-runs", "inflation-arrivals", "inflation-placement")),
                uids.toString());

        org.apache.flink.api.common.ExecutionConfig serializers = new org.apache.flink.api.common.ExecutionConfig();
        ((org.apache.flink.api.common.serialization.SerializerConfigImpl) serializers.getSerializerConfig())
                .setGenericTypes(false);
        InflationPlacementFunction.PROGRESS.initializeSerializerUnlessSet(serializers);
        InflationPlacementFunction.LOG.initializeSerializerUnlessSet(serializers);
        assertInstanceOf(AvroSerializer.class, InflationPlacementFunction.PROGRESS.getSerializer());
        var log = assertInstanceOf(
                org.apache.flink.api.common.typeutils.base.ListSerializer.class,
                InflationPlacementFunction.LOG.getSerializer());
        assertInstanceOf(AvroSerializer.class, log.getElementSerializer());
    }

    @Test
    void aNegativeOutOfOrdernessOtherThanEndOfInputIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> config(Duration.ofMillis(-5), Duration.ZERO));
        assertTrue(config(PlacementConfig.END_OF_INPUT, Duration.ZERO).watermarkAtEndOfInputOnly());
        assertFalse(config(Duration.ZERO, Duration.ZERO).watermarkAtEndOfInputOnly());
    }

    /** Every node of the graph has a uid and a name; generic types are off. Returns the uids. */
    private static Set<String> checkGraph(StreamExecutionEnvironment env) {
        assertTrue(env.getConfig().getSerializerConfig().hasGenericTypesDisabled(), "pipeline.generic-types=false");
        Set<String> uids = new HashSet<>();
        for (Transformation<?> t : env.getTransformations()) collect(t, uids);
        StreamGraph graph = env.getStreamGraph(false);
        for (StreamNode node : graph.getStreamNodes()) {
            assertNotNull(node.getTransformationUID(), "operator without uid: " + node.getOperatorName());
            assertFalse(node.getOperatorName().isBlank());
        }
        return uids;
    }

    private static void collect(Transformation<?> t, Set<String> uids) {
        if (t.getUid() != null) uids.add(t.getUid());
        for (Transformation<?> in : t.getInputs()) collect(in, uids);
    }
}
