package org.gpusched.streaming.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.avro.specific.SpecificRecordBase;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.configuration.ExternalizedCheckpointRetention;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.gpusched.formats.ClusterYaml;
import org.gpusched.streaming.JobSources;
import org.gpusched.streaming.RawRecord;
import org.gpusched.streaming.SchedulerConfig;
import org.gpusched.streaming.SchedulerJob;
import org.gpusched.streaming.Topics;
import org.gpusched.streaming.avro.JobCompleted;
import org.gpusched.streaming.avro.PlacementDecision;
import org.gpusched.streaming.avro.RejectedRecord;
import org.gpusched.streaming.file.AvroJson;
import org.gpusched.streaming.file.FileJobSinks;
import org.gpusched.streaming.file.FileJobSources;
import org.gpusched.streaming.file.RunDirectoryWriter;
import org.gpusched.testkit.LocalKafkaBroker;
import org.gpusched.workloads.BenchmarkWorkload;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * End to end against a real Kafka broker (bin/kafka-local, KRaft, started and stopped here): a trace with malformed
 * lines is published with {@link TraceProducer}, the scheduler job runs bounded over the topics on a Flink mini
 * cluster, and its decisions topic must hold exactly the decisions the file path produces for the same trace, cluster
 * and seed; malformed records must reach the rejected topic with a reason, and the job must go on.
 */
class KafkaReplayIT {
    /** Inputs and file-path outputs; per JVM, so concurrent runs in the same tree do not overwrite each other's. */
    private static final Path WORK =
            Path.of("target", "replay-it-work-" + ProcessHandle.current().pid()).toAbsolutePath();

    private static final int JOBS = 60;
    private static LocalKafkaBroker broker;

    @BeforeAll
    static void startBroker() throws Exception {
        broker = LocalKafkaBroker.start("replay-it");
    }

    @AfterAll
    static void stopBroker() throws Exception {
        if (broker != null) broker.close();
    }

    @Test
    void kafkaPathGivesExactlyTheFilePathsDecisionsAndRejectsBadRecords() throws Exception {
        Files.createDirectories(WORK);
        Path cluster = WORK.resolve("cluster.yaml");
        Path trace = WORK.resolve("trace.jsonl");
        BenchmarkWorkload workload = new BenchmarkWorkload(JOBS, 8, 1.2, 11);
        workload.writeCluster(cluster);
        workload.writeTrace(trace);
        List<String> lines = new ArrayList<>(Files.readAllLines(trace));
        String notJson = "{\"id\": \"broken\", \"submit\": 3,";
        String impossible = "{\"id\":\"late\",\"submit\":50,\"due\":10,\"weight\":1,\"times\":{\"K80x2\":{\"1\":100}}}";
        lines.add(5, notJson);
        lines.add(20, impossible);
        Files.write(trace, lines);

        for (String policy : List.of("andreas-rg", "fifo")) {
            SchedulerConfig cfg = SchedulerConfig.builder()
                    .cluster(ClusterYaml.read(cluster))
                    .policy(policy)
                    .seed(7)
                    .maxIterations(50)
                    .outOfOrderness(SchedulerConfig.END_OF_INPUT_WATERMARK)
                    .build();
            // andreas-rg reads Kafka with watermarks that follow the input (one partition, in time order), fifo with
            // one
            // watermark at the end of the input: both must give the file path's decisions
            SchedulerConfig kafkaCfg = SchedulerConfig.builder()
                    .cluster(ClusterYaml.read(cluster))
                    .policy(policy)
                    .seed(7)
                    .maxIterations(50)
                    .outOfOrderness(
                            policy.equals("andreas-rg") ? Duration.ZERO : SchedulerConfig.END_OF_INPUT_WATERMARK)
                    .build();

            Path parts = WORK.resolve("file-" + policy);
            StreamExecutionEnvironment fileEnv = env();
            SchedulerJob.define(fileEnv, new FileJobSources(trace), new FileJobSinks(parts), cfg);
            fileEnv.execute("file replay " + policy);
            List<JsonNode> fileDecisions = RunDirectoryWriter.read(parts, FileJobSinks.DECISIONS);
            List<JsonNode> fileRejected = RunDirectoryWriter.read(parts, FileJobSinks.REJECTED);

            KafkaSettings kafka = KafkaSettings.of(broker.bootstrap())
                    .withTopicPrefix(policy + ".")
                    .withBounded(true);
            TopicAdmin.createAll(kafka.clientConfig(), kafka.topicPrefix(), 1, (short) 1);
            TraceProducer.Summary produced = new TraceProducer(kafka, 0).publish(trace, null);
            assertEquals(JOBS, produced.published());
            assertEquals(2, produced.malformed());
            // A value that is not Avro at all, without the trace-line marker (someone else's producer).
            publishRaw(
                    kafka, Topics.SUBMISSIONS.topic(kafka.topicPrefix()), "garbage".getBytes(StandardCharsets.UTF_8));

            StreamExecutionEnvironment kafkaEnv = env();
            KafkaPipeline.define(kafkaEnv, kafka, kafkaCfg);
            kafkaEnv.execute("kafka replay " + policy);

            List<JsonNode> kafkaDecisions = readTopic(kafka, Topics.DECISIONS, PlacementDecision.class);
            List<JsonNode> kafkaRejected = readTopic(kafka, Topics.REJECTED, RejectedRecord.class);
            List<JsonNode> kafkaCompletions = readTopic(kafka, Topics.COMPLETIONS, JobCompleted.class);

            assertFalse(fileDecisions.isEmpty(), "the file replay decided something");
            sortDecisions(fileDecisions);
            sortDecisions(kafkaDecisions);
            System.out.printf(
                    "%s: %d decisions from the file path, %d from Kafka%n",
                    policy, fileDecisions.size(), kafkaDecisions.size());
            assertEquals(fileDecisions.size(), kafkaDecisions.size(), policy + ": number of decisions");
            for (int i = 0; i < fileDecisions.size(); i++) {
                assertEquals(fileDecisions.get(i), kafkaDecisions.get(i), policy + ": decision " + i);
            }
            long completes = kafkaDecisions.stream()
                    .filter(d -> d.get("action").asText().equals("COMPLETE"))
                    .count();
            assertEquals(JOBS, completes, policy + ": every valid job completes");
            assertEquals(
                    JOBS,
                    kafkaCompletions.size(),
                    policy + ": one simulated completion per job on the completions topic");

            assertEquals(2, fileRejected.size(), policy + ": the file path rejects the two malformed lines");
            assertEquals(3, kafkaRejected.size(), policy + ": the two malformed lines and the garbage value");
            JsonNode broken =
                    find(kafkaRejected, r -> notJson.equals(r.path("text").asText(null)));
            JsonNode late =
                    find(kafkaRejected, r -> impossible.equals(r.path("text").asText(null)));
            JsonNode garbage = find(kafkaRejected, r -> r.path("text").isNull());
            for (JsonNode r : List.of(broken, late, garbage)) {
                assertEquals(
                        Topics.SUBMISSIONS.topic(kafka.topicPrefix()),
                        r.get("source").asText());
                assertFalse(r.get("reason").asText().isBlank(), "a reason: " + r);
            }
            assertTrue(broken.get("position").asText().endsWith("(" + trace + ":6)"), broken.toString());
            assertTrue(late.get("position").asText().endsWith("(" + trace + ":21)"), late.toString());
            assertTrue(late.get("reason").asText().contains("due"), late.toString());
            // Same reasons as the file path gives for the same lines.
            assertEquals(
                    find(fileRejected, r -> notJson.equals(r.path("text").asText(null)))
                            .get("reason"),
                    broken.get("reason"));
            assertEquals(
                    find(fileRejected, r -> impossible.equals(r.path("text").asText(null)))
                            .get("reason"),
                    late.get("reason"));
            assertNotNull(garbage.get("bytes").asText(null), "the original bytes are kept");
            assertNull(garbage.path("text").asText(null));
        }
    }

    /**
     * With checkpoints on, the sinks write in Kafka transactions committed on checkpoints (exactly once); a
     * read_committed consumer must see the same decisions as the file path once the bounded job has finished.
     */
    @Test
    void checkpointedExactlyOnceRunGivesTheSameDecisions() throws Exception {
        Path dir = WORK.resolve("exactly-once");
        Path trace = workload(dir, new BenchmarkWorkload(30, 6, 1.2, 3));
        SchedulerConfig cfg = SchedulerConfig.builder()
                .cluster(ClusterYaml.read(dir.resolve("cluster.yaml")))
                .policy("andreas-rg")
                .seed(3)
                .maxIterations(30)
                .outOfOrderness(SchedulerConfig.END_OF_INPUT_WATERMARK)
                .checkpointInterval(Duration.ofMillis(300))
                .build();
        List<JsonNode> fileDecisions = fileDecisions(dir, trace, cfg);

        KafkaSettings kafka = exactlyOnceTopicsWith(trace, "eos.");
        StreamExecutionEnvironment kafkaEnv = env();
        KafkaPipeline.define(kafkaEnv, kafka, cfg);
        kafkaEnv.execute("kafka replay (exactly once)");
        List<JsonNode> kafkaDecisions = readTopic(kafka, Topics.DECISIONS, PlacementDecision.class);

        assertFalse(fileDecisions.isEmpty());
        sortDecisions(fileDecisions);
        sortDecisions(kafkaDecisions);
        assertEquals(fileDecisions, kafkaDecisions);
    }

    /**
     * A task failure after a completed checkpoint: the job restarts from it (Kafka offsets, the controllers' jobs,
     * costs and random state, their working memory rebuilt from that state) and, with exactly-once sinks, the
     * committed decisions equal those of a run without failure. Watermarks follow the input and the input is slowed,
     * so the controllers are mid-run, with jobs running, when it fails.
     */
    @Test
    void aFailureAfterACheckpointRestoresFromItWithTheSameDecisions() throws Exception {
        Checkpointed run = checkpointedRun("failover", 5);
        SchedulerConfig cfg = run.cfg();
        KafkaSettings kafka = run.kafka();
        List<JsonNode> fileDecisions = run.fileDecisions();
        Configuration conf = new Configuration();
        conf.set(CoreOptions.DEFAULT_PARALLELISM, 1);
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 2);
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(100));
        StreamExecutionEnvironment kafkaEnv = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        FailOnceAfterACheckpoint.FAILED.set(false);
        failingOnce(kafkaEnv, kafka, cfg);
        kafkaEnv.execute("kafka replay (one failure)");
        List<JsonNode> kafkaDecisions = readTopic(kafka, Topics.DECISIONS, PlacementDecision.class);

        assertTrue(FailOnceAfterACheckpoint.FAILED.get(), "the injected failure happened");
        assertTrue(fileDecisions.size() > JOBS, "a non-trivial run: " + fileDecisions.size());
        sortDecisions(fileDecisions);
        sortDecisions(kafkaDecisions);
        assertEquals(fileDecisions, kafkaDecisions);
    }

    /**
     * A bounded run that failed after a checkpoint, started again from that retained checkpoint, reads on to the
     * stopping offsets of its first start and finishes, with the decisions of a run without failure. The connector's
     * restored enumerator alone never tells its readers that no more splits come (FLINK-33466), and this run would
     * not end: {@link RestoredBoundedKafkaSource} does.
     */
    @Test
    void aBoundedRunRestoredFromARetainedCheckpointFinishesWithTheSameDecisions() throws Exception {
        Checkpointed run = checkpointedRun("bounded-restore", 9);
        SchedulerConfig cfg = run.cfg();
        KafkaSettings kafka = run.kafka();
        List<JsonNode> fileDecisions = run.fileDecisions();
        Path checkpoints = WORK.resolve("bounded-restore").resolve("checkpoints");

        Configuration conf = new Configuration();
        conf.set(CoreOptions.DEFAULT_PARALLELISM, 1);
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        conf.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, checkpoints.toUri().toString());
        conf.set(
                CheckpointingOptions.EXTERNALIZED_CHECKPOINT_RETENTION,
                ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION);
        FailOnceAfterACheckpoint.FAILED.set(false);
        StreamExecutionEnvironment failing = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        failingOnce(failing, kafka, cfg);
        assertThrows(Exception.class, () -> failing.execute("kafka replay (fails, no restart)"));
        assertTrue(FailOnceAfterACheckpoint.FAILED.get(), "the injected failure happened");

        Path retained;
        try (var files =
                Files.find(checkpoints, 3, (p, a) -> p.getFileName().toString().equals("_metadata"))) {
            // JOB-ID/chk-N/_metadata: the highest N
            retained = files.max(Comparator.comparingLong(p -> Long.parseLong(
                            p.getParent().getFileName().toString().substring("chk-".length()))))
                    .orElseThrow()
                    .getParent();
        }
        conf.set(StateRecoveryOptions.SAVEPOINT_PATH, retained.toUri().toString());
        StreamExecutionEnvironment restored = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        failingOnce(restored, kafka, cfg);
        JobClient job = restored.executeAsync("kafka replay (restored from " + retained.getFileName() + ")");
        try {
            job.getJobExecutionResult().get(120, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            job.cancel();
            throw new AssertionError("the restored bounded run did not finish within 120 s");
        }
        List<JsonNode> kafkaDecisions = readTopic(kafka, Topics.DECISIONS, PlacementDecision.class);
        assertTrue(fileDecisions.size() > JOBS, "a non-trivial run: " + fileDecisions.size());
        sortDecisions(fileDecisions);
        sortDecisions(kafkaDecisions);
        assertEquals(fileDecisions, kafkaDecisions);
    }

    /** A checkpointed run's configuration, the file path's decisions for its trace, and the topics holding the trace. */
    private record Checkpointed(SchedulerConfig cfg, List<JsonNode> fileDecisions, KafkaSettings kafka) {}

    /** A workload of JOBS jobs under WORK/name, andreas-rg with watermarks following the input and checkpoints every 200 ms. */
    private static Checkpointed checkpointedRun(String name, long seed) throws Exception {
        Path dir = WORK.resolve(name);
        Path trace = workload(dir, new BenchmarkWorkload(JOBS, 6, 1.5, seed));
        SchedulerConfig cfg = SchedulerConfig.builder()
                .cluster(ClusterYaml.read(dir.resolve("cluster.yaml")))
                .policy("andreas-rg")
                .seed(seed)
                .maxIterations(30)
                .outOfOrderness(Duration.ZERO)
                .checkpointInterval(Duration.ofMillis(200))
                .build();
        return new Checkpointed(cfg, fileDecisions(dir, trace, cfg), exactlyOnceTopicsWith(trace, name + "."));
    }

    /** The scheduler on the topics, its submissions passed through {@link FailOnceAfterACheckpoint}. */
    private static void failingOnce(StreamExecutionEnvironment env, KafkaSettings kafka, SchedulerConfig cfg) {
        KafkaJobSources kafkaSources = new KafkaJobSources(kafka, false, cfg.idleTimeout());
        JobSources failingOnce = e -> kafkaSources
                .submissions(e)
                .map(new FailOnceAfterACheckpoint(JOBS / 2))
                .uid("fail-once")
                .name("fail once after a checkpoint");
        SchedulerJob.define(env, failingOnce, new KafkaJobSinks(kafka), cfg);
    }

    /** Writes the workload's cluster.yaml and trace.jsonl into dir; returns the trace. */
    private static Path workload(Path dir, BenchmarkWorkload workload) throws Exception {
        Files.createDirectories(dir);
        workload.writeCluster(dir.resolve("cluster.yaml"));
        workload.writeTrace(dir.resolve("trace.jsonl"));
        return dir.resolve("trace.jsonl");
    }

    /** The decisions of the file path for the trace, the reference the Kafka runs are compared with. */
    private static List<JsonNode> fileDecisions(Path dir, Path trace, SchedulerConfig cfg) throws Exception {
        Path parts = dir.resolve("file");
        StreamExecutionEnvironment fileEnv = env();
        SchedulerJob.define(fileEnv, new FileJobSources(trace), new FileJobSinks(parts), cfg);
        fileEnv.execute("file replay (reference)");
        return RunDirectoryWriter.read(parts, FileJobSinks.DECISIONS);
    }

    /** Topics under the prefix holding the trace, read bounded and written in transactions (exactly once). */
    private static KafkaSettings exactlyOnceTopicsWith(Path trace, String prefix) throws Exception {
        KafkaSettings kafka = KafkaSettings.of(broker.bootstrap())
                .withTopicPrefix(prefix)
                .withBounded(true)
                .withExactlyOnce(true)
                .withGroupId(prefix + "it");
        TopicAdmin.createAll(kafka.clientConfig(), kafka.topicPrefix(), 1, (short) 1);
        new TraceProducer(kafka, 0).publish(trace, null);
        return kafka;
    }

    /** Passes records on slowly and, once per JVM, fails after a checkpoint completed and {@code after} records. */
    static final class FailOnceAfterACheckpoint implements MapFunction<RawRecord, RawRecord>, CheckpointListener {
        private static final long serialVersionUID = 1L;
        static final AtomicBoolean FAILED = new AtomicBoolean();
        private final int after;
        private transient int seen;
        private transient boolean checkpointed;

        FailOnceAfterACheckpoint(int after) {
            this.after = after;
        }

        @Override
        public RawRecord map(RawRecord record) throws Exception {
            // Past `after` records and still no completed checkpoint (a loaded machine): slower, so that one completes
            // before the input runs out (a blocking wait would hold back the checkpoint notification itself).
            Thread.sleep(seen >= after && !checkpointed ? 300 : 30);
            if (++seen > after && checkpointed && FAILED.compareAndSet(false, true))
                throw new IllegalStateException("injected failure");
            return record;
        }

        @Override
        public void notifyCheckpointComplete(long checkpointId) {
            checkpointed = true;
        }
    }

    private static StreamExecutionEnvironment env() {
        Configuration conf = new Configuration();
        conf.set(CoreOptions.DEFAULT_PARALLELISM, 1);
        return StreamExecutionEnvironment.getExecutionEnvironment(conf);
    }

    private static void sortDecisions(List<JsonNode> decisions) {
        decisions.sort(
                Comparator.<JsonNode, String>comparing(d -> d.get("policy").asText())
                        .thenComparingInt(d -> d.get("controller").asInt())
                        .thenComparingLong(d -> d.get("seq").asLong()));
    }

    private static JsonNode find(List<JsonNode> records, java.util.function.Predicate<JsonNode> which) {
        return records.stream()
                .filter(which)
                .findFirst()
                .orElseThrow(() -> new AssertionError("no such record in " + records));
    }

    private static void publishRaw(KafkaSettings kafka, String topic, byte[] value) throws Exception {
        TopicRecords.publishRaw(kafka, topic, value);
    }

    /** Every record of a topic (from the start to its current end), decoded and turned into the run files' JSON form. */
    private static <T extends SpecificRecordBase> List<JsonNode> readTopic(
            KafkaSettings kafka, Topics topic, Class<T> type) throws Exception {
        List<JsonNode> records = new ArrayList<>();
        for (T r : TopicRecords.read(kafka, topic, type)) records.add(AvroJson.MAPPER.readTree(AvroJson.toLine(r)));
        return records;
    }
}
