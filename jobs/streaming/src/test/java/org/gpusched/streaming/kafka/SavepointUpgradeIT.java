package org.gpusched.streaming.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.gpusched.formats.ClusterYaml;
import org.gpusched.streaming.JobSinks;
import org.gpusched.streaming.JobSources;
import org.gpusched.streaming.RawRecord;
import org.gpusched.streaming.SchedulerConfig;
import org.gpusched.streaming.SchedulerJob;
import org.gpusched.streaming.Topics;
import org.gpusched.streaming.avro.PlacementDecision;
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
 * An upgrade through a savepoint: a run of the job as an earlier version defined it is stopped mid-trace with a
 * savepoint (canonical format), and the current job graph, which has operators the earlier one lacked and runs at
 * another parallelism, is started from it. The committed decisions equal the file replay's, none twice.
 *
 * <p>The earlier version is not an older build: it is the job graph an earlier release submitted, rebuilt here from
 * the current classes. Up to the node timeline (run directory node-events.jsonl) a run over Kafka had the topic sinks
 * only; the current graph adds the run directory's file sinks, the node-timeline sink among them, and the test moves
 * it from parallelism 1 to 2 (the controllers' keyed state is redistributed over key groups). What it proves: operator
 * uids are stable and the state the earlier graph wrote (Kafka offsets, the dispatcher's buffers, the controllers'
 * jobs, costs and random state, the sinks' transactions) is read by the upgraded graph, nothing lost or doubled. What
 * it does not: a change of a state schema (the Avro records held in state are the same classes on both sides) or a
 * savepoint written by other code than this revision's.
 */
class SavepointUpgradeIT {
    private static final Path WORK = Path.of(
                    "target", "savepoint-upgrade-it-" + ProcessHandle.current().pid())
            .toAbsolutePath();
    private static final int JOBS = 80;
    private static LocalKafkaBroker broker;

    @BeforeAll
    static void startBroker() throws Exception {
        broker = LocalKafkaBroker.start("savepoint-upgrade-it");
    }

    @AfterAll
    static void stopBroker() throws Exception {
        if (broker != null) broker.close();
    }

    @Test
    void aSavepointOfTheEarlierJobGraphRestoresIntoTheUpgradedOneWithNothingLostOrDoubled() throws Exception {
        Path dir = WORK.resolve("upgrade");
        Files.createDirectories(dir);
        BenchmarkWorkload workload = new BenchmarkWorkload(JOBS, 6, 1.5, 21);
        workload.writeCluster(dir.resolve("cluster.yaml"));
        workload.writeTrace(dir.resolve("trace.jsonl"));
        SchedulerConfig cfg = SchedulerConfig.builder()
                .cluster(ClusterYaml.read(dir.resolve("cluster.yaml")))
                .policy("andreas-rg")
                .seed(21)
                .maxIterations(30)
                .controllers(2)
                .outOfOrderness(Duration.ZERO)
                .checkpointInterval(Duration.ofMillis(300))
                .build();

        Path reference = dir.resolve("file");
        StreamExecutionEnvironment fileEnv = env(1);
        SchedulerJob.define(fileEnv, new FileJobSources(dir.resolve("trace.jsonl")), new FileJobSinks(reference), cfg);
        fileEnv.execute("file replay (reference)");
        List<JsonNode> expected = RunDirectoryWriter.read(reference, FileJobSinks.DECISIONS);

        KafkaSettings kafka = KafkaSettings.of(broker.bootstrap())
                .withTopicPrefix("upgrade.")
                .withBounded(true)
                .withExactlyOnce(true)
                .withGroupId("upgrade-it");
        TopicAdmin.createAll(kafka.clientConfig(), kafka.topicPrefix(), 1, (short) 1);
        new TraceProducer(kafka, 0).publish(dir.resolve("trace.jsonl"), null);

        // The earlier version: topic sinks only, parallelism 1; stopped with a savepoint a third into the trace.
        Slowed.SEEN.set(0);
        StreamExecutionEnvironment earlier = env(1);
        define(earlier, kafka, cfg, new KafkaJobSinks(kafka));
        JobClient first = earlier.executeAsync("kafka replay (earlier job graph)");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (Slowed.SEEN.get() < JOBS / 3) {
            assertTrue(System.nanoTime() < deadline, "the earlier job read " + Slowed.SEEN.get() + " records in 120 s");
            assertTrue(!first.getJobExecutionResult().isDone(), "the earlier job ended before the savepoint");
            Thread.sleep(50);
        }
        String savepoint = first.stopWithSavepoint(
                        false, dir.resolve("savepoints").toUri().toString(), SavepointFormatType.CANONICAL)
                .get(120, TimeUnit.SECONDS);
        List<JsonNode> beforeUpgrade = decisions(kafka);
        assertTrue(
                !beforeUpgrade.isEmpty() && beforeUpgrade.size() < expected.size(),
                "stopped mid-run: " + beforeUpgrade.size() + " of " + expected.size() + " decisions committed");

        // The upgraded graph: the run directory's file sinks (node timeline included) added, parallelism 2.
        Configuration conf = new Configuration();
        conf.set(CoreOptions.DEFAULT_PARALLELISM, 2);
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        conf.set(StateRecoveryOptions.SAVEPOINT_PATH, savepoint);
        StreamExecutionEnvironment upgraded = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        Path parts = dir.resolve("upgraded-parts");
        define(upgraded, kafka, cfg, new KafkaPipeline.Both(new KafkaJobSinks(kafka), new FileJobSinks(parts)));
        JobClient second = upgraded.executeAsync("kafka replay (upgraded job graph, from " + savepoint + ")");
        second.getJobExecutionResult().get(180, TimeUnit.SECONDS);

        List<JsonNode> committed = decisions(kafka);
        assertEquals(committed.size(), new HashSet<>(committed).size(), "no decision twice");
        sort(expected);
        sort(committed);
        assertEquals(expected, committed);
        assertEquals(
                expected.size() - beforeUpgrade.size(),
                RunDirectoryWriter.read(parts, FileJobSinks.DECISIONS).size(),
                "the upgraded graph's added sinks see exactly the decisions after the savepoint");
        System.out.printf(
                "savepoint upgrade: %d of %d decisions committed by the earlier job graph, the rest by the upgraded one%n",
                beforeUpgrade.size(), expected.size());
    }

    /** The scheduler on the topics, its submissions passed through {@link Slowed} so a savepoint falls mid-trace. */
    private static void define(
            StreamExecutionEnvironment env, KafkaSettings kafka, SchedulerConfig cfg, JobSinks sinks) {
        KafkaJobSources topics = new KafkaJobSources(kafka, false, cfg.idleTimeout());
        JobSources slowed =
                e -> topics.submissions(e).map(new Slowed()).uid("slowed").name("slowed submissions");
        SchedulerJob.define(env, slowed, sinks, cfg);
    }

    /** Passes records on 40 ms apart, counting them. */
    static final class Slowed implements MapFunction<RawRecord, RawRecord> {
        private static final long serialVersionUID = 1L;
        static final AtomicInteger SEEN = new AtomicInteger();

        @Override
        public RawRecord map(RawRecord record) throws Exception {
            Thread.sleep(40);
            SEEN.incrementAndGet();
            return record;
        }
    }

    private static List<JsonNode> decisions(KafkaSettings kafka) throws Exception {
        List<JsonNode> records = new ArrayList<>();
        for (PlacementDecision d : TopicRecords.read(kafka, Topics.DECISIONS, PlacementDecision.class))
            records.add(AvroJson.MAPPER.readTree(AvroJson.toLine(d)));
        return records;
    }

    private static void sort(List<JsonNode> decisions) {
        decisions.sort(
                Comparator.<JsonNode, String>comparing(d -> d.get("policy").asText())
                        .thenComparingInt(d -> d.get("controller").asInt())
                        .thenComparingLong(d -> d.get("seq").asLong()));
    }

    private static StreamExecutionEnvironment env(int parallelism) {
        Configuration conf = new Configuration();
        conf.set(CoreOptions.DEFAULT_PARALLELISM, parallelism);
        return StreamExecutionEnvironment.getExecutionEnvironment(conf);
    }
}
