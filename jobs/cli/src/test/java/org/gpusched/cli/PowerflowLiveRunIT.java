package org.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.avro.specific.SpecificRecordBase;
import org.gpusched.powerflow.truth.GroundTruth;
import org.gpusched.streaming.Topics;
import org.gpusched.streaming.avro.JobCompleted;
import org.gpusched.streaming.avro.PowerflowJob;
import org.gpusched.streaming.avro.PowerflowJobEnergy;
import org.gpusched.streaming.avro.Telemetry;
import org.gpusched.streaming.avro.TelemetryKind;
import org.gpusched.streaming.kafka.AvroBinary;
import org.gpusched.streaming.kafka.KafkaSettings;
import org.gpusched.streaming.kafka.TopicAdmin;
import org.gpusched.testkit.LocalKafkaBroker;
import org.gpusched.testkit.TopicRecords;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The live powerflow path accounts energy, on a real broker: {@code run --policy powerflow --bounded --out} over a job,
 * its profiling telemetry, two samples while it runs and its completion writes the job's energy integrated from that
 * telemetry (to the energy topic and job-energy.jsonl), and {@code validate} recomputes it from the run directory: clean
 * as written, a finding naming the job when its energy is changed.
 */
class PowerflowLiveRunIT {
    private static final GroundTruth TRUTH = GroundTruth.defaults();
    private static final ObjectMapper JSON = new ObjectMapper();
    private static LocalKafkaBroker broker;

    @TempDir
    Path tmp;

    @BeforeAll
    static void startBroker() throws Exception {
        broker = LocalKafkaBroker.start("cli-powerflow-live-it");
    }

    @AfterAll
    static void stopBroker() throws Exception {
        if (broker != null) broker.close();
    }

    private static Telemetry sample(double time, int gpus, double limit) {
        GroundTruth.Outcome o = TRUTH.at("resnet50", gpus, 256, limit);
        return Telemetry.newBuilder()
                .setTime(time)
                .setKind(TelemetryKind.JOB_PROGRESS)
                .setJob("a")
                .setIterationsDone(0.0)
                .setStepSeconds(o.stepTime())
                .setGpuPowerWatts(o.power())
                .setGpus(gpus)
                .setPowerLimitWatts(limit)
                .setLocalBatch(256.0 / gpus)
                .build();
    }

    @SuppressWarnings("unchecked")
    private static <T extends SpecificRecordBase> void publish(KafkaSettings kafka, Topics topic, T record)
            throws Exception {
        TopicRecords.publishRaw(
                kafka.clientConfig(),
                topic.topic(kafka.topicPrefix()),
                new AvroBinary<>((Class<T>) record.getClass()).encode(record));
    }

    @Test
    void aLiveRunWritesEachJobsEnergyFromItsTelemetryAndValidateRecomputesIt() throws Exception {
        String prefix = "live.";
        KafkaSettings kafka = KafkaSettings.of(broker.bootstrap()).withTopicPrefix(prefix);
        TopicAdmin.createAll(kafka.clientConfig(), prefix, 1, (short) 1);
        publish(
                kafka,
                Topics.POWERFLOW_JOBS,
                PowerflowJob.newBuilder()
                        .setId("a")
                        .setSubmit(0)
                        .setWorkload("resnet50")
                        .setGlobalBatch(256)
                        .setGpus(1)
                        .setIterations(1e6)
                        .build());
        double profilePower = 0;
        List<Double> limits = TRUTH.config().gpu().powerLimits();
        for (double limit : limits) {
            publish(kafka, Topics.TELEMETRY, sample(10, 1, limit));
            profilePower += TRUTH.at("resnet50", 1, 256, limit).power() / limits.size();
        }
        publish(kafka, Topics.TELEMETRY, sample(100, 1, 200));
        publish(kafka, Topics.TELEMETRY, sample(200, 1, 250));
        publish(
                kafka,
                Topics.COMPLETIONS,
                JobCompleted.newBuilder().setTime(200).setJob("a").build());

        Path out = tmp.resolve("live-run");
        var run = WorkloadCommandsTest.gpusched(
                "run",
                "--policy",
                "powerflow",
                "--mode",
                "live",
                "--bounded",
                "--bootstrap",
                broker.bootstrap(),
                "--topic-prefix",
                prefix,
                "--eta",
                "1.0",
                "--gpus",
                "16",
                "--out",
                out.toString());
        assertEquals(0, run.exit(), run.err() + run.out());
        assertTrue(run.out().contains("1 jobs completed"), run.out());

        // profiling 0-10 s at the profile's mean power, then started at 10 s: 10-100 s at the 200-W sample's
        // power, 100-200 s at the 250-W one's
        double expected = profilePower * 10
                + TRUTH.at("resnet50", 1, 256, 200).power() * 90
                + TRUTH.at("resnet50", 1, 256, 250).power() * 100;
        List<String> energyLines = Files.readAllLines(out.resolve("job-energy.jsonl"));
        assertEquals(1, energyLines.size());
        JsonNode energy = JSON.readTree(energyLines.get(0));
        assertEquals("a", energy.get("job").asText());
        assertTrue(energy.get("fromTelemetry").asBoolean());
        assertEquals(expected, energy.get("energyJoules").asDouble(), 1e-6 * expected);
        List<PowerflowJobEnergy> topic = TopicRecords.read(
                kafka.clientConfig(),
                Topics.POWERFLOW_ENERGY.topic(prefix),
                new AvroBinary<>(PowerflowJobEnergy.class)::decode);
        assertEquals(1, topic.size());
        assertEquals(expected, topic.get(0).getEnergyJoules(), 1e-6 * expected);

        var clean = WorkloadCommandsTest.gpusched("validate", out.toString());
        assertEquals(0, clean.exit(), clean.out() + clean.err());
        Files.writeString(
                out.resolve("job-energy.jsonl"),
                energyLines.get(0).replace(energy.get("energyJoules").asText(), String.valueOf(expected * 1.01))
                        + "\n");
        var tampered = WorkloadCommandsTest.gpusched("validate", out.toString());
        assertEquals(1, tampered.exit(), tampered.out());
        assertTrue(tampered.out().contains("job-energy.jsonl:1: reported energy"), tampered.out());
    }
}
