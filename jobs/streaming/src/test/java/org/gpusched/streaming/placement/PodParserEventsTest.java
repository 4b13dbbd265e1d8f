package org.gpusched.streaming.placement;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.apache.flink.streaming.api.operators.ProcessOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.gpusched.streaming.RawRecord;
import org.gpusched.streaming.avro.PodEvent;
import org.gpusched.streaming.avro.RejectedRecord;
import org.gpusched.streaming.kafka.AvroBinary;
import org.junit.jupiter.api.Test;

/**
 * Harness test of {@link PodParser} on the pods topic: a pod-list row published as a {@link PodEvent} ({@link PodEvents#of}) comes
 * back as the same pod; undecodable values and impossible demands or times are rejected with reason and field.
 */
class PodParserEventsTest {
    private static final String TOPIC = "gpusched.pods";
    private final AvroBinary<PodEvent> avro = new AvroBinary<>(PodEvent.class);

    private static OneInputStreamOperatorTestHarness<RawRecord, ReplayPod> harness() throws Exception {
        var h = new OneInputStreamOperatorTestHarness<>(
                new ProcessOperator<>(new PodParser(new PodListFormat("p.csv", PodParserTest.HEADER))));
        h.open();
        return h;
    }

    private static List<ReplayPod> pods(OneInputStreamOperatorTestHarness<RawRecord, ReplayPod> h) {
        List<ReplayPod> pods = new ArrayList<>();
        for (Object o : h.getOutput()) if (o instanceof StreamRecord<?> r) pods.add((ReplayPod) r.getValue());
        return pods;
    }

    private static List<RejectedRecord> rejected(OneInputStreamOperatorTestHarness<RawRecord, ReplayPod> h) {
        List<RejectedRecord> out = new ArrayList<>();
        var side = h.getSideOutput(PodParser.REJECTED);
        if (side != null) for (StreamRecord<RejectedRecord> r : side) out.add(r.getValue());
        return out;
    }

    private void feed(OneInputStreamOperatorTestHarness<RawRecord, ReplayPod> h, long offset, byte[] bytes)
            throws Exception {
        h.processElement(new StreamRecord<>(RawRecord.bytes(TOPIC, TOPIC + "-0@" + offset, bytes)));
    }

    @Test
    void aPublishedRowComesBackAsTheSamePod() throws Exception {
        PodListFormat file = new PodListFormat("p.csv", PodParserTest.HEADER);
        ReplayPod shared = file.parse(2, "a,4000,8192,1,500,V100M16|V100M32,LS,Running,10,,10")
                .pod();
        ReplayPod whole =
                file.parse(3, "c,2000,4096,2,1000,,LS,Succeeded,20,30,20").pod();
        var h = harness();
        feed(h, 0, avro.encode(PodEvents.of(shared)));
        feed(h, 1, avro.encode(PodEvents.of(whole)));
        List<ReplayPod> pods = pods(h);
        assertEquals(2, pods.size());
        for (int i = 0; i < 2; i++) {
            ReplayPod expected = i == 0 ? shared : whole, seen = pods.get(i);
            assertEquals(expected.name, seen.name);
            assertEquals(expected.line, seen.line);
            assertEquals(expected.cpuMilli, seen.cpuMilli);
            assertEquals(expected.memoryMiB, seen.memoryMiB);
            assertEquals(expected.gpuCount, seen.gpuCount);
            assertEquals(expected.gpuMilliPerGpu, seen.gpuMilliPerGpu);
            assertArrayEquals(expected.gpuModels, seen.gpuModels);
            assertEquals(expected.creationTime, seen.creationTime);
            assertEquals(expected.deletionTime, seen.deletionTime);
        }
        assertEquals(ReplayPod.CUT_OFF, pods.get(0).deletionTime);
        assertEquals(30, pods.get(1).deletionTime);
        assertTrue(rejected(h).isEmpty());
        h.close();
    }

    @Test
    void badRecordsAreRejectedWithReasonAndFieldAndTheRestPasses() throws Exception {
        PodEvent good = PodEvent.newBuilder()
                .setName("ok")
                .setSeq(7)
                .setCpuMilli(1000)
                .setMemoryMib(1024)
                .setNumGpu(1)
                .setGpuMilli(250)
                .setCreationTime(5)
                .setDeletionTime(9L)
                .build();
        var h = harness();
        feed(h, 0, "not avro".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        feed(h, 1, avro.encode(PodEvent.newBuilder(good).setNumGpu(0).build()));
        feed(h, 2, avro.encode(PodEvent.newBuilder(good).setDeletionTime(3L).build()));
        feed(h, 3, avro.encode(PodEvent.newBuilder(good).setCpuMilli(-1).build()));
        feed(h, 4, avro.encode(PodEvent.newBuilder(good).setName(" ").build()));
        feed(h, 5, new byte[0]);
        feed(h, 6, avro.encode(good));
        assertEquals(List.of("ok"), pods(h).stream().map(p -> p.name).toList());
        List<RejectedRecord> rejected = rejected(h);
        assertEquals(6, rejected.size());
        assertTrue(
                rejected.get(0).getReason().startsWith("not a PodEvent"),
                rejected.get(0).getReason());
        assertNull(rejected.get(0).getField());
        assertEquals(
                List.of("gpu_milli", "deletion_time", "cpu_milli", "name"),
                rejected.subList(1, 5).stream().map(RejectedRecord::getField).toList());
        assertTrue(
                rejected.get(2).getReason().contains("before creation_time"),
                rejected.get(2).getReason());
        assertTrue(
                rejected.get(5).getReason().startsWith("not a PodEvent"),
                rejected.get(5).getReason());
        for (int i = 0; i < 6; i++) {
            assertEquals(TOPIC, rejected.get(i).getSource());
            assertEquals(TOPIC + "-0@" + i, rejected.get(i).getPosition());
            assertTrue(rejected.get(i).getBytes() != null, "the original bytes are kept");
        }
        h.close();
    }

    @Test
    void textFromTheTopicIsNotAPodListRowAndIsRejected() throws Exception {
        var h = harness();
        h.processElement(
                new StreamRecord<>(RawRecord.text(TOPIC, TOPIC + "-0@0", "c,2000,4096,2,1000,,LS,Succeeded,20,30,20")));
        assertTrue(pods(h).isEmpty());
        List<RejectedRecord> rejected = rejected(h);
        assertEquals(1, rejected.size());
        assertEquals("not a PodEvent: a text value", rejected.get(0).getReason());
        assertEquals(TOPIC + "-0@0", rejected.get(0).getPosition());
        h.close();
    }
}
