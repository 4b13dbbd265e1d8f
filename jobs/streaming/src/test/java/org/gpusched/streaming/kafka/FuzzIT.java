package org.gpusched.streaming.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.gpusched.formats.ClusterYaml;
import org.gpusched.formats.TraceJson;
import org.gpusched.streaming.JobCodec;
import org.gpusched.streaming.SchedulerConfig;
import org.gpusched.streaming.SchedulerJob;
import org.gpusched.streaming.Topics;
import org.gpusched.streaming.avro.JobSubmitted;
import org.gpusched.streaming.avro.PlacementDecision;
import org.gpusched.streaming.avro.RejectedRecord;
import org.gpusched.streaming.file.AvroJson;
import org.gpusched.streaming.file.FileJobSinks;
import org.gpusched.streaming.file.FileJobSources;
import org.gpusched.streaming.file.RunDirectoryWriter;
import org.gpusched.streaming.fuzz.FuzzCorpus;
import org.gpusched.testkit.LocalKafkaBroker;
import org.gpusched.workloads.BenchmarkWorkload;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The fuzz corpus ({@link FuzzCorpus}, fixed seed) through the whole job, over files and over a real Kafka broker:
 * thousands of bad lines between the valid lines of a trace, and on Kafka also raw values that are not Avro, cut,
 * extended or claiming 2 GB. No crash; the decisions equal those of a replay of the valid lines alone; every bad
 * record is rejected with its position, a reason and a field.
 */
class FuzzIT {
    static final long SEED = 16;
    static final int VALID = 150, BAD_LINES = 3000, LONG_LINES = 3, RAW_RECORDS = 1000;
    private static final Path WORK =
            Path.of("target", "fuzz-it-" + ProcessHandle.current().pid()).toAbsolutePath();
    private static LocalKafkaBroker broker;

    @BeforeAll
    static void startBroker() throws Exception {
        broker = LocalKafkaBroker.start("fuzz-it");
    }

    @AfterAll
    static void stopBroker() throws Exception {
        if (broker != null) broker.close();
    }

    @Test
    void badRecordsAreRejectedAndTheValidOnesDecidedAsIfAlone() throws Exception {
        Files.createDirectories(WORK);
        Path cluster = WORK.resolve("cluster.yaml");
        Path valid = WORK.resolve("valid.jsonl");
        BenchmarkWorkload workload = new BenchmarkWorkload(VALID, 6, 1.2, SEED);
        workload.writeCluster(cluster);
        workload.writeTrace(valid);
        List<String> validLines = Files.readAllLines(valid);
        FuzzCorpus corpus = new FuzzCorpus(SEED);
        FuzzCorpus.Mixed mixed = corpus.mix(validLines, BAD_LINES, LONG_LINES);
        Path hostile = WORK.resolve("hostile.jsonl");
        FuzzCorpus.write(hostile, mixed);
        System.out.println(
                "fuzz corpus (seed " + SEED + "): " + mixed.badLines().size() + " bad lines " + mixed.byMutation());

        SchedulerConfig cfg = SchedulerConfig.builder()
                .cluster(ClusterYaml.read(cluster))
                .policy("fifo")
                .seed(SEED)
                .maxIterations(30)
                .outOfOrderness(SchedulerConfig.END_OF_INPUT_WATERMARK)
                .build();
        List<JsonNode> reference = fileRun(valid, cfg, "reference", FileJobSinks.DECISIONS);
        assertTrue(
                reference.stream()
                                .filter(d -> d.get("action").asText().equals("COMPLETE"))
                                .count()
                        == VALID,
                "every valid job completes alone");

        // Over files: the decisions of the valid lines, and one rejection per bad line at its file:line.
        List<JsonNode> fileDecisions = fileRun(hostile, cfg, "hostile", FileJobSinks.DECISIONS);
        List<JsonNode> fileRejected = RunDirectoryWriter.read(WORK.resolve("hostile"), FileJobSinks.REJECTED);
        assertEquals(sorted(reference), sorted(fileDecisions), "files: the valid records are decided as if alone");
        Set<String> expectedPositions = new HashSet<>();
        for (long line : mixed.badLines()) expectedPositions.add(hostile + ":" + line);
        Set<String> rejectedPositions = new HashSet<>();
        for (JsonNode r : fileRejected) {
            assertWellFormedRejection(r);
            rejectedPositions.add(r.get("position").asText());
        }
        assertEquals(mixed.badLines().size(), fileRejected.size(), "files: one rejection per bad line");
        assertTrue(expectedPositions.equals(rejectedPositions), "files: the rejections are the bad lines");

        // Over Kafka: the same file through the producer, then raw values no producer of the product writes.
        KafkaSettings kafka =
                KafkaSettings.of(broker.bootstrap()).withTopicPrefix("fuzz.").withBounded(true);
        TopicAdmin.createAll(kafka.clientConfig(), kafka.topicPrefix(), 1, (short) 1);
        TraceProducer.Summary produced = new TraceProducer(kafka, 0).publish(hostile, null);
        // Lines that are valid jobs but not for this cluster (an unknown type, too many GPUs) or not for this run (an
        // id taken before) go as Avro: the job rejects them.
        int publishedAsAvro = mixed.byMutation().get("unknown node type")
                + mixed.byMutation().get("more GPUs than the type has")
                + mixed.byMutation().get("id of an earlier job");
        assertEquals(VALID + publishedAsAvro, produced.published());
        assertEquals(mixed.badLines().size() - publishedAsAvro, produced.malformed());
        long unreadable = LONG_LINES + mixed.byMutation().get("invalid UTF-8 byte");
        assertTrue(
                produced.unreadable() >= unreadable,
                "over-long and non-UTF-8 lines are counted (random bytes are mostly not UTF-8 either): "
                        + produced.unreadable());
        assertTrue(
                produced.firstUnreadable().startsWith(hostile + ":"),
                "the first one is named by file:line: " + produced.firstUnreadable());
        List<JobSubmitted> validJobs = new ArrayList<>();
        for (String line : validLines) validJobs.add(JobCodec.toSubmitted(TraceJson.parse(line)));
        FuzzCorpus.Raw raw = corpus.rawRecords(validJobs, RAW_RECORDS);
        System.out.println("fuzz raw submissions (seed " + SEED + "): " + RAW_RECORDS + " values " + raw.byKind());
        publish(kafka, raw.values());

        // As `run --bounded --out` does: the topics, and the run directory's part files beside them.
        Path runParts = WORK.resolve("kafka-parts");
        StreamExecutionEnvironment env = env();
        KafkaPipeline.define(env, kafka, cfg, new FileJobSinks(runParts));
        env.execute("fuzz over kafka");
        assertEquals(
                sorted(reference),
                sorted(RunDirectoryWriter.read(runParts, FileJobSinks.DECISIONS)),
                "kafka, run directory: the valid records are decided as if alone");
        assertEquals(
                VALID,
                acceptedJobLines(runParts).size(),
                "kafka, run directory: every valid job and only they are accepted");
        for (String line : acceptedJobLines(runParts))
            assertTrue(
                    validLines.stream()
                            .anyMatch(v -> TraceJson.parse(v)
                                    .job()
                                    .equals(TraceJson.parse(line).job())),
                    "jobs.jsonl holds a valid job, no key twice (the strict parser refuses one): " + line);
        List<JsonNode> kafkaDecisions = readTopic(kafka, Topics.DECISIONS, PlacementDecision.class);
        List<JsonNode> kafkaRejected = readTopic(kafka, Topics.REJECTED, RejectedRecord.class);
        assertEquals(sorted(reference), sorted(kafkaDecisions), "kafka: the valid records are decided as if alone");
        assertEquals(
                mixed.badLines().size() + RAW_RECORDS, kafkaRejected.size(), "kafka: one rejection per bad record");
        for (JsonNode r : kafkaRejected) assertWellFormedRejection(r);
        for (String claim : List.of(
                "a string of 2000000000 bytes claimed with 1 bytes left",
                "an array block of 1073741824 items claimed with 6 bytes left")) {
            assertTrue(
                    kafkaRejected.stream()
                            .anyMatch(r -> r.get("reason").asText().contains(claim)),
                    "rejected, not an OutOfMemoryError: " + claim);
        }
        Set<String> kafkaOrigins = new HashSet<>();
        for (JsonNode r : kafkaRejected) {
            String position = r.get("position").asText();
            int open = position.indexOf(" (");
            if (open > 0) kafkaOrigins.add(position.substring(open + 2, position.length() - 1));
        }
        // Lines published as Avro (valid jobs for another cluster) and verbatim alike.
        assertEquals(
                mixed.badLines().size(), kafkaOrigins.size(), "kafka: the rejected trace lines carry their file:line");
        assertTrue(expectedPositions.containsAll(kafkaOrigins), "kafka: only bad lines are rejected");
        System.out.printf(
                "fuzz: %d bad lines over files, %d bad lines and %d raw values over Kafka: 0 crashes, %d valid jobs, 0 lost%n",
                mixed.badLines().size(), mixed.badLines().size(), RAW_RECORDS, VALID);
    }

    /** The accepted jobs' lines the run directory's jobs.jsonl is made of, as the sink wrote them. */
    private static List<String> acceptedJobLines(Path parts) throws Exception {
        List<String> lines = new ArrayList<>();
        try (var files = Files.list(parts)) {
            for (Path f : files.filter(f -> f.getFileName().toString().startsWith(FileJobSinks.ACCEPTED_JOBS))
                    .toList()) lines.addAll(Files.readAllLines(f));
        }
        return lines;
    }

    private static void assertWellFormedRejection(JsonNode r) {
        assertFalse(r.get("reason").asText("").isBlank(), "a reason: " + r);
        assertFalse(r.get("field").asText("").isBlank(), "a field: " + r);
        assertFalse(r.get("position").asText("").isBlank(), "a position: " + r);
    }

    private static List<JsonNode> fileRun(Path trace, SchedulerConfig cfg, String name, String output)
            throws Exception {
        Path parts = WORK.resolve(name);
        StreamExecutionEnvironment env = env();
        SchedulerJob.define(env, new FileJobSources(trace), new FileJobSinks(parts), cfg);
        env.execute("fuzz " + name);
        return RunDirectoryWriter.read(parts, output);
    }

    private static List<JsonNode> sorted(List<JsonNode> decisions) {
        List<JsonNode> copy = new ArrayList<>(decisions);
        copy.sort(Comparator.<JsonNode, String>comparing(d -> d.get("policy").asText())
                .thenComparingInt(d -> d.get("controller").asInt())
                .thenComparingLong(d -> d.get("seq").asLong()));
        return copy;
    }

    private static void publish(KafkaSettings kafka, List<byte[]> values) throws Exception {
        Properties p = kafka.clientConfig();
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
            for (byte[] v : values)
                producer.send(new ProducerRecord<>(Topics.SUBMISSIONS.topic(kafka.topicPrefix()), v));
            producer.flush();
        }
    }

    private static <T extends org.apache.avro.specific.SpecificRecordBase> List<JsonNode> readTopic(
            KafkaSettings kafka, Topics topic, Class<T> type) throws Exception {
        List<JsonNode> records = new ArrayList<>();
        for (T r : TopicRecords.read(kafka, topic, type)) records.add(AvroJson.MAPPER.readTree(AvroJson.toLine(r)));
        return records;
    }

    private static StreamExecutionEnvironment env() {
        Configuration conf = new Configuration();
        conf.set(CoreOptions.DEFAULT_PARALLELISM, 1);
        return StreamExecutionEnvironment.getExecutionEnvironment(conf);
    }
}
