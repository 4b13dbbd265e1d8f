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
import org.gpusched.formats.TraceJson;
import org.gpusched.streaming.Topics;
import org.gpusched.streaming.avro.ExecutionTime;
import org.gpusched.streaming.avro.JobSubmitted;
import org.gpusched.streaming.avro.RejectedRecord;
import org.gpusched.streaming.kafka.AvroBinary;
import org.gpusched.streaming.kafka.KafkaSettings;
import org.gpusched.streaming.kafka.TopicAdmin;
import org.gpusched.testkit.HostileRecords;
import org.gpusched.testkit.LocalKafkaBroker;
import org.gpusched.testkit.TopicRecords;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Submissions another producer than gpusched's wrote, on a real broker: JobSubmitted records whose {@code extrasJson}
 * is not JSON or forges the record's own fields. {@code run --bounded} rejects each, with and without {@code --out},
 * at its topic-partition@offset, and goes on: the run directory is written, its jobs.jsonl holds the valid jobs with
 * no key twice, and {@code validate} passes.
 */
class HostileKafkaIT {
    private static final Path EXAMPLES =
            Path.of("../../examples").toAbsolutePath().normalize();
    private static final ObjectMapper JSON = new ObjectMapper();
    private static LocalKafkaBroker broker;

    @TempDir
    Path tmp;

    @BeforeAll
    static void startBroker() throws Exception {
        broker = LocalKafkaBroker.start("hostile-kafka-it");
    }

    @AfterAll
    static void stopBroker() throws Exception {
        if (broker != null) broker.close();
    }

    @Test
    void submissionsWithUnusableExtrasAreRejectedOnEveryPathAndTheRunGoesOn() throws Exception {
        String prefix = "extras.";
        KafkaSettings kafka = KafkaSettings.of(broker.bootstrap()).withTopicPrefix(prefix);
        TopicAdmin.createAll(kafka.clientConfig(), prefix, 1, (short) 1);
        var produced = WorkloadCommandsTest.gpusched(
                "produce",
                "--trace",
                EXAMPLES.resolve("armida-trace.jsonl").toString(),
                "--bootstrap",
                broker.bootstrap(),
                "--topic-prefix",
                prefix);
        assertEquals(0, produced.exit(), produced.err());
        AvroBinary<JobSubmitted> avro = new AvroBinary<>(JobSubmitted.class);
        int forged = 0;
        for (Map.Entry<String, String> bad : HostileRecords.badExtras().entrySet()) {
            JobSubmitted job = JobSubmitted.newBuilder()
                    .setId("forged-" + forged++)
                    .setSubmit(100)
                    .setDue(5000)
                    .setWeight(1)
                    .setTimes(List.of(new ExecutionTime("T4x1", 1, 600.0)))
                    .setActualFactor(null)
                    .setExtrasJson(bad.getValue())
                    .build();
            TopicRecords.publishRaw(kafka.clientConfig(), Topics.SUBMISSIONS.topic(prefix), avro.encode(job));
        }

        List<String> run = List.of(
                "run",
                "--bootstrap",
                broker.bootstrap(),
                "--topic-prefix",
                prefix,
                "--cluster",
                EXAMPLES.resolve("armida-cluster.yaml").toString(),
                "--policy",
                "fifo",
                "--bounded");
        Path out = tmp.resolve("run");
        List<String> withOut = new ArrayList<>(run);
        withOut.addAll(List.of("--out", out.toString()));
        var written = WorkloadCommandsTest.gpusched(withOut.toArray(String[]::new));
        assertEquals(0, written.exit(), written.err());
        List<String> jobs = Files.readAllLines(out.resolve("jobs.jsonl"));
        assertEquals(8, jobs.size(), "the valid jobs, none of the forged");
        for (String line : jobs) TraceJson.parse(line); // the strict parser refuses a key given twice
        List<String> rejected = Files.readAllLines(out.resolve("rejected.jsonl"));
        assertEquals(forged, rejected.size(), String.join("\n", rejected));
        for (String line : rejected) {
            JsonNode r = JSON.readTree(line);
            assertEquals("extrasJson", r.get("field").asText(), line);
            assertTrue(r.get("position").asText().startsWith(Topics.SUBMISSIONS.topic(prefix) + "-0@"), line);
        }
        var validated = WorkloadCommandsTest.gpusched("validate", out.toString());
        assertEquals(0, validated.exit(), validated.out() + validated.err());

        // without --out: the same rejections on the topic, and the valid jobs decided
        var topicsOnly = WorkloadCommandsTest.gpusched(run.toArray(String[]::new));
        assertEquals(0, topicsOnly.exit(), topicsOnly.err());
        long onTopic = TopicRecords.read(
                        kafka.clientConfig(),
                        Topics.REJECTED.topic(prefix),
                        new AvroBinary<>(RejectedRecord.class)::decode)
                .stream()
                .filter(r -> r.getField().equals("extrasJson"))
                .count();
        assertEquals(2L * forged, onTopic, "each run rejected every forged record");
    }
}
