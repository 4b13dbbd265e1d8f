package org.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.gpusched.streaming.Topics;
import org.gpusched.streaming.kafka.KafkaSettings;
import org.gpusched.streaming.kafka.TopicAdmin;
import org.gpusched.streaming.kafka.TopicOffsets;
import org.gpusched.testkit.LocalKafkaBroker;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A run on Kafka that can be looked at, on a real broker: {@code run --bounded --out} leaves the run directory and
 * summary a file replay does (validate and report take it), {@code consume} reads the output topics back as JSON
 * Lines, rejected records with their reasons, and the records a run reports as written are the committed ones.
 */
class RunKafkaIT {
    private static final Path EXAMPLES =
            Path.of("../../examples").toAbsolutePath().normalize();
    private static final String TRACE = EXAMPLES.resolve("armida-trace.jsonl").toString();
    private static final String CLUSTER =
            EXAMPLES.resolve("armida-cluster.yaml").toString();
    private static final ObjectMapper JSON = new ObjectMapper();
    private static LocalKafkaBroker broker;

    @TempDir
    Path tmp;

    @BeforeAll
    static void startBroker() throws Exception {
        broker = LocalKafkaBroker.start("cli-run-it");
    }

    @AfterAll
    static void stopBroker() throws Exception {
        if (broker != null) broker.close();
    }

    private static List<JsonNode> lines(String text) throws Exception {
        List<JsonNode> nodes = new ArrayList<>();
        for (String l : text.split("\n")) if (!l.isBlank()) nodes.add(JSON.readTree(l));
        return nodes;
    }

    private static long written(String runOut, String topic) {
        Matcher m = Pattern.compile(Pattern.quote(topic) + "\\s+([\\d,]+)\\s+\\(written\\)")
                .matcher(runOut);
        assertTrue(m.find(), topic + " in " + runOut);
        return Long.parseLong(m.group(1).replace(",", ""));
    }

    @Test
    void aBoundedRunLeavesAValidatableRunDirectoryAndItsTopicsReadBackAsJsonLines() throws Exception {
        String prefix = "plain.";
        KafkaSettings kafka = KafkaSettings.of(broker.bootstrap()).withTopicPrefix(prefix);
        TopicAdmin.createAll(kafka.clientConfig(), prefix, 1, (short) 1);
        Path trace = tmp.resolve("trace.jsonl");
        List<String> traceLines = new ArrayList<>(Files.readAllLines(Path.of(TRACE)));
        traceLines.add(3, "{\"id\": \"broken\", \"submit\": 3,");
        Files.write(trace, traceLines);
        var produced = WorkloadCommandsTest.gpusched(
                "produce", "--trace", trace.toString(), "--bootstrap", broker.bootstrap(), "--topic-prefix", prefix);
        assertEquals(0, produced.exit(), produced.err());

        Path out = tmp.resolve("kafka-run");
        var run = WorkloadCommandsTest.gpusched(
                "run",
                "--bootstrap",
                broker.bootstrap(),
                "--topic-prefix",
                prefix,
                "--cluster",
                CLUSTER,
                "--policy",
                "andreas-rg",
                "--seed",
                "3",
                "--bounded",
                "--out",
                out.toString());
        assertEquals(0, run.exit(), run.err());
        assertTrue(
                run.out().contains("total cost") && run.out().contains("andreas-rg"),
                "the summary table of a replay: " + run.out());
        var valid = WorkloadCommandsTest.gpusched("validate", out.toString());
        assertEquals(0, valid.exit(), valid.out() + valid.err());

        // the same decisions as the file replay of the same trace and seed
        Path fileOut = tmp.resolve("file-run");
        var replay = WorkloadCommandsTest.gpusched(
                "replay",
                "--trace",
                trace.toString(),
                "--cluster",
                CLUSTER,
                "--policy",
                "andreas-rg",
                "--seed",
                "3",
                "--out",
                fileOut.toString());
        assertEquals(0, replay.exit(), replay.err());
        assertEquals(
                Files.readAllLines(fileOut.resolve("decisions.jsonl")),
                Files.readAllLines(out.resolve("decisions.jsonl")));
        JsonNode fileMetrics = JSON.readTree(fileOut.resolve("metrics.json").toFile()),
                kafkaMetrics = JSON.readTree(out.resolve("metrics.json").toFile());
        for (String m : List.of("totalCost", "completedJobs", "acceptedJobs", "rejected", "decisions"))
            assertEquals(fileMetrics.get(m), kafkaMetrics.get(m), m);
        var report = WorkloadCommandsTest.gpusched(
                "report",
                fileOut.toString(),
                out.toString(),
                "--out",
                tmp.resolve("report").toString());
        assertEquals(0, report.exit(), report.err());
        assertTrue(report.out().contains("source="), "the two runs are told apart by where they read: " + report.out());

        // consume: the decisions topic as JSON Lines, the same decisions as the run directory's
        var decisions = WorkloadCommandsTest.gpusched(
                "consume", "--bootstrap", broker.bootstrap(), "--topic-prefix", prefix, "--topic", "decisions");
        assertEquals(0, decisions.exit(), decisions.err());
        List<JsonNode> fromTopic = lines(decisions.out());
        List<JsonNode> fromDir = lines(Files.readString(out.resolve("decisions.jsonl")));
        assertEquals(fromDir.size(), fromTopic.size());
        assertEquals(fromDir.size(), written(run.out(), prefix + Topics.DECISIONS.topic()));
        for (JsonNode d : fromDir) {
            assertTrue(
                    fromTopic.stream()
                            .anyMatch(t -> t.get("job").equals(d.get("job"))
                                    && t.get("action").equals(d.get("action"))
                                    && t.get("time").asDouble() == d.get("time").asDouble()),
                    "on the topic: " + d);
        }
        var rejected = WorkloadCommandsTest.gpusched(
                "consume", "--bootstrap", broker.bootstrap(), "--topic-prefix", prefix, "--topic", "rejected");
        assertEquals(0, rejected.exit(), rejected.err());
        List<JsonNode> reasons = lines(rejected.out());
        assertEquals(1, reasons.size(), rejected.out());
        assertEquals(
                "{\"id\": \"broken\", \"submit\": 3,",
                reasons.get(0).get("text").asText());
        assertTrue(
                reasons.get(0).get("position").asText().endsWith(trace + ":4)"),
                reasons.get(0).toString());
        assertTrue(!reasons.get(0).get("reason").asText().isBlank());
        var metrics = WorkloadCommandsTest.gpusched(
                "consume",
                "--bootstrap",
                broker.bootstrap(),
                "--topic-prefix",
                prefix,
                "--topic",
                "metrics.jobs",
                "--max",
                "2");
        assertEquals(2, lines(metrics.out()).size(), metrics.out());

        var unknown =
                WorkloadCommandsTest.gpusched("consume", "--bootstrap", broker.bootstrap(), "--topic", "decision");
        assertEquals(2, unknown.exit());
        assertTrue(unknown.err().contains("unknown topic 'decision'"), unknown.err());
    }

    @Test
    void anExactlyOnceRunCountsItsCommittedRecordsNotTheTransactionMarkers() throws Exception {
        String prefix = "eos.";
        KafkaSettings kafka = KafkaSettings.of(broker.bootstrap()).withTopicPrefix(prefix);
        TopicAdmin.createAll(kafka.clientConfig(), prefix, 1, (short) 1);
        assertEquals(
                0,
                WorkloadCommandsTest.gpusched(
                                "produce",
                                "--trace",
                                TRACE,
                                "--bootstrap",
                                broker.bootstrap(),
                                "--topic-prefix",
                                prefix)
                        .exit());
        String decisionsTopic = prefix + Topics.DECISIONS.topic();
        long before;
        try (TopicOffsets offsets = new TopicOffsets(kafka.clientConfig())) {
            before = offsets.endOffsets(List.of(decisionsTopic)).get(decisionsTopic);
        }
        Path out = tmp.resolve("eos-run");
        var run = WorkloadCommandsTest.gpusched(
                "run",
                "--bootstrap",
                broker.bootstrap(),
                "--topic-prefix",
                prefix,
                "--cluster",
                CLUSTER,
                "--policy",
                "fifo",
                "--bounded",
                "--checkpoint-interval",
                "0.2",
                "--out",
                out.toString());
        assertEquals(0, run.exit(), run.err());
        long decisions = Files.readAllLines(out.resolve("decisions.jsonl")).size();
        long offsetsMoved;
        try (TopicOffsets offsets = new TopicOffsets(kafka.clientConfig())) {
            Map<String, Long> end = offsets.endOffsets(List.of(decisionsTopic));
            offsetsMoved = end.get(decisionsTopic) - before;
        }
        assertTrue(
                offsetsMoved > decisions,
                "transactions add commit markers to the offsets: " + offsetsMoved + " vs " + decisions);
        assertEquals(decisions, written(run.out(), decisionsTopic), "the run reports the committed decisions");
        var consumed = WorkloadCommandsTest.gpusched(
                "consume", "--bootstrap", broker.bootstrap(), "--topic-prefix", prefix, "--topic", "decisions");
        assertEquals(decisions, lines(consumed.out()).size());
    }
}
