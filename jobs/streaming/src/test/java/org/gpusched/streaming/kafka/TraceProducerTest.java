package org.gpusched.streaming.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.apache.flink.streaming.util.ProcessFunctionTestHarnesses;
import org.gpusched.formats.ClusterSpec;
import org.gpusched.formats.ClusterYaml;
import org.gpusched.formats.TraceFile;
import org.gpusched.formats.TraceJob;
import org.gpusched.formats.TraceJson;
import org.gpusched.streaming.JobCodec;
import org.gpusched.streaming.RawRecord;
import org.gpusched.streaming.RecordParser;
import org.gpusched.streaming.SchedulerConfig;
import org.gpusched.streaming.Topics;
import org.gpusched.streaming.avro.JobSubmitted;
import org.gpusched.streaming.state.ControllerEvent;
import org.gpusched.workloads.BenchmarkWorkload;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The producer's records are what the job itself makes of the same trace lines (so the Kafka path and the file path
 * schedule the same jobs), and the benchmark workload is a valid, reproducible instance.
 */
class TraceProducerTest {
    @TempDir
    Path dir;

    @Test
    void producedRecordEqualsTheJobsOwnParseOfTheLine() throws Exception {
        BenchmarkWorkload workload = new BenchmarkWorkload(40, 12, 0.8, 5);
        Path cluster = dir.resolve("cluster.yaml");
        Path trace = dir.resolve("trace.jsonl");
        workload.writeCluster(cluster);
        workload.writeTrace(trace);
        SchedulerConfig cfg = SchedulerConfig.builder()
                .cluster(ClusterYaml.read(cluster))
                .policy("fifo")
                .build();
        List<String> lines = Files.readAllLines(trace);
        // Extras, and an actualFactor that the parser moves out of them, must survive too.
        lines.add("{\"id\":\"x1\",\"submit\":5,\"due\":900,\"weight\":1.5,\"times\":{\"V100x4\":{\"1\":300,\"2\":170}},"
                + "\"application\":\"bert\",\"epochs\":3,\"actualFactor\":1.2}");
        try (OneInputStreamOperatorTestHarness<RawRecord, ControllerEvent> parser =
                ProcessFunctionTestHarnesses.forProcessFunction(new RecordParser(Topics.SUBMISSIONS, cfg))) {
            for (int i = 0; i < lines.size(); i++)
                parser.processElement(RawRecord.text("trace", "trace:" + (i + 1), lines.get(i)), 0);
            List<ControllerEvent> events = parser.extractOutputValues();
            assertEquals(lines.size(), events.size(), "every line is a valid job");
            for (int i = 0; i < lines.size(); i++) {
                JobSubmitted expected = events.get(i).getSubmitted();
                assertEquals(expected, JobCodec.toSubmitted(TraceJson.parse(lines.get(i))), "line " + (i + 1));
            }
            JobSubmitted last = events.get(lines.size() - 1).getSubmitted();
            assertEquals(1.2, last.getActualFactor());
            assertEquals("{\"application\":\"bert\",\"epochs\":3}", last.getExtrasJson());
        }
    }

    @Test
    void benchmarkWorkloadIsValidSizedAndReproducible() throws Exception {
        BenchmarkWorkload workload = new BenchmarkWorkload(2000, 1000, 0.8, 42);
        Path cluster = dir.resolve("c.yaml");
        Path trace = dir.resolve("t.jsonl");
        workload.writeCluster(cluster);
        workload.writeTrace(trace);
        ClusterSpec spec = ClusterYaml.read(cluster);
        assertEquals(1000, spec.cluster().nodes().size());
        List<TraceJob> jobs = TraceFile.read(trace);
        assertEquals(2000, jobs.size());
        for (int i = 1; i < jobs.size(); i++)
            assertTrue(
                    jobs.get(i).job().submitSeconds() >= jobs.get(i - 1).job().submitSeconds());
        for (TraceJob j : jobs) {
            for (String type : j.job().times().keySet())
                assertTrue(spec.cluster().typesByName().containsKey(type), type);
        }
        Path again = dir.resolve("t2.jsonl");
        workload.writeTrace(again);
        assertEquals(Files.readString(trace), Files.readString(again), "same seed, same trace");
        Path other = dir.resolve("t3.jsonl");
        new BenchmarkWorkload(2000, 1000, 0.8, 43).writeTrace(other);
        assertNotEquals(Files.readString(trace), Files.readString(other), "another seed, another trace");
        assertFalse(jobs.get(0).job().times().isEmpty());
    }
}
