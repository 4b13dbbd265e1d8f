package org.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A replay whose cluster changes while it runs (--node-events): a node added, one retyped, one failed and back. The
 * run directory records the node timeline, the independent auditor ({@code validate}) passes it and fails it once a
 * decision falls before the node it names was added; a job that only the failed node can run waits for it.
 */
class NodeTimelineIT {
    private static final Path EXAMPLES =
            Path.of("../../examples").toAbsolutePath().normalize();
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path tmp;

    @Test
    void nodesAddedRetypedAndFailedAtRunTimeAreRecordedAndAudited() throws Exception {
        Path trace = tmp.resolve("trace.jsonl");
        List<String> lines = new ArrayList<>(Files.readAllLines(EXAMPLES.resolve("armida-trace.jsonl")));
        // Only T4 nodes run these: armida-07, and armida-08 once added (armida-05 once retyped).
        lines.add(
                "{\"id\": \"T4a\", \"submit\": 200, \"due\": 20000, \"weight\": 1, \"times\": {\"T4x1\": {\"1\": 4000}}}");
        lines.add(
                "{\"id\": \"T4b\", \"submit\": 200, \"due\": 20000, \"weight\": 1, \"times\": {\"T4x1\": {\"1\": 4000}}}");
        // Only armida-06 (the one V100x2) runs this, and it is down from 1000 to 3000.
        lines.add(
                "{\"id\": \"V2\", \"submit\": 1500, \"due\": 9000, \"weight\": 1, \"times\": {\"V100x2\": {\"2\": 600}}}");
        lines.sort((a, b) -> Double.compare(submit(a), submit(b)));
        Files.write(trace, lines);
        Path events = tmp.resolve("events.jsonl");
        Files.write(
                events,
                List.of(
                        "{\"time\": 100, \"node\": \"armida-08\", \"kind\": \"ADDED\", \"type\": \"T4x1\"}",
                        "{\"time\": 500, \"node\": \"armida-05\", \"kind\": \"TYPE_CHANGED\", \"type\": \"T4x1\"}",
                        "{\"time\": 1000, \"node\": \"armida-06\", \"kind\": \"FAILED\"}",
                        "{\"time\": 3000, \"node\": \"armida-06\", \"kind\": \"ADDED\", \"type\": \"V100x2\"}"));
        Path run = tmp.resolve("run");
        var r = WorkloadCommandsTest.gpusched(
                "replay",
                "--trace",
                trace.toString(),
                "--cluster",
                EXAMPLES.resolve("armida-cluster.yaml").toString(),
                "--policy",
                "fifo",
                "--node-events",
                events.toString(),
                "--out",
                run.toString());
        assertEquals(0, r.exit(), r.err());

        List<JsonNode> timeline = new ArrayList<>();
        for (String l : Files.readAllLines(run.resolve("node-events.jsonl"))) timeline.add(JSON.readTree(l));
        assertEquals(4, timeline.size(), timeline.toString());
        assertEquals(
                List.of(100.0, 500.0, 1000.0, 3000.0),
                timeline.stream().map(e -> e.get("time").asDouble()).toList());
        assertEquals("TYPE_CHANGED", timeline.get(1).get("kind").asText());
        assertEquals("T4x1", timeline.get(1).get("type").asText());
        assertEquals("", Files.readString(run.resolve("rejected.jsonl")), "no job rejected, V2 included");

        List<JsonNode> decisions = new ArrayList<>();
        for (String l : Files.readAllLines(run.resolve("decisions.jsonl"))) decisions.add(JSON.readTree(l));
        JsonNode firstOnAdded = decisions.stream()
                .filter(d -> d.get("node").asText().equals("armida-08"))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no job ran on the added node"));
        assertTrue(firstOnAdded.get("time").asDouble() >= 100, firstOnAdded.toString());
        JsonNode v2 = decisions.stream()
                .filter(d -> d.get("job").asText().equals("V2")
                        && d.get("action").asText().equals("START"))
                .findFirst()
                .orElseThrow(() -> new AssertionError("V2 never started"));
        assertTrue(v2.get("time").asDouble() >= 3000, "V2 waits for armida-06 to come back: " + v2);
        assertEquals("armida-06", v2.get("node").asText());
        assertEquals(
                11,
                JSON.readTree(run.resolve("metrics.json").toFile())
                        .get("completedJobs")
                        .asInt());

        var valid = WorkloadCommandsTest.gpusched("validate", run.toString());
        assertEquals(0, valid.exit(), valid.out() + valid.err());

        // The same run with armida-08 added only after its first job was placed on it: the auditor must object.
        double late = firstOnAdded.get("time").asDouble() + 1;
        List<String> moved = new ArrayList<>(Files.readAllLines(run.resolve("node-events.jsonl")));
        moved.set(0, moved.get(0).replace("\"time\":100.0", "\"time\":" + late));
        assertTrue(moved.get(0).contains("\"time\":" + late), moved.get(0));
        moved.sort((a, b) -> Double.compare(time(a), time(b)));
        Files.write(run.resolve("node-events.jsonl"), moved);
        var invalid = WorkloadCommandsTest.gpusched("validate", run.toString());
        assertEquals(1, invalid.exit(), invalid.out() + invalid.err());
        assertTrue(invalid.out().contains("NODE_ABSENT") && invalid.out().contains("armida-08"), invalid.out());
    }

    private static double submit(String line) {
        try {
            return JSON.readTree(line).get("submit").asDouble();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static double time(String line) {
        try {
            return JSON.readTree(line).get("time").asDouble();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
