package org.gpusched.streaming;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.flink.streaming.api.operators.ProcessOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.gpusched.streaming.avro.JobSubmitted;
import org.gpusched.streaming.avro.RejectedRecord;
import org.gpusched.streaming.kafka.AvroBinary;
import org.gpusched.streaming.state.ControllerEvent;
import org.gpusched.streaming.state.EventKind;
import org.gpusched.testkit.HostileRecords;
import org.junit.jupiter.api.Test;

class RecordParserTest {
    private static final String GOOD =
            "{\"id\":\"a\",\"submit\":1.5,\"due\":100,\"weight\":2,\"times\":{\"G1\":{\"1\":50}},\"epochs\":3}";

    private static OneInputStreamOperatorTestHarness<RawRecord, ControllerEvent> harness(Topics topic, double noise)
            throws Exception {
        SchedulerConfig cfg = TestData.config(TestData.oneGpuNodes(1, 3600), "fifo")
                .noise(noise)
                .build();
        var h = new OneInputStreamOperatorTestHarness<>(new ProcessOperator<>(new RecordParser(topic, cfg)));
        h.open();
        return h;
    }

    private static List<ControllerEvent> valid(OneInputStreamOperatorTestHarness<RawRecord, ControllerEvent> h) {
        List<ControllerEvent> out = new ArrayList<>();
        for (Object o : h.getOutput()) if (o instanceof StreamRecord<?> r) out.add((ControllerEvent) r.getValue());
        return out;
    }

    private static List<RejectedRecord> rejected(OneInputStreamOperatorTestHarness<RawRecord, ControllerEvent> h) {
        List<RejectedRecord> out = new ArrayList<>();
        h.getSideOutput(RecordParser.REJECTED).forEach(r -> out.add(r.getValue()));
        return out;
    }

    @Test
    void badTraceLinesAreRejectedWithPositionAndReasonGoodOnesPass() throws Exception {
        var h = harness(Topics.SUBMISSIONS, 0);
        String[] lines = {
            GOOD,
            "{not json",
            "{\"id\":\"b\",\"submit\":5,\"due\":1,\"weight\":1,\"times\":{\"G1\":{\"1\":5}}}",
            "{\"id\":\"c\",\"submit\":5,\"due\":10,\"weight\":1,\"times\":{\"A100\":{\"1\":5}}}",
            "{\"id\":\"d\",\"submit\":5,\"due\":10,\"weight\":1,\"times\":{\"G1\":{\"4\":5}}}",
            "{\"id\":\"e\",\"submit\":5,\"due\":10,\"times\":{\"G1\":{\"1\":5}}}",
            "   ",
            "{\"id\":\"f\",\"submit\":5,\"due\":10,\"weight\":1,\"times\":{\"G1\":{\"1\":5}}}",
        };
        for (int i = 0; i < lines.length; i++)
            h.processElement(new StreamRecord<>(RawRecord.text("t.jsonl", "t.jsonl:" + (i + 1), lines[i])));
        List<ControllerEvent> ok = valid(h);
        assertEquals(List.of("a", "f"), ok.stream().map(ControllerEvent::getId).toList());
        assertEquals(1500, ok.get(0).getTimeMillis());
        assertEquals(EventKind.SUBMISSION, ok.get(0).getKind());
        assertEquals("{\"epochs\":3}", ok.get(0).getSubmitted().getExtrasJson());
        assertNull(ok.get(0).getSubmitted().getActualFactor(), "no noise, no factor");
        List<RejectedRecord> bad = rejected(h);
        assertEquals(
                List.of("t.jsonl:2", "t.jsonl:3", "t.jsonl:4", "t.jsonl:5", "t.jsonl:6"),
                bad.stream().map(RejectedRecord::getPosition).toList());
        assertTrue(
                bad.get(0).getReason().startsWith("not valid JSON"), bad.get(0).getReason());
        assertEquals("{not json", bad.get(0).getText());
        assertTrue(
                bad.get(1).getReason().contains("before its submission"),
                bad.get(1).getReason());
        assertTrue(
                bad.get(2).getReason().contains("unknown node type 'A100'"),
                bad.get(2).getReason());
        assertEquals("times.A100", bad.get(2).getField());
        assertTrue(bad.get(3).getReason().contains("more GPUs"), bad.get(3).getReason());
        assertEquals("weight", bad.get(4).getField());
        h.close();
    }

    @Test
    void avroBytesAreDecodedAndGarbageRejected() throws Exception {
        var h = harness(Topics.SUBMISSIONS, 0.2);
        JobSubmitted job = TestData.job("z", 3, 100, 1, 40);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        BinaryEncoder enc = EncoderFactory.get().binaryEncoder(bytes, null);
        new SpecificDatumWriter<>(JobSubmitted.class).write(job, enc);
        enc.flush();
        h.processElement(new StreamRecord<>(RawRecord.bytes("topic", "topic-0@7", bytes.toByteArray())));
        h.processElement(new StreamRecord<>(RawRecord.bytes("topic", "topic-0@8", new byte[] {1, 2, 3, (byte) 0xff})));
        List<ControllerEvent> ok = valid(h);
        assertEquals(1, ok.size());
        double f = ok.get(0).getSubmitted().getActualFactor();
        assertTrue(f >= 0.8 && f <= 1.2, "noise 0.2 draws in [0.8, 1.2]: " + f);
        assertEquals(RecordParser.actualFactor(7, 0.2, "z"), f, "a pure function of seed and id");
        List<RejectedRecord> bad = rejected(h);
        assertEquals(1, bad.size());
        assertEquals("topic-0@8", bad.get(0).getPosition());
        assertTrue(
                bad.get(0).getReason().startsWith("not a JobSubmitted"),
                bad.get(0).getReason());
        assertEquals("record", bad.get(0).getField());
        assertEquals(4, bad.get(0).getBytes().remaining());
        h.close();
    }

    @Test
    void nodeEventsAndTelemetryAreValidated() throws Exception {
        var nodes = harness(Topics.NODE_EVENTS, 0);
        nodes.processElement(
                new StreamRecord<>(RawRecord.text("n", "n:1", "{\"time\":5,\"node\":\"n0\",\"kind\":\"FAILED\"}")));
        nodes.processElement(
                new StreamRecord<>(RawRecord.text("n", "n:2", "{\"time\":5,\"node\":\"n0\",\"kind\":\"EXPLODED\"}")));
        nodes.processElement(new StreamRecord<>(
                RawRecord.text("n", "n:3", "{\"time\":5,\"node\":\"n7\",\"kind\":\"ADDED\",\"type\":\"H100\"}")));
        assertEquals(1, valid(nodes).size());
        assertEquals(
                List.of("kind", "type"),
                rejected(nodes).stream().map(RejectedRecord::getField).toList());
        var telemetry = harness(Topics.TELEMETRY, 0);
        telemetry.processElement(new StreamRecord<>(
                RawRecord.text("t", "t:1", "{\"time\":5,\"kind\":\"JOB_PROGRESS\",\"job\":\"a\",\"progress\":0.5}")));
        telemetry.processElement(new StreamRecord<>(
                RawRecord.text("t", "t:2", "{\"time\":5,\"kind\":\"JOB_PROGRESS\",\"job\":\"a\",\"progress\":1.5}")));
        assertEquals(1, valid(telemetry).size());
        assertEquals("progress", rejected(telemetry).get(0).getField());
    }

    @Test
    void recordsClaimingMoreThanTheyHoldAreRejectedAndTheNextValidOneIsScheduled() throws Exception {
        var h = harness(Topics.SUBMISSIONS, 0);
        assertEquals(6, HostileRecords.twoGigabyteString().length);
        assertEquals(37, HostileRecords.hugeArray().length);
        h.processElement(new StreamRecord<>(RawRecord.bytes("s", "s-0@0", HostileRecords.twoGigabyteString())));
        h.processElement(new StreamRecord<>(RawRecord.bytes("s", "s-0@1", HostileRecords.hugeArray())));
        h.processElement(
                new StreamRecord<>(RawRecord.bytes("s", "s-0@2", "{\"id\":\"raw json, not Avro\"}".getBytes())));
        h.processElement(new StreamRecord<>(RawRecord.bytes("s", "s-0@3", new byte[0])));
        h.processElement(new StreamRecord<>(RawRecord.bytes("s", "s-0@4", null)));
        h.processElement(new StreamRecord<>(RawRecord.bytes(
                "s", "s-0@5", new AvroBinary<>(JobSubmitted.class).encode(TestData.job("ok", 3, 100, 1, 40)))));
        assertEquals(
                List.of("ok"), valid(h).stream().map(ControllerEvent::getId).toList());
        List<RejectedRecord> bad = rejected(h);
        assertEquals(
                List.of("s-0@0", "s-0@1", "s-0@2", "s-0@3", "s-0@4"),
                bad.stream().map(RejectedRecord::getPosition).toList());
        assertTrue(
                bad.get(0).getReason().contains("a string of 2000000000 bytes claimed with 1 bytes left in the record"),
                bad.get(0).getReason());
        assertTrue(
                bad.get(1).getReason().contains("an array block of 1073741824 items claimed with 6 bytes left"),
                bad.get(1).getReason());
        for (RejectedRecord r : bad) assertEquals("record", r.getField(), r.getReason());
        h.close();
    }

    @Test
    void avroExtrasThatAreNotAnObjectOfOptionalFieldsAreRejectedTheOthersKept() throws Exception {
        var h = harness(Topics.SUBMISSIONS, 0);
        AvroBinary<JobSubmitted> avro = new AvroBinary<>(JobSubmitted.class);
        int offset = 0;
        for (String extras : HostileRecords.badExtras().values()) {
            JobSubmitted job = TestData.job("x" + offset, 3, 100, 1, 40);
            job.setExtrasJson(extras);
            h.processElement(new StreamRecord<>(RawRecord.bytes("s", "s-0@" + offset++, avro.encode(job))));
        }
        JobSubmitted fine = TestData.job("fine", 3, 100, 1, 40);
        fine.setExtrasJson("{\"application\":\"bert\",\"epochs\":3}");
        h.processElement(new StreamRecord<>(RawRecord.bytes("s", "s-0@" + offset, avro.encode(fine))));
        List<RejectedRecord> bad = rejected(h);
        assertEquals(HostileRecords.badExtras().size(), bad.size(), bad.toString());
        for (int i = 0; i < bad.size(); i++) {
            assertEquals("extrasJson", bad.get(i).getField(), bad.get(i).getReason());
            assertEquals("s-0@" + i, bad.get(i).getPosition());
            assertTrue(
                    bad.get(i).getReason().startsWith("job x" + i + ": extrasJson: "),
                    bad.get(i).getReason());
        }
        assertTrue(
                bad.get(3).getReason().contains("key 'id' is a field of the record itself"),
                bad.get(3).getReason());
        assertEquals(
                List.of("fine"), valid(h).stream().map(ControllerEvent::getId).toList());
        assertEquals(
                "{\"application\":\"bert\",\"epochs\":3}",
                valid(h).get(0).getSubmitted().getExtrasJson());
        h.close();
    }

    @Test
    void theFieldAtFaultIsNamedForTextAndAvroAlike() throws Exception {
        var h = harness(Topics.SUBMISSIONS, 0);
        // The id holds the names of other fields: the field is never guessed from the message.
        String line = "{\"id\":\"submit-due\",\"submit\":1,\"due\":100,\"weight\":-1,\"times\":{\"G1\":{\"1\":50}}}";
        h.processElement(new StreamRecord<>(RawRecord.text("t", "t:1", line)));
        JobSubmitted avro = TestData.job("submit-due", 3, 100, 1, 40);
        avro.setWeight(-1);
        h.processElement(
                new StreamRecord<>(RawRecord.bytes("s", "s-0@1", new AvroBinary<>(JobSubmitted.class).encode(avro))));
        avro.setWeight(1.5e308);
        h.processElement(
                new StreamRecord<>(RawRecord.bytes("s", "s-0@2", new AvroBinary<>(JobSubmitted.class).encode(avro))));
        avro.setWeight(1);
        avro.setSubmit(1e17);
        avro.setDue(1e17);
        h.processElement(
                new StreamRecord<>(RawRecord.bytes("s", "s-0@3", new AvroBinary<>(JobSubmitted.class).encode(avro))));
        h.processElement(new StreamRecord<>(RawRecord.text(
                "t", "t:5", line.replace("\"weight\":-1", "\"weight\":1").replace("\"1\":50", "\"1\":1e16"))));
        h.processElement(new StreamRecord<>(
                RawRecord.unreadable("t", "t:6", "{\"id\":\"\ufffd\"}", "not valid UTF-8 at byte 8 (length 1)")));
        assertTrue(valid(h).isEmpty());
        List<RejectedRecord> bad = rejected(h);
        assertEquals(
                List.of("weight", "weight", "weight", "submit", "times.G1.1", "record"),
                bad.stream().map(RejectedRecord::getField).toList());
        assertEquals("not valid UTF-8 at byte 8 (length 1)", bad.get(5).getReason());
        assertEquals("t:6", bad.get(5).getPosition());
        h.close();
    }

    @Test
    void jsonRecordsOfTheOtherTopicsAreOneObjectWithEveryKeyOnce() throws Exception {
        var nodes = harness(Topics.NODE_EVENTS, 0);
        nodes.processElement(new StreamRecord<>(
                RawRecord.text("n", "n:1", "{\"time\":5,\"node\":\"n0\",\"kind\":\"FAILED\",\"node\":\"n1\"}")));
        nodes.processElement(new StreamRecord<>(
                RawRecord.text("n", "n:2", "{\"time\":5,\"node\":\"n0\",\"kind\":\"FAILED\"} {\"time\":6}")));
        nodes.processElement(
                new StreamRecord<>(RawRecord.text("n", "n:3", "{\"time\":1e17,\"node\":\"n0\",\"kind\":\"FAILED\"}")));
        assertTrue(valid(nodes).isEmpty());
        assertEquals(
                List.of("node", "record", "time"),
                rejected(nodes).stream().map(RejectedRecord::getField).toList());
    }

    @Test
    void halfASurrogatePairInANameIsRejectedSoTwoDistinctNamesNeverBecomeOne() throws Exception {
        var submissions = harness(Topics.SUBMISSIONS, 0);
        submissions.processElement(
                new StreamRecord<>(RawRecord.text("t", "t:1", GOOD.replace("\"a\"", "\"\\ud800X\""))));
        submissions.processElement(
                new StreamRecord<>(RawRecord.text("t", "t:2", GOOD.replace("\"a\"", "\"\\ud801X\""))));
        assertTrue(valid(submissions).isEmpty());
        assertEquals(
                List.of("id", "id"),
                rejected(submissions).stream().map(RejectedRecord::getField).toList());
        var completions = harness(Topics.COMPLETIONS, 0);
        completions.processElement(new StreamRecord<>(RawRecord.text("c", "c:1", "{\"time\":5,\"job\":\"\\udc00\"}")));
        var telemetry = harness(Topics.TELEMETRY, 0);
        telemetry.processElement(new StreamRecord<>(RawRecord.text(
                "m", "m:1", "{\"time\":5,\"kind\":\"NODE_POWER\",\"node\":\"n\\ud800\",\"powerWatts\":1}")));
        assertEquals("job", rejected(completions).get(0).getField());
        assertEquals("node", rejected(telemetry).get(0).getField());
        assertTrue(
                rejected(telemetry).get(0).getReason().contains("half of a surrogate pair"),
                rejected(telemetry).get(0).getReason());
    }
}
