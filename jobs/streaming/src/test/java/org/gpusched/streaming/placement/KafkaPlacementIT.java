package org.gpusched.streaming.placement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.gpusched.placement.experiment.PolicySpec;
import org.gpusched.placement.io.AlibabaTraceCsv;
import org.gpusched.placement.model.NodeSpec;
import org.gpusched.streaming.Topics;
import org.gpusched.streaming.avro.PodEvent;
import org.gpusched.streaming.avro.PodPlacement;
import org.gpusched.streaming.avro.RejectedRecord;
import org.gpusched.streaming.kafka.AvroBinary;
import org.gpusched.streaming.kafka.KafkaSettings;
import org.gpusched.streaming.kafka.TopicAdmin;
import org.gpusched.streaming.kafka.TopicRecords;
import org.gpusched.testkit.LocalKafkaBroker;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The placement policies on a real Kafka broker (bin/kafka-local, started and stopped here): the place-replay fixture,
 * with a bad row added, is published with {@link PodProducer}; the placement job ({@link KafkaPlacement}) runs bounded
 * over the pods topic with fgd and pwr-fgd on a Flink mini cluster; its placements topic must hold, per run and in
 * order, exactly the decisions place-replay writes to decisions.jsonl for the same pods, nodes and seed. The bad row
 * must reach the rejected topic from the producer with place-replay's reason; a value that is not a PodEvent and a
 * PodEvent with an impossible demand, published by another client, must be rejected by the job, which goes on.
 */
class KafkaPlacementIT {
    private static final Path WORK = Path.of(
                    "target", "placement-it-work-" + ProcessHandle.current().pid())
            .toAbsolutePath();
    private static final Path FIXTURE = Path.of("src/test/resources/place-replay/pods.csv");
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String BAD_ROW = "bad,2000,4096,1,500,,LS,Succeeded,70,65,70";
    private static LocalKafkaBroker broker;

    @BeforeAll
    static void startBroker() throws Exception {
        broker = LocalKafkaBroker.start("placement-it");
    }

    @AfterAll
    static void stopBroker() throws Exception {
        if (broker != null) broker.close();
    }

    @Test
    void kafkaPlacementGivesPlaceReplaysDecisionsAndRejectsBadRecords() throws Exception {
        Files.createDirectories(WORK);
        Path pods = WORK.resolve("pods.csv");
        List<String> lines = new ArrayList<>(Files.readAllLines(FIXTURE));
        lines.add(4, BAD_ROW); // line 5: deletion before creation
        Files.write(pods, lines);
        // Several nodes, two of them alike, so the policy's choice and its seeded tie-breaking matter.
        Path nodesFile = WORK.resolve("nodes.csv");
        Files.writeString(
                nodesFile,
                "sn,cpu_milli,memory_mib,gpu,model\nnode-a,32000,131072,2,T4\nnode-b,32000,131072,2,T4\n"
                        + "node-c,64000,262144,4,T4\nnode-d,16000,65536,0,\n");
        List<NodeSpec> nodes = AlibabaTraceCsv.readNodes(nodesFile);
        ReplayTrace trace = ReplayTrace.scan(pods);
        List<ReplayRun> runs = List.of(
                new ReplayRun(new PolicySpec("fgd", Double.NaN), 42),
                new ReplayRun(new PolicySpec("pwr-fgd", 0.1), 42));

        // place-replay of the same file: decisions.jsonl and rejected.jsonl per run
        List<List<String>> fileDecisions = new ArrayList<>();
        List<ObjectNode> fileRejected = null;
        for (ReplayRun run : runs) {
            Path out = WORK.resolve("file-" + run.dirName());
            try (ReplayOutput output = new ReplayOutput(out, nodes)) {
                fileRejected = PlacementReplay.run(
                        PlacementConfig.boundedReplay(nodes, trace, List.of(run), 1),
                        pods,
                        out.resolve(".parts"),
                        output::accept);
            }
            fileDecisions.add(Files.readAllLines(out.resolve("decisions.jsonl")));
        }
        assertEquals(1, fileRejected.size(), "place-replay rejects the bad row");

        KafkaSettings kafka = KafkaSettings.of(broker.bootstrap())
                .withTopicPrefix("placement.")
                .withBounded(true)
                .withGroupId("placement-it");
        TopicAdmin.createAll(kafka.clientConfig(), kafka.topicPrefix(), 1, (short) 1);
        PodProducer.Summary produced = new PodProducer(kafka, 0).publish(pods, null);
        assertEquals(5, produced.published(), "p0..p5 but p4 (never scheduled)");
        assertEquals(1, produced.unscheduled());
        assertEquals(1, produced.rejected());
        String podsTopic = Topics.PODS.topic(kafka.topicPrefix());
        TopicRecords.publishRaw(kafka, podsTopic, "garbage".getBytes(StandardCharsets.UTF_8));
        PodEvent impossible = PodEvent.newBuilder()
                .setName("x")
                .setSeq(99)
                .setCpuMilli(1000)
                .setMemoryMib(1024)
                .setNumGpu(2)
                .setGpuMilli(500)
                .setCreationTime(5)
                .setDeletionTime(null)
                .build();
        TopicRecords.publishRaw(kafka, podsTopic, new AvroBinary<>(PodEvent.class).encode(impossible));

        Configuration conf = new Configuration();
        conf.set(CoreOptions.DEFAULT_PARALLELISM, 1);
        conf.set(PipelineOptions.GENERIC_TYPES, false);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        KafkaPlacement.define(
                env,
                kafka,
                new PlacementConfig(
                        nodes,
                        trace,
                        runs,
                        PlacementConfig.END_OF_INPUT,
                        2,
                        java.time.Duration.ZERO,
                        java.time.Duration.ofMillis(20)));
        env.execute("kafka placement");

        List<PodPlacement> placements = TopicRecords.read(kafka, Topics.POD_PLACEMENTS, PodPlacement.class);
        for (int i = 0; i < runs.size(); i++) {
            String key = runs.get(i).key();
            List<String> kafkaDecisions = placements.stream()
                    .filter(p -> p.getRun().equals(key))
                    .map(KafkaPlacementIT::asDecisionLine)
                    .toList();
            assertFalse(fileDecisions.get(i).isEmpty());
            assertEquals(
                    fileDecisions.get(i),
                    kafkaDecisions,
                    key + ": the placements topic holds place-replay's decisions, in order");
        }
        assertEquals(
                fileDecisions.get(0).size() + fileDecisions.get(1).size(),
                placements.size(),
                "no decisions of other runs");
        assertTrue(
                placements.stream()
                                .map(PodPlacement::getNode)
                                .filter(n -> n != null)
                                .distinct()
                                .count()
                        > 1,
                "the pods are spread over several nodes: " + placements);

        List<RejectedRecord> rejected = TopicRecords.read(kafka, Topics.REJECTED, RejectedRecord.class);
        assertEquals(3, rejected.size(), rejected.toString());
        RejectedRecord badRow = rejected.stream()
                .filter(r -> BAD_ROW.equals(r.getText()))
                .findFirst()
                .orElseThrow();
        assertEquals(pods + ":5", badRow.getPosition());
        assertEquals(
                fileRejected.get(0).get("reason").asText(),
                badRow.getReason(),
                "the producer gives place-replay's reason");
        assertEquals("deletion_time", badRow.getField());
        RejectedRecord garbage = rejected.stream()
                .filter(r -> r.getReason().startsWith("not a PodEvent"))
                .findFirst()
                .orElseThrow();
        assertEquals(podsTopic, garbage.getSource());
        assertTrue(garbage.getPosition().startsWith(podsTopic + "-0@"), garbage.getPosition());
        assertEquals(
                "garbage", StandardCharsets.UTF_8.decode(garbage.getBytes()).toString(), "the original bytes are kept");
        RejectedRecord demand = rejected.stream()
                .filter(r -> "gpu_milli".equals(r.getField()))
                .findFirst()
                .orElseThrow();
        assertEquals(podsTopic, demand.getSource());
        assertTrue(demand.getReason().contains("2 x 500"), demand.getReason());
        assertNull(demand.getText());
    }

    /** A placements-topic record as a decisions.jsonl line. */
    private static String asDecisionLine(PodPlacement p) {
        ObjectNode d = JSON.createObjectNode();
        d.put("time", p.getTime());
        d.put("task", p.getTask());
        d.put("action", p.getAction().name());
        if (p.getNode() != null) d.put("node", p.getNode());
        else d.putNull("node");
        ArrayNode gpus = d.putArray("gpus");
        for (int g : p.getGpus()) gpus.add(g);
        d.put("gpuMilli", p.getGpuMilli());
        return d.toString();
    }
}
