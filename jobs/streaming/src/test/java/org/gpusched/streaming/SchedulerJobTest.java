package org.gpusched.streaming;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.dag.Transformation;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.graph.StreamGraph;
import org.apache.flink.streaming.api.graph.StreamNode;
import org.gpusched.streaming.file.FileJobSinks;
import org.junit.jupiter.api.Test;

/** The job graph itself: no Kryo, and a uid and a name on every operator (so savepoints survive changes). */
class SchedulerJobTest {
    @Test
    void everyOperatorHasAUidAndANameGenericTypesAreDisabledAndWatermarksFollowTheConfig() {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        SchedulerConfig cfg = TestData.config(TestData.oneGpuNodes(2, 600), "fifo")
                .policies(List.of("fifo", "edf"))
                .mode(SchedulerConfig.Mode.LIVE)
                .watermarkInterval(java.time.Duration.ofMillis(7))
                .build();
        JobSources sources = new JobSources() {
            private DataStream<RawRecord> of(StreamExecutionEnvironment e, String uid) {
                return e.fromData(List.of(RawRecord.text("x", "x:1", "{}")), TypeInformation.of(RawRecord.class))
                        .uid(uid)
                        .name(uid);
            }

            @Override
            public DataStream<RawRecord> submissions(StreamExecutionEnvironment e) {
                return of(e, "s");
            }

            @Override
            public java.util.Optional<DataStream<RawRecord>> completions(StreamExecutionEnvironment e) {
                return java.util.Optional.of(of(e, "c"));
            }

            @Override
            public java.util.Optional<DataStream<RawRecord>> nodeEvents(StreamExecutionEnvironment e) {
                return java.util.Optional.of(of(e, "n"));
            }

            @Override
            public java.util.Optional<DataStream<RawRecord>> telemetry(StreamExecutionEnvironment e) {
                return java.util.Optional.of(of(e, "t"));
            }
        };
        SchedulerJob.define(env, sources, new FileJobSinks(java.nio.file.Path.of("target/unused")), cfg);
        assertTrue(env.getConfig().getSerializerConfig().hasGenericTypesDisabled(), "pipeline.generic-types=false");
        assertEquals(7, env.getConfig().getAutoWatermarkInterval());
        Set<String> uids = new HashSet<>();
        for (Transformation<?> t : env.getTransformations()) collect(t, uids);
        StreamGraph graph = env.getStreamGraph(false);
        for (StreamNode node : graph.getStreamNodes()) {
            assertNotNull(node.getTransformationUID(), "operator without uid: " + node.getOperatorName());
            assertFalse(node.getOperatorName().isBlank());
        }
        assertTrue(
                uids.containsAll(List.of(
                        "parse-submissions",
                        "parse-completions",
                        "parse-node-events",
                        "parse-telemetry",
                        "event-time-submissions",
                        "event-time-completions",
                        "event-time-node-events",
                        "event-time-telemetry",
                        "dispatch",
                        "controllers")),
                uids.toString());
    }

    private static void collect(Transformation<?> t, Set<String> uids) {
        if (t.getUid() != null) uids.add(t.getUid());
        for (Transformation<?> in : t.getInputs()) collect(in, uids);
    }
}
