package org.gpusched.streaming.kafka;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.gpusched.streaming.RawRecord;
import org.gpusched.streaming.avro.DecisionAction;
import org.gpusched.streaming.avro.ExecutionTime;
import org.gpusched.streaming.avro.JobSubmitted;
import org.gpusched.streaming.avro.PlacementDecision;
import org.junit.jupiter.api.Test;

/** The Kafka wire format: plain Avro binary both ways, raw records with their origin, keys. */
class KafkaSerdeTest {

    private static JobSubmitted job() {
        return JobSubmitted.newBuilder()
                .setId("j1")
                .setSubmit(10)
                .setDue(100)
                .setWeight(2.5)
                .setTimes(List.of(new ExecutionTime("V100x4", 1, 50.0), new ExecutionTime("V100x4", 2, 30.0)))
                .build();
    }

    private static PlacementDecision decision() {
        return PlacementDecision.newBuilder()
                .setTime(12.5)
                .setJob("j7")
                .setAction(DecisionAction.MIGRATE)
                .setNode("n2")
                .setType("V100x4")
                .setGpus(2)
                .setPreviousNode("n1")
                .setExpectedCompletion(99.0)
                .setExpectedCost(1.25)
                .setPolicy("fifo")
                .setController(0)
                .setSeq(3)
                .build();
    }

    @Test
    void avroBinaryRoundTripsAndIsNotSingleObjectEncoding() throws IOException {
        AvroBinary<JobSubmitted> avro = new AvroBinary<>(JobSubmitted.class);
        byte[] bytes = avro.encode(job());
        // Single-object encoding starts with C3 01; flink-avro and the job read the plain form.
        assertTrue(
                bytes.length < 2 || !(bytes[0] == (byte) 0xC3 && bytes[1] == 0x01),
                "plain binary, no single-object header");
        assertEquals(job(), avro.decode(bytes));
        assertEquals(job(), avro.decode(avro.encode(job())), "encoder reuse gives the same bytes back");
    }

    @Test
    void avroBinaryReadsSingleObjectEncodingOfItsOwnSchemaAndRejectsGarbage() throws IOException {
        AvroBinary<JobSubmitted> avro = new AvroBinary<>(JobSubmitted.class);
        byte[] singleObject = job().toByteBuffer().array();
        assertEquals(job(), avro.decode(singleObject), "Avro's own single-object encoding of the topic's schema");
        byte[] otherFingerprint = singleObject.clone();
        otherFingerprint[2] ^= 0x01;
        assertThrows(
                IOException.class, () -> avro.decode(otherFingerprint), "another schema's fingerprint is not read");
        assertThrows(IOException.class, () -> avro.decode("{\"id\": \"j1\"}".getBytes(StandardCharsets.UTF_8)));
        byte[] valid = avro.encode(job());
        byte[] trailing = java.util.Arrays.copyOf(valid, valid.length + 3);
        assertThrows(IOException.class, () -> avro.decode(trailing));
    }

    @Test
    void deserializerPassesBytesWithTopicPartitionOffset() throws IOException {
        byte[] value = new AvroBinary<>(JobSubmitted.class).encode(job());
        List<RawRecord> out = deserialize(
                new ConsumerRecord<>("gpusched.jobs.submitted", 2, 41L, "j1".getBytes(StandardCharsets.UTF_8), value));
        assertEquals(1, out.size());
        RawRecord r = out.get(0);
        assertEquals("gpusched.jobs.submitted", r.source);
        assertEquals("gpusched.jobs.submitted-2@41", r.position);
        assertNull(r.text);
        assertArrayEquals(value, r.bytes);
    }

    @Test
    void deserializerHandsMarkedTraceLinesOnAsTextWithTheirOrigin() throws IOException {
        String line = "{\"id\": \"bad\", \"submit\": \"soon\"}";
        ConsumerRecord<byte[], byte[]> record =
                new ConsumerRecord<>("gpusched.jobs.submitted", 0, 7L, null, line.getBytes(StandardCharsets.UTF_8));
        record.headers()
                .add(
                        RawRecordDeserializer.FORMAT_HEADER,
                        RawRecordDeserializer.FORMAT_TRACE_LINE.getBytes(StandardCharsets.UTF_8));
        record.headers().add(RawRecordDeserializer.ORIGIN_HEADER, "trace.jsonl:3".getBytes(StandardCharsets.UTF_8));
        RawRecord r = deserialize(record).get(0);
        assertEquals(line, r.text);
        assertNull(r.bytes);
        assertEquals("gpusched.jobs.submitted-0@7 (trace.jsonl:3)", r.position);
    }

    @Test
    void deserializerTurnsATombstoneIntoZeroBytes() throws IOException {
        RawRecord r = deserialize(new ConsumerRecord<>("gpusched.nodes.events", 0, 0L, null, null))
                .get(0);
        assertArrayEquals(new byte[0], r.bytes);
    }

    @Test
    void decisionsAreKeyedByJobAndDecodeBack() throws IOException {
        OutputSerializers.Decisions serializer = new OutputSerializers.Decisions("p.gpusched.decisions");
        ProducerRecord<byte[], byte[]> record = serializer.serialize(decision(), null, null);
        assertEquals("p.gpusched.decisions", record.topic());
        assertEquals("j7", new String(record.key(), StandardCharsets.UTF_8));
        assertEquals(decision(), new AvroBinary<>(PlacementDecision.class).decode(record.value()));
    }

    @Test
    void settingsValidateBootstrapServers() {
        assertThrows(IllegalArgumentException.class, () -> KafkaSettings.of(""));
        assertThrows(IllegalArgumentException.class, () -> KafkaSettings.of("localhost"));
        assertThrows(IllegalArgumentException.class, () -> KafkaSettings.of("localhost:notaport"));
        assertThrows(IllegalArgumentException.class, () -> KafkaSettings.of("a:9092,b:70000"));
        KafkaSettings k = KafkaSettings.of("a:9092,b:9093").withClientProperties(Map.of("security.protocol", "SSL"));
        assertEquals("a:9092,b:9093", k.clientConfig().get("bootstrap.servers"));
        assertEquals("SSL", k.clientConfig().get("security.protocol"));
        assertEquals("gpusched", k.groupId());
    }

    private static List<RawRecord> deserialize(ConsumerRecord<byte[], byte[]> record) throws IOException {
        List<RawRecord> out = new ArrayList<>();
        new RawRecordDeserializer().deserialize(record, new Collector<>() {
            @Override
            public void collect(RawRecord r) {
                out.add(r);
            }

            @Override
            public void close() {}
        });
        return out;
    }

    @Test
    void aTraceLineThatIsNotUtf8IsHandedOnAsUnreadable() {
        List<RawRecord> out = new ArrayList<>();
        Collector<RawRecord> collector = new Collector<>() {
            @Override
            public void collect(RawRecord r) {
                out.add(r);
            }

            @Override
            public void close() {}
        };
        RawRecordDeserializer deserializer = new RawRecordDeserializer();
        byte[] bad = {'{', '"', 'i', 'd', '"', ':', '"', (byte) 0xFF, '"', '}'};
        for (byte[] value : List.of(bad, "{\"id\":\"\u00e9\"}".getBytes(StandardCharsets.UTF_8))) {
            ConsumerRecord<byte[], byte[]> record = new ConsumerRecord<>("s", 0, out.size(), null, value);
            record.headers()
                    .add(
                            RawRecordDeserializer.FORMAT_HEADER,
                            RawRecordDeserializer.FORMAT_TRACE_LINE.getBytes(StandardCharsets.UTF_8));
            deserializer.deserialize(record, collector);
        }
        ConsumerRecord<byte[], byte[]> cut =
                new ConsumerRecord<>("s", 0, 2, null, "{\"id\":".getBytes(StandardCharsets.UTF_8));
        cut.headers()
                .add(
                        RawRecordDeserializer.FORMAT_HEADER,
                        RawRecordDeserializer.FORMAT_TRACE_LINE.getBytes(StandardCharsets.UTF_8));
        cut.headers()
                .add(
                        RawRecordDeserializer.UNREADABLE_HEADER,
                        "line is 2,000,000 bytes, over the limit of 1,000,000".getBytes(StandardCharsets.UTF_8));
        deserializer.deserialize(cut, collector);
        assertEquals("not valid UTF-8", out.get(0).error);
        assertNull(out.get(1).error);
        assertEquals("{\"id\":\"\u00e9\"}", out.get(1).text);
        assertEquals("line is 2,000,000 bytes, over the limit of 1,000,000", out.get(2).error);
    }
}
