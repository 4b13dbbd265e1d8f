package org.gpusched.streaming.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.apache.avro.specific.SpecificRecordBase;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.gpusched.powerflow.truth.GroundTruth;
import org.gpusched.streaming.Topics;
import org.gpusched.streaming.avro.DecisionAction;
import org.gpusched.streaming.avro.JobModelFit;
import org.gpusched.streaming.avro.PlacementDecision;
import org.gpusched.streaming.avro.PowerflowJob;
import org.gpusched.streaming.avro.RejectedRecord;
import org.gpusched.streaming.avro.Telemetry;
import org.gpusched.streaming.avro.TelemetryKind;
import org.gpusched.streaming.powerflow.PowerflowKafka;
import org.gpusched.streaming.powerflow.PowerflowSettings;
import org.gpusched.testkit.LocalKafkaBroker;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The live powerflow path against a real broker (bin/kafka-local): a job and its profiling telemetry are published, the
 * powerflow job runs bounded over the topics and decides the job's GPU count and power limit from the model fitted to
 * that telemetry. Then the same inputs plus one telemetry sample at the configuration it was given, showing it runs
 * what the truth says about a GPU count the profile did not cover: the published model must change and, through it,
 * the next decision must give the job a different GPU count. One-GPU profiles cannot tell storage IO from computation,
 * so the profile-only model may see no gain in more GPUs (then the sample is the true step time on 4 GPUs, and the job
 * must get more) or may spread the job (then the sample is ten times the true step time at its GPU count, slower than
 * one GPU even with the scale-out prior, and it must get fewer).
 */
class PowerflowKafkaIT {
    private static final GroundTruth TRUTH = GroundTruth.defaults();
    private static LocalKafkaBroker broker;

    @BeforeAll
    static void startBroker() throws Exception {
        broker = LocalKafkaBroker.start("powerflow-it");
    }

    @AfterAll
    static void stopBroker() throws Exception {
        if (broker != null) broker.close();
    }

    private static final String WORKLOAD = "resnet50";
    private static final double BATCH = 256;

    @Test
    void telemetryOnTheTopicChangesTheFittedModelAndTheNextDecision() throws Exception {
        PowerflowSettings cfg = PowerflowSettings.of(1.0, 16, false, 1, null)
                .withStreaming(
                        Duration.ofMillis(-1), Duration.ofSeconds(5), Duration.ZERO, Duration.ofMillis(20), false);

        KafkaSettings prior = topics("prior.");
        publishInputs(prior);
        run(prior, cfg);
        List<PlacementDecision> priorDecisions = TopicRecords.read(prior, Topics.DECISIONS, PlacementDecision.class);
        List<JobModelFit> priorFits = TopicRecords.read(prior, Topics.POWERFLOW_MODELS, JobModelFit.class);
        System.out.println("prior-only decisions: " + priorDecisions);
        assertEquals(1, priorFits.size(), "one fit, from the profile");
        PlacementDecision start = lastOf(priorDecisions, "a");
        assertEquals(DecisionAction.START, start.getAction());
        int priorGpus = start.getGpus();
        boolean spread = priorGpus >= 2;

        KafkaSettings told = topics("told.");
        publishInputs(told);
        Telemetry news = spread
                ? sample(100, priorGpus, start.getPowerLimitWatts(), 10.0)
                : sample(100, 4, start.getPowerLimitWatts(), 1.0);
        publish(told, Topics.TELEMETRY, news);
        publishRaw(told, Topics.TELEMETRY, "{not avro".getBytes(StandardCharsets.UTF_8));
        run(told, cfg);
        List<PlacementDecision> toldDecisions = TopicRecords.read(told, Topics.DECISIONS, PlacementDecision.class);
        List<JobModelFit> toldFits = TopicRecords.read(told, Topics.POWERFLOW_MODELS, JobModelFit.class);
        System.out.println("decisions after the telemetry: " + toldDecisions);

        assertEquals(2, toldFits.size(), "the profile's fit, then the refit from the topic's sample");
        assertEquals(priorFits.get(0), toldFits.get(0), "same inputs up to then, same fit");
        JobModelFit refit = toldFits.get(1);
        assertEquals(100.0, refit.getTime());
        assertTrue(refit.getNewGpuCount());
        assertNotEquals(priorFits.get(0).getThroughput(), refit.getThroughput(), "the model changed");

        assertEquals(priorDecisions.get(0), toldDecisions.get(0), "the first decision is the prior-only one");
        PlacementDecision next = lastOf(toldDecisions, "a");
        assertEquals(100.0, next.getTime(), "the refit at a new GPU count reschedules at once");
        assertEquals(DecisionAction.RESIZE, next.getAction());
        if (spread)
            assertTrue(
                    next.getGpus() < priorGpus,
                    "the job runs badly on " + priorGpus + " GPUs: it gets fewer, got " + next.getGpus());
        else
            assertTrue(
                    next.getGpus() > priorGpus,
                    "the job runs 4 GPUs fast: it gets more than " + priorGpus + ", got " + next.getGpus());
        assertEquals(BATCH / next.getGpus(), next.getLocalBatch());

        List<RejectedRecord> rejected = TopicRecords.read(told, Topics.REJECTED, RejectedRecord.class);
        assertEquals(1, rejected.size(), "the bad telemetry record is rejected and the job goes on");
        assertFalse(rejected.get(0).getReason().isBlank());
    }

    private static PlacementDecision lastOf(List<PlacementDecision> decisions, String job) {
        PlacementDecision last = null;
        for (PlacementDecision d : decisions) if (d.getJob().equals(job)) last = d;
        if (last == null) throw new AssertionError("no decision for " + job + " in " + decisions);
        return last;
    }

    private static KafkaSettings topics(String prefix) throws Exception {
        KafkaSettings kafka = KafkaSettings.of(broker.bootstrap())
                .withTopicPrefix(prefix)
                .withGroupId("powerflow-it-" + prefix)
                .withBounded(true);
        TopicAdmin.createAll(kafka.clientConfig(), kafka.topicPrefix(), 1, (short) 1);
        return kafka;
    }

    /** Job a at 0 s and its profile at 10 s: one GPU at every power limit, true step time and power. */
    private static void publishInputs(KafkaSettings kafka) throws Exception {
        publish(
                kafka,
                Topics.POWERFLOW_JOBS,
                PowerflowJob.newBuilder()
                        .setId("a")
                        .setSubmit(0)
                        .setWorkload(WORKLOAD)
                        .setGlobalBatch(BATCH)
                        .setGpus(4)
                        .setIterations(1e6)
                        .build());
        for (double limit : List.of(100.0, 125.0, 150.0, 175.0, 200.0, 225.0, 250.0))
            publish(kafka, Topics.TELEMETRY, sample(10, 1, limit, 1.0));
    }

    private static Telemetry sample(double time, int gpus, double limit, double slowdown) {
        GroundTruth.Outcome o = TRUTH.at(WORKLOAD, gpus, BATCH, limit);
        return Telemetry.newBuilder()
                .setTime(time)
                .setKind(TelemetryKind.JOB_PROGRESS)
                .setJob("a")
                .setProgress(0.0)
                .setIterationsDone(0.0)
                .setStepSeconds(o.stepTime() * slowdown)
                .setGpuPowerWatts(o.power())
                .setGpus(gpus)
                .setPowerLimitWatts(limit)
                .setLocalBatch(BATCH / gpus)
                .build();
    }

    @SuppressWarnings("unchecked")
    private static <T extends SpecificRecordBase> void publish(KafkaSettings kafka, Topics topic, T record)
            throws Exception {
        publishRaw(kafka, topic, new AvroBinary<>((Class<T>) record.getClass()).encode(record));
    }

    private static void publishRaw(KafkaSettings kafka, Topics topic, byte[] bytes) throws Exception {
        TopicRecords.publishRaw(kafka, topic.topic(kafka.topicPrefix()), bytes);
    }

    private static void run(KafkaSettings kafka, PowerflowSettings cfg) throws Exception {
        Configuration conf = new Configuration();
        conf.set(CoreOptions.DEFAULT_PARALLELISM, 1);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        PowerflowKafka.define(env, kafka, cfg);
        env.execute("powerflow over kafka " + kafka.topicPrefix());
    }
}
