package org.gpusched.streaming.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import org.apache.avro.specific.SpecificRecordBase;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.gpusched.formats.ClusterYaml;
import org.gpusched.powerflow.truth.GroundTruth;
import org.gpusched.streaming.SchedulerConfig;
import org.gpusched.streaming.SchedulerJob;
import org.gpusched.streaming.Topics;
import org.gpusched.streaming.avro.DecisionAction;
import org.gpusched.streaming.avro.JobCompleted;
import org.gpusched.streaming.avro.JobModelFit;
import org.gpusched.streaming.avro.PlacementDecision;
import org.gpusched.streaming.avro.PowerflowJob;
import org.gpusched.streaming.avro.RejectedRecord;
import org.gpusched.streaming.avro.Telemetry;
import org.gpusched.streaming.avro.TelemetryKind;
import org.gpusched.streaming.file.FileJobSinks;
import org.gpusched.streaming.file.FileJobSources;
import org.gpusched.streaming.file.RunDirectoryWriter;
import org.gpusched.streaming.fuzz.LiveFuzzCorpus;
import org.gpusched.streaming.fuzz.LiveFuzzCorpus.Target;
import org.gpusched.streaming.fuzz.LiveFuzzCorpus.Value;
import org.gpusched.streaming.powerflow.PowerflowKafka;
import org.gpusched.streaming.powerflow.PowerflowSettings;
import org.gpusched.testkit.LocalKafkaBroker;
import org.gpusched.workloads.BenchmarkWorkload;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The live inputs fuzzed as {@link FuzzIT} fuzzes the submissions: the completions and telemetry topics of the
 * scheduler's live mode, and PowerFlow's telemetry and completions, each given the valid records of a run and
 * hundreds of bad values ({@link LiveFuzzCorpus}, fixed seed) between them, on a real broker. The run with the bad
 * values decides as the run with the valid records alone, and each bad value is rejected once, at its own
 * topic-partition@offset, with a reason and a field; the rejections of the valid records are those of the run without
 * the bad ones.
 */
class LiveFuzzIT {
    static final long SEED = 16;
    static final int JOBS = 60, BAD_COMPLETIONS = 500, BAD_TELEMETRY = 500;
    static final int POWERFLOW_JOBS = 6, BAD_POWERFLOW_COMPLETIONS = 300, BAD_POWERFLOW_TELEMETRY = 500;
    private static final Path WORK =
            Path.of("target", "live-fuzz-it-" + ProcessHandle.current().pid()).toAbsolutePath();
    private static LocalKafkaBroker broker;

    @BeforeAll
    static void startBroker() throws Exception {
        broker = LocalKafkaBroker.start("live-fuzz-it");
    }

    @AfterAll
    static void stopBroker() throws Exception {
        if (broker != null) broker.close();
    }

    /** What a topic was given: the values in order, and the offsets of the bad ones by kind. */
    private record Published(List<Long> badOffsets, Map<Long, String> kindAt) {}

    @Test
    void theSchedulersLiveInputsRejectEveryBadValueAndDecideAsTheValidOnesAlone() throws Exception {
        Files.createDirectories(WORK);
        Path cluster = WORK.resolve("cluster.yaml"), trace = WORK.resolve("trace.jsonl");
        BenchmarkWorkload workload = new BenchmarkWorkload(JOBS, 6, 1.2, SEED);
        workload.writeCluster(cluster);
        workload.writeTrace(trace);
        SchedulerConfig replay = SchedulerConfig.builder()
                .cluster(ClusterYaml.read(cluster))
                .policy("fifo")
                .seed(SEED)
                .outOfOrderness(SchedulerConfig.END_OF_INPUT_WATERMARK)
                .build();
        // The live inputs a cluster would send: each job's completion when the replay finished it, a progress sample
        // halfway, and every node's power at the start.
        Path replayed = WORK.resolve("replay");
        StreamExecutionEnvironment env = env();
        SchedulerJob.define(env, new FileJobSources(trace), new FileJobSinks(replayed), replay);
        env.execute("live fuzz: the replay the live inputs follow");
        Map<String, Double> started = new HashMap<>();
        List<JobCompleted> completions = new ArrayList<>();
        List<Telemetry> progress = new ArrayList<>();
        for (var d : RunDirectoryWriter.read(replayed, FileJobSinks.DECISIONS)) {
            String job = d.get("job").asText();
            double time = d.get("time").asDouble();
            if (d.get("action").asText().equals(DecisionAction.START.name())) started.putIfAbsent(job, time);
            if (d.get("action").asText().equals(DecisionAction.COMPLETE.name())) {
                completions.add(
                        JobCompleted.newBuilder().setTime(time).setJob(job).build());
                progress.add(Telemetry.newBuilder()
                        .setTime((started.get(job) + time) / 2)
                        .setKind(TelemetryKind.JOB_PROGRESS)
                        .setJob(job)
                        .setProgress(0.5)
                        .build());
            }
        }
        assertEquals(JOBS, completions.size(), "every job completes in the replay");
        completions.sort(Comparator.comparingDouble(JobCompleted::getTime));
        List<Telemetry> telemetry = new ArrayList<>(progress);
        for (var n : replay.nodes())
            telemetry.add(Telemetry.newBuilder()
                    .setTime(1)
                    .setKind(TelemetryKind.NODE_POWER)
                    .setNode(n.id())
                    .setPowerWatts(300.0)
                    .build());
        telemetry.sort(Comparator.comparingDouble(Telemetry::getTime));

        SchedulerConfig live =
                replay.toBuilder().mode(SchedulerConfig.Mode.LIVE).build();
        LiveFuzzCorpus corpus = new LiveFuzzCorpus(SEED);
        Map<String, Integer> completionKinds = new TreeMap<>(), telemetryKinds = new TreeMap<>();
        List<Value> badCompletions =
                corpus.completions(completions, BAD_COMPLETIONS, Target.SCHEDULER, completionKinds);
        List<Value> badTelemetry = corpus.telemetry(progress, BAD_TELEMETRY, Target.SCHEDULER, telemetryKinds);
        System.out.println("live fuzz corpus (seed " + SEED + "): " + BAD_COMPLETIONS + " completions "
                + completionKinds + "; " + BAD_TELEMETRY + " telemetry " + telemetryKinds);

        // Alone: the valid records.
        KafkaSettings alone = topics("live-alone.");
        new TraceProducer(alone, 0).publish(trace, null);
        publish(alone, Topics.COMPLETIONS, values(completions), List.of(), corpus);
        publish(alone, Topics.TELEMETRY, values(telemetry), List.of(), corpus);
        runScheduler(alone, live);
        // With the bad values between them.
        KafkaSettings hostile = topics("live-hostile.");
        new TraceProducer(hostile, 0).publish(trace, null);
        Published c = publish(hostile, Topics.COMPLETIONS, values(completions), badCompletions, corpus);
        Published t = publish(hostile, Topics.TELEMETRY, values(telemetry), badTelemetry, corpus);
        runScheduler(hostile, live);

        List<PlacementDecision> expected = TopicRecords.read(alone, Topics.DECISIONS, PlacementDecision.class);
        assertTrue(expected.size() >= 2 * JOBS, "every job starts and completes: " + expected.size());
        assertEquals(
                sorted(expected),
                sorted(TopicRecords.read(hostile, Topics.DECISIONS, PlacementDecision.class)),
                "the valid records are decided as if alone");
        assertRejections(alone, hostile, Map.of(Topics.COMPLETIONS, c, Topics.TELEMETRY, t));
        System.out.printf(
                "live fuzz: %d bad completions and %d bad telemetry values over Kafka: 0 crashes, %d valid jobs, "
                        + "%d completions and %d telemetry records, decisions as alone%n",
                BAD_COMPLETIONS, BAD_TELEMETRY, JOBS, completions.size(), telemetry.size());
    }

    @Test
    void powerflowsTelemetryAndCompletionsRejectEveryBadValueAndDecideAsTheValidOnesAlone() throws Exception {
        PowerflowSettings cfg = PowerflowSettings.of(1.0, 16, false, 1, null)
                .withStreaming(
                        Duration.ofMillis(-1), Duration.ofSeconds(5), Duration.ZERO, Duration.ofMillis(20), false);
        GroundTruth truth = GroundTruth.defaults();
        List<PowerflowJob> jobs = new ArrayList<>();
        List<Telemetry> samples = new ArrayList<>();
        List<JobCompleted> completions = new ArrayList<>();
        for (int i = 0; i < POWERFLOW_JOBS; i++) {
            String id = "pf-" + i;
            jobs.add(PowerflowJob.newBuilder()
                    .setId(id)
                    .setSubmit(10 * i)
                    .setWorkload("resnet50")
                    .setGlobalBatch(256)
                    .setGpus(4)
                    .setIterations(1e6 * (1 + i))
                    .build());
            for (double limit : List.of(100.0, 150.0, 200.0, 250.0)) {
                GroundTruth.Outcome o = truth.at("resnet50", 1, 256, limit);
                samples.add(Telemetry.newBuilder()
                        .setTime(10 * i + 5)
                        .setKind(TelemetryKind.JOB_PROGRESS)
                        .setJob(id)
                        .setProgress(0.0)
                        .setIterationsDone(0.0)
                        .setStepSeconds(o.stepTime())
                        .setGpuPowerWatts(o.power())
                        .setGpus(1)
                        .setPowerLimitWatts(limit)
                        .setLocalBatch(256.0)
                        .build());
            }
            completions.add(
                    JobCompleted.newBuilder().setTime(5000 + 100 * i).setJob(id).build());
        }
        LiveFuzzCorpus corpus = new LiveFuzzCorpus(SEED + 1);
        Map<String, Integer> completionKinds = new TreeMap<>(), telemetryKinds = new TreeMap<>();
        List<Value> badCompletions =
                corpus.completions(completions, BAD_POWERFLOW_COMPLETIONS, Target.POWERFLOW, completionKinds);
        List<Value> badTelemetry = corpus.telemetry(samples, BAD_POWERFLOW_TELEMETRY, Target.POWERFLOW, telemetryKinds);
        System.out.println("powerflow fuzz corpus (seed " + (SEED + 1) + "): " + BAD_POWERFLOW_COMPLETIONS
                + " completions " + completionKinds + "; " + BAD_POWERFLOW_TELEMETRY + " telemetry " + telemetryKinds);

        KafkaSettings alone = topics("pf-alone.");
        publish(alone, Topics.POWERFLOW_JOBS, values(jobs), List.of(), corpus);
        publish(alone, Topics.TELEMETRY, values(samples), List.of(), corpus);
        publish(alone, Topics.COMPLETIONS, values(completions), List.of(), corpus);
        runPowerflow(alone, cfg);
        KafkaSettings hostile = topics("pf-hostile.");
        publish(hostile, Topics.POWERFLOW_JOBS, values(jobs), List.of(), corpus);
        Published t = publish(hostile, Topics.TELEMETRY, values(samples), badTelemetry, corpus);
        Published c = publish(hostile, Topics.COMPLETIONS, values(completions), badCompletions, corpus);
        runPowerflow(hostile, cfg);

        List<PlacementDecision> expected = TopicRecords.read(alone, Topics.DECISIONS, PlacementDecision.class);
        assertTrue(expected.size() >= 2 * POWERFLOW_JOBS, "starts and completions: " + expected);
        assertEquals(expected, TopicRecords.read(hostile, Topics.DECISIONS, PlacementDecision.class));
        assertEquals(
                TopicRecords.read(alone, Topics.POWERFLOW_MODELS, JobModelFit.class),
                TopicRecords.read(hostile, Topics.POWERFLOW_MODELS, JobModelFit.class),
                "the models fitted from the valid samples alone");
        assertRejections(alone, hostile, Map.of(Topics.COMPLETIONS, c, Topics.TELEMETRY, t));
        System.out.printf(
                "powerflow fuzz: %d bad completions and %d bad telemetry values over Kafka: 0 crashes, %d jobs,"
                        + " decisions and models as alone%n",
                BAD_POWERFLOW_COMPLETIONS, BAD_POWERFLOW_TELEMETRY, POWERFLOW_JOBS);
    }

    /**
     * Each bad value rejected exactly once, at its offset, with a reason and a field; the other rejections are those
     * of the run of the valid records alone (the same reasons).
     */
    private static void assertRejections(KafkaSettings alone, KafkaSettings hostile, Map<Topics, Published> topics)
            throws Exception {
        List<RejectedRecord> reference = TopicRecords.read(alone, Topics.REJECTED, RejectedRecord.class);
        List<RejectedRecord> rejected = TopicRecords.read(hostile, Topics.REJECTED, RejectedRecord.class);
        Map<String, Integer> atBad = new HashMap<>();
        List<String> others = new ArrayList<>();
        Map<String, String> kindAt = new HashMap<>();
        topics.forEach((topic, p) -> p.kindAt()
                .forEach((offset, kind) -> kindAt.put(topic.topic(hostile.topicPrefix()) + "-0@" + offset, kind)));
        for (RejectedRecord r : rejected) {
            assertFalse(r.getReason().isBlank(), "a reason: " + r);
            assertFalse(r.getField().isBlank(), "a field: " + r);
            if (kindAt.containsKey(r.getPosition())) atBad.merge(r.getPosition(), 1, Integer::sum);
            else others.add(r.getReason());
        }
        List<String> missed = new ArrayList<>();
        kindAt.forEach((position, kind) -> {
            if (atBad.getOrDefault(position, 0) != 1) missed.add(kind + " at " + position + ": " + atBad.get(position));
        });
        assertEquals(List.of(), missed, "every bad value rejected once");
        List<String> expectedOthers = new ArrayList<>();
        for (RejectedRecord r : reference) expectedOthers.add(r.getReason());
        expectedOthers.sort(null);
        others.sort(null);
        assertEquals(expectedOthers, others, "the valid records' rejections are as without the bad values");
    }

    private static List<Value> values(List<? extends SpecificRecordBase> records) {
        List<Value> values = new ArrayList<>();
        for (SpecificRecordBase r : records) values.add(new Value(encode(r), false, "valid"));
        return values;
    }

    @SuppressWarnings("unchecked")
    private static <T extends SpecificRecordBase> byte[] encode(T record) {
        return new AvroBinary<>((Class<T>) record.getClass()).encode(record);
    }

    /** The valid values with the bad ones spread between them, on one partition; the bad ones' offsets and kinds. */
    private static Published publish(
            KafkaSettings kafka, Topics topic, List<Value> valid, List<Value> bad, LiveFuzzCorpus corpus)
            throws Exception {
        List<Integer> badAt = new ArrayList<>();
        List<Value> all = corpus.mix(valid, bad, badAt);
        Properties p = kafka.clientConfig();
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "1");
        List<Long> offsets = new ArrayList<>();
        Map<Long, String> kindAt = new TreeMap<>();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
            List<java.util.concurrent.Future<RecordMetadata>> sent = new ArrayList<>();
            for (Value v : all) {
                ProducerRecord<byte[], byte[]> r =
                        new ProducerRecord<>(topic.topic(kafka.topicPrefix()), 0, null, v.bytes());
                if (v.jsonLine())
                    r.headers()
                            .add(
                                    RawRecordDeserializer.FORMAT_HEADER,
                                    RawRecordDeserializer.FORMAT_TRACE_LINE.getBytes(StandardCharsets.UTF_8));
                sent.add(producer.send(r));
            }
            producer.flush();
            for (int i : badAt) {
                long offset = sent.get(i).get().offset();
                offsets.add(offset);
                kindAt.put(offset, all.get(i).kind());
            }
        }
        return new Published(offsets, kindAt);
    }

    private static KafkaSettings topics(String prefix) throws Exception {
        KafkaSettings kafka = KafkaSettings.of(broker.bootstrap())
                .withTopicPrefix(prefix)
                .withGroupId("live-fuzz-" + prefix)
                .withBounded(true);
        TopicAdmin.createAll(kafka.clientConfig(), kafka.topicPrefix(), 1, (short) 1);
        return kafka;
    }

    private static void runScheduler(KafkaSettings kafka, SchedulerConfig cfg) throws Exception {
        StreamExecutionEnvironment env = env();
        KafkaPipeline.define(env, kafka, cfg);
        env.execute("live fuzz " + kafka.topicPrefix());
    }

    private static void runPowerflow(KafkaSettings kafka, PowerflowSettings cfg) throws Exception {
        StreamExecutionEnvironment env = env();
        PowerflowKafka.define(env, kafka, cfg);
        env.execute("powerflow fuzz " + kafka.topicPrefix());
    }

    private static List<PlacementDecision> sorted(List<PlacementDecision> decisions) {
        List<PlacementDecision> copy = new ArrayList<>(decisions);
        copy.sort(Comparator.<PlacementDecision, String>comparing(PlacementDecision::getPolicy)
                .thenComparingInt(PlacementDecision::getController)
                .thenComparingLong(PlacementDecision::getSeq));
        return copy;
    }

    private static StreamExecutionEnvironment env() {
        Configuration conf = new Configuration();
        conf.set(CoreOptions.DEFAULT_PARALLELISM, 1);
        return StreamExecutionEnvironment.getExecutionEnvironment(conf);
    }
}
