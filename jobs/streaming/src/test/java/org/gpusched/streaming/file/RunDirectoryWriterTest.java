package org.gpusched.streaming.file;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.gpusched.core.model.Cluster;
import org.gpusched.core.model.Node;
import org.gpusched.core.model.NodeType;
import org.gpusched.core.objective.ObjectiveParameters;
import org.gpusched.formats.ClusterSpec;
import org.gpusched.streaming.SchedulerConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Part files merged into a run directory, also when one is out of time order (the in-memory fallback). */
class RunDirectoryWriterTest {
    @TempDir
    Path dir;

    private static String job(String id, double submit) {
        return "{\"id\":\"" + id + "\",\"submit\":" + submit
                + ",\"due\":9000.0,\"weight\":1.0,\"times\":{\"G1\":{\"1\":100.0}},\"actualFactor\":1.0}";
    }

    private static String decision(double time, int controller, long seq, String job) {
        return "{\"time\":" + time + ",\"job\":\"" + job
                + "\",\"action\":\"START\",\"node\":\"n0\",\"type\":\"G1\",\"gpus\":1,\"policy\":\"fifo\",\"controller\":"
                + controller + ",\"seq\":" + seq + "}";
    }

    private static String finished(double time, String job, double tardinessCost) {
        return "{\"time\":" + time + ",\"job\":\"" + job
                + "\",\"policy\":\"fifo\",\"controller\":0,\"jctSeconds\":10.0,\"tardinessSeconds\":"
                + (tardinessCost > 0 ? 5.0 : 0.0) + ",\"tardinessCost\":" + tardinessCost
                + ",\"preemptions\":1,\"migrations\":0,\"resizes\":0}";
    }

    @Test
    void partFilesOutOfTimeOrderAreSortedAndCountedOnce() throws Exception {
        Path parts = Files.createDirectories(dir.resolve("parts"));
        // part 0 is in order; part 1 is not (its second line is earlier than its first): the merge gives up midway
        Files.write(parts.resolve("accepted-jobs-0.jsonl"), List.of(job("a", 1), job("c", 3)));
        Files.write(parts.resolve("accepted-jobs-1.jsonl"), List.of(job("d", 4), job("b", 2)));
        Files.write(parts.resolve("decisions-0.jsonl"), List.of(decision(1, 0, 1, "a"), decision(3, 0, 2, "c")));
        Files.write(parts.resolve("decisions-1.jsonl"), List.of(decision(4, 1, 2, "d"), decision(2, 1, 1, "b")));
        Files.write(parts.resolve("job-metrics-0.jsonl"), List.of(finished(11, "a", 0), finished(13, "c", 0.5)));
        Files.write(parts.resolve("job-metrics-1.jsonl"), List.of(finished(14, "d", 0.25), finished(12, "b", 0)));
        Files.write(
                parts.resolve("scheduling-metrics-0.jsonl"),
                List.of("{\"policy\":\"fifo\",\"controller\":0,\"accruedExecutionCost\":2.0,\"optimizerNanos\":1000}"));
        Files.write(parts.resolve("rejected-0.jsonl"), List.of());
        Path out = dir.resolve("run");
        RunDirectoryWriter.Summary s = writeFifoRun(parts, out);

        assertEquals(
                List.of(job("a", 1), job("b", 2), job("c", 3), job("d", 4)),
                Files.readAllLines(out.resolve("jobs.jsonl")));
        List<String> decisions = Files.readAllLines(out.resolve("decisions.jsonl"));
        assertEquals(4, decisions.size());
        for (int i = 0; i < 4; i++)
            assertEquals(
                    i + 1.0,
                    AvroJson.MAPPER.readTree(decisions.get(i)).get("time").asDouble());
        assertEquals(4, s.acceptedJobs());
        assertEquals(4, s.completedJobs());
        assertEquals(4, s.decisions());
        assertEquals(0.75, s.tardinessCost(), 1e-12);
        assertEquals(2.75, s.totalCost(), 1e-12);
        assertEquals(2, s.tardyJobs());
        assertEquals(14 - 1.0, s.makespanSeconds(), 1e-12, "from the first submission to the last completion");
        JsonNode metrics = AvroJson.MAPPER.readTree(out.resolve("metrics.json").toFile());
        assertEquals(4, metrics.get("preemptions").asLong());
        assertEquals(
                List.of(
                                "jobs.jsonl",
                                "decisions.jsonl",
                                "metrics.json",
                                "node-events.jsonl",
                                "rejected.jsonl",
                                "run.json")
                        .stream()
                        .sorted()
                        .toList(),
                Files.list(out).map(p -> p.getFileName().toString()).sorted().toList(),
                "no scratch files left behind");
    }

    @Test
    void aSinglePartFileInOrderIsCopiedAndDecisionLinesLoseTheirNullsAndOtherPoliciesLines() throws Exception {
        Path parts = Files.createDirectories(dir.resolve("parts"));
        // the dispatcher's one key writes all accepted jobs to one part file; the other subtask's is empty
        Files.write(parts.resolve("accepted-jobs-0.jsonl"), List.of());
        Files.write(parts.resolve("accepted-jobs-1.jsonl"), List.of(job("a", 1), job("b", 1), job("c", 2.5)));
        Files.write(
                parts.resolve("decisions-0.jsonl"),
                List.of(
                        "{\"time\":2.5,\"job\":\"c\",\"action\":\"MIGRATE\",\"node\":\"n0\",\"type\":\"G1\",\"gpus\":1,\"previousNode\":\"n1\",\"expectedCompletion\":102.5,"
                                + "\"expectedCost\":0.027777777777777776,\"policy\":\"fifo\",\"controller\":0,\"seq\":2,\"reason\":null,\"note\":{\"x\":[1,2]}}",
                        "{\"time\":1.0,\"job\":\"a\",\"action\":\"START\",\"node\":\"n0\",\"type\":\"G1\",\"gpus\":1,\"previousNode\":null,\"policy\":\"edf\",\"controller\":0,\"seq\":1}"));
        Files.write(parts.resolve("decisions-1.jsonl"), List.of(decision(1, 1, 1, "a")));
        Files.write(
                parts.resolve("job-metrics-0.jsonl"),
                List.of(
                        finished(11, "a", 0.5),
                        "{\"time\":12.0,\"job\":\"b\",\"policy\":\"edf\",\"controller\":0,\"jctSeconds\":10.0,\"tardinessSeconds\":1.0,\"tardinessCost\":9.0,"
                                + "\"preemptions\":0,\"migrations\":0,\"resizes\":0}"));
        Files.write(
                parts.resolve("scheduling-metrics-0.jsonl"),
                List.of(
                        "{\"time\":1.0,\"policy\":\"fifo\",\"controller\":0,\"trigger\":\"SUBMISSION\",\"accruedExecutionCost\":2.0,\"optimizerNanos\":3000000,\"deadlinePressure\":true}",
                        "{\"time\":2.0,\"policy\":\"fifo\",\"controller\":0,\"trigger\":\"COMPLETION\",\"accruedExecutionCost\":2.5,\"optimizerNanos\":0,\"deadlinePressure\":false}",
                        "{\"time\":1.0,\"policy\":\"edf\",\"controller\":0,\"trigger\":\"SUBMISSION\",\"accruedExecutionCost\":7.0,\"optimizerNanos\":9000000,\"deadlinePressure\":true}"));
        Files.write(
                parts.resolve("scheduling-metrics-1.jsonl"),
                List.of(
                        "{\"time\":1.0,\"policy\":\"fifo\",\"controller\":1,\"trigger\":\"SUBMISSION\",\"accruedExecutionCost\":1.0,\"optimizerNanos\":1000000}"));
        Path out = dir.resolve("run");
        RunDirectoryWriter.Summary s = writeFifoRun(parts, out);

        assertEquals(
                Files.readAllLines(parts.resolve("accepted-jobs-1.jsonl")),
                Files.readAllLines(out.resolve("jobs.jsonl")));
        assertEquals(3, s.acceptedJobs());
        assertEquals(
                List.of(
                        decision(1, 1, 1, "a"),
                        "{\"time\":2.5,\"job\":\"c\",\"action\":\"MIGRATE\",\"node\":\"n0\",\"type\":\"G1\",\"gpus\":1,\"previousNode\":\"n1\",\"expectedCompletion\":102.5,"
                                + "\"expectedCost\":0.027777777777777776,\"policy\":\"fifo\",\"controller\":0,\"seq\":2}"),
                Files.readAllLines(out.resolve("decisions.jsonl")),
                "fifo's decisions in time order, without null or unknown fields");
        assertEquals(2, s.decisions());
        assertEquals(1, s.completedJobs(), "edf's finished job is not fifo's");
        assertEquals(0.5, s.tardinessCost(), 1e-12);
        assertEquals(2.5 + 1.0, s.executionCost(), 1e-12, "the last accrued cost of each of fifo's controllers");
        assertEquals(3, s.reschedulings());
        assertEquals(2, s.optimizerCalls(), "reschedulings with a call (nanos > 0)");
        assertEquals(1, s.callsUnderPressure(), "fifo's pressed call; edf's is not fifo's, the last line has none");
        assertEquals(1.0, s.optimizerMedianMs(), 1e-12, "calls only (nanos 0 = no call): 1 and 3 ms");
        assertEquals(3.0, s.optimizerP99Ms(), 1e-12);
        assertEquals(11 - 1.0, s.makespanSeconds(), 1e-12);
    }

    /** The fifo run directory of the part files, on one G1 node. */
    private static RunDirectoryWriter.Summary writeFifoRun(Path parts, Path out) {
        NodeType g1 = new NodeType("G1", "X", 1, new double[] {0.5, 1.0});
        SchedulerConfig cfg = SchedulerConfig.builder()
                .policy("fifo")
                .cluster(new ClusterSpec(
                        new Cluster(List.of(g1), List.of(Node.fixed("n0", "G1"))),
                        new ObjectiveParameters(100, 3600, 0)))
                .build();
        return RunDirectoryWriter.write(parts, out, cfg, "fifo", Map.of());
    }
}
