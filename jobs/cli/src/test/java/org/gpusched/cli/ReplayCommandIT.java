package org.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code gpusched replay} end to end on the sample shipped in examples/ (the README's first command). */
class ReplayCommandIT {
    private static final Path EXAMPLES =
            Path.of("../../examples").toAbsolutePath().normalize();
    private static final String TRACE = EXAMPLES.resolve("armida-trace.jsonl").toString();
    private static final String CLUSTER =
            EXAMPLES.resolve("armida-cluster.yaml").toString();
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path tmp;

    /** {@code replay} of the sample with the policy into {@code out}, and the options after them. */
    private static WorkloadCommandsTest.Run replaySample(String policy, Path out, List<String> options) {
        List<String> args = new ArrayList<>(
                List.of("replay", "--trace", TRACE, "--cluster", CLUSTER, "--policy", policy, "--out", out.toString()));
        args.addAll(options);
        return WorkloadCommandsTest.gpusched(args.toArray(String[]::new));
    }

    @Test
    void sampleReplayWritesAValidRunDirectoryAndASummaryTable() throws Exception {
        Path out = tmp.resolve("armida");
        var r = replaySample("andreas-rg", out, List.of("--seed", "3"));
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().contains("total cost") && r.out().contains("andreas-rg"), r.out());
        assertTrue(r.err().contains("8/8 jobs finished"), "progress on stderr: " + r.err());
        for (String f : List.of(
                "run.json", "jobs.jsonl", "decisions.jsonl", "metrics.json", "rejected.jsonl", "node-events.jsonl"))
            assertTrue(Files.exists(out.resolve(f)), f);
        assertFalse(Files.exists(out.resolve(".parts")), "the part files are cleaned up");
        JsonNode metrics = JSON.readTree(out.resolve("metrics.json").toFile());
        assertEquals(8, metrics.get("completedJobs").asInt());
        for (String k : List.of(
                "totalCost",
                "executionCost",
                "tardinessCost",
                "tardyJobs",
                "meanJctSeconds",
                "makespanSeconds",
                "optimizerMedianMs",
                "optimizerP99Ms",
                "rejected")) {
            assertTrue(metrics.has(k), k);
        }
        JsonNode run = JSON.readTree(out.resolve("run.json").toFile());
        assertEquals("andreas-rg", run.get("policy").asText());
        assertEquals(3, run.get("seed").asInt());
        assertEquals("stable", run.get("stability").asText());
        assertEquals("auto", run.get("optimizerScope").asText());
        assertEquals(0, run.get("iterationsWithoutGain").asInt(), "one controller runs every iteration");
        assertEquals(3, run.get("nodes").size());
        assertEquals(3, run.get("nodeTypes").get("V100x2").get("costPerHour").size());
        List<String> decisions = Files.readAllLines(out.resolve("decisions.jsonl"));
        assertEquals(
                8, decisions.stream().filter(l -> l.contains("\"COMPLETE\"")).count());

        // the independent auditor accepts it (capacity, placements, completion times, totals)
        var v = WorkloadCommandsTest.gpusched("validate", out.toString());
        assertEquals(0, v.exit(), v.out() + v.err());

        // same seed, same decisions
        Path again = tmp.resolve("again");
        assertEquals(
                0, replaySample("andreas-rg", again, List.of("--seed", "3")).exit());
        assertEquals(decisions, Files.readAllLines(again.resolve("decisions.jsonl")));
    }

    @Test
    void controllersRunOnSeveralSubtasksByDefaultWithTheDecisionsOfOne() throws Exception {
        int processors = Runtime.getRuntime().availableProcessors();
        assertEquals(1, ReplayCommand.autoParallelism(1, processors), "one controller: one subtask");
        assertEquals(Math.min(3, processors), ReplayCommand.autoParallelism(3, processors));
        assertEquals(2, ReplayCommand.autoParallelism(200, 2));
        List<List<String>> decisions = new ArrayList<>();
        for (List<String> parallelism : List.of(List.<String>of(), List.of("--parallelism", "1"))) {
            Path out = tmp.resolve("k3-" + decisions.size());
            List<String> options = new ArrayList<>(List.of("--controllers", "3"));
            options.addAll(parallelism);
            var r = replaySample("andreas-rg", out, options);
            assertEquals(0, r.exit(), r.err());
            int subtasks = parallelism.isEmpty() ? ReplayCommand.autoParallelism(3, processors) : 1;
            int threads = subtasks > 1 ? Math.max(1, processors / subtasks) : processors;
            assertTrue(
                    r.err()
                            .contains("K=3 (" + subtasks + " subtask" + (subtasks == 1 ? "" : "s") + ", " + threads
                                    + " optimizer thread"),
                    r.err());
            decisions.add(Files.readAllLines(out.resolve("decisions.jsonl")));
            assertEquals(
                    0,
                    JSON.readTree(out.resolve("run.json").toFile())
                            .get("iterationsWithoutGain")
                            .asInt(),
                    "on fixed nodes local controllers run every iteration");
        }
        assertEquals(decisions.get(0), decisions.get(1));
        var audit =
                WorkloadCommandsTest.gpusched("validate", tmp.resolve("k3-0").toString());
        assertEquals(0, audit.exit(), audit.out() + audit.err());
    }

    @Test
    void aTraceOutOfTimeOrderIsBufferedAndGivesTheSameDecisionsAsTheSortedOne() throws Exception {
        Path sortedOut = tmp.resolve("sorted");
        var sorted = WorkloadCommandsTest.gpusched(
                "replay",
                "--trace",
                TRACE,
                "--cluster",
                CLUSTER,
                "--policy",
                "andreas-rg",
                "--out",
                sortedOut.toString());
        assertEquals(0, sorted.exit(), sorted.err());
        assertFalse(
                sorted.err().contains("is earlier than a line before it"), "a sorted trace streams: " + sorted.err());

        List<String> lines = new ArrayList<>(Files.readAllLines(Path.of(TRACE)));
        java.util.Collections.reverse(lines);
        Path reversed = tmp.resolve("reversed.jsonl");
        Files.write(reversed, lines);
        Path reversedOut = tmp.resolve("reversed");
        var r = WorkloadCommandsTest.gpusched(
                "replay",
                "--trace",
                reversed.toString(),
                "--cluster",
                CLUSTER,
                "--policy",
                "andreas-rg",
                "--out",
                reversedOut.toString());
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.err().contains(reversed + ":2 (submit) is earlier than a line before it"), r.err());
        assertEquals(
                Files.readAllLines(sortedOut.resolve("decisions.jsonl")),
                Files.readAllLines(reversedOut.resolve("decisions.jsonl")));
    }

    @Test
    void malformedLinesAreRejectedAndTheRunGoesOn() throws Exception {
        List<String> lines = new ArrayList<>(Files.readAllLines(Path.of(TRACE)));
        lines.add(
                2, "{\"id\": \"J99\", \"submit\": 10, \"due\": 5, \"weight\": 1, \"times\": {\"T4x1\": {\"1\": 100}}}");
        lines.add("this is not json");
        Path trace = tmp.resolve("bad.jsonl");
        Files.write(trace, lines);
        Path out = tmp.resolve("bad");
        var r = WorkloadCommandsTest.gpusched(
                "replay",
                "--trace",
                trace.toString(),
                "--cluster",
                CLUSTER,
                "--policy",
                "fifo",
                "--out",
                out.toString());
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().contains("2 rejected lines"), r.out());
        List<String> rejected = Files.readAllLines(out.resolve("rejected.jsonl"));
        assertEquals(2, rejected.size());
        assertEquals(
                trace + ":3", JSON.readTree(rejected.get(0)).get("position").asText());
        assertTrue(JSON.readTree(rejected.get(0)).get("reason").asText().contains("before its submission"));
        assertEquals(
                trace + ":10", JSON.readTree(rejected.get(1)).get("position").asText());
        assertEquals(
                8,
                JSON.readTree(out.resolve("metrics.json").toFile())
                        .get("completedJobs")
                        .asInt());
    }

    @Test
    void badCommandLinesExitNonZeroWithAMessageAndNoStackTrace() throws Exception {
        var unknownPolicy = WorkloadCommandsTest.gpusched(
                "replay",
                "--trace",
                TRACE,
                "--cluster",
                CLUSTER,
                "--policy",
                "magic",
                "--out",
                tmp.resolve("x").toString());
        assertEquals(2, unknownPolicy.exit());
        assertTrue(
                unknownPolicy.err().contains("unknown policy 'magic'")
                        && unknownPolicy.err().contains("andreas-rg"),
                unknownPolicy.err());
        var noTrace = WorkloadCommandsTest.gpusched(
                "replay",
                "--trace",
                tmp.resolve("nope.jsonl").toString(),
                "--cluster",
                CLUSTER,
                "--policy",
                "fifo",
                "--out",
                tmp.resolve("x").toString());
        assertEquals(2, noTrace.exit());
        assertTrue(noTrace.err().contains("nope.jsonl: no such file"), noTrace.err());
        Path badCluster = tmp.resolve("c.yaml");
        Files.writeString(
                badCluster,
                "nodeTypes:\n  A: {gpuModel: M, gpus: 1, pricePerHour: 1}\nnodes:\n  - {id: n1, type: B}\n");
        var cluster = WorkloadCommandsTest.gpusched(
                "replay",
                "--trace",
                TRACE,
                "--cluster",
                badCluster.toString(),
                "--policy",
                "fifo",
                "--out",
                tmp.resolve("x").toString());
        assertEquals(ExitCode.BAD_INPUT, cluster.exit());
        assertTrue(cluster.err().contains("unknown node type 'B'"), cluster.err());
        var controllers = WorkloadCommandsTest.gpusched(
                "replay",
                "--trace",
                TRACE,
                "--cluster",
                CLUSTER,
                "--policy",
                "fifo",
                "--controllers",
                "9",
                "--out",
                tmp.resolve("x").toString());
        assertEquals(2, controllers.exit());
        assertTrue(
                controllers.err().contains("--controllers must not exceed the cluster's nodes (3)"), controllers.err());
        for (var r : List.of(unknownPolicy, noTrace, cluster, controllers))
            assertFalse(r.err().contains("\tat "), "no stack trace: " + r.err());
    }

    @Test
    void localControllersOnVmsStopACallAfterThreeTenthsOfMaxItWithoutGainOnAnyThreadCount() throws Exception {
        Path instance = tmp.resolve("vms");
        var generated = WorkloadCommandsTest.gpusched(
                "generate",
                "--scenario",
                "hierarchical",
                "--nodes",
                "4",
                "--jobs",
                "30",
                "--seed",
                "2",
                "--out",
                instance.toString());
        assertEquals(0, generated.exit(), generated.err());
        List<List<String>> decisions = new ArrayList<>();
        for (String threads : List.of("1", "2")) {
            Path out = tmp.resolve("vms-" + threads);
            var r = WorkloadCommandsTest.gpusched(
                    "replay",
                    "--trace",
                    instance.resolve("trace.jsonl").toString(),
                    "--cluster",
                    instance.resolve("cluster.yaml").toString(),
                    "--policy",
                    "andreas-rg",
                    "--controllers",
                    "2",
                    "--parallelism",
                    "1",
                    "--optimizer-threads",
                    threads,
                    "--out",
                    out.toString());
            assertEquals(0, r.exit(), r.err());
            assertEquals(
                    300,
                    JSON.readTree(out.resolve("run.json").toFile())
                            .get("iterationsWithoutGain")
                            .asInt());
            decisions.add(Files.readAllLines(out.resolve("decisions.jsonl")));
        }
        assertEquals(decisions.get(0), decisions.get(1), "where a call stops does not depend on the threads");
    }
}
