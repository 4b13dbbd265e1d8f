package org.gpusched.streaming;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import org.apache.avro.Schema;
import org.apache.avro.SchemaCompatibility;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificDatumReader;
import org.gpusched.streaming.avro.DecisionAction;
import org.gpusched.streaming.avro.PlacementDecision;
import org.gpusched.streaming.avro.Telemetry;
import org.gpusched.streaming.avro.TelemetryKind;
import org.junit.jupiter.api.Test;

/**
 * The topics' schemas stay compatible both ways with their published versions (src/test/resources/schema-history):
 * a consumer on the old schema reads what the job writes now, and the job reads what an old producer writes (the new
 * fields take their defaults).
 */
class SchemaCompatibilityTest {
    private static final List<Topics> CHANGED = List.of(Topics.TELEMETRY, Topics.DECISIONS);

    private static Schema history(String version, Topics topic) throws IOException {
        String file = "/schema-history/" + version + "/" + topic.recordClass().getSimpleName() + ".avsc";
        try (InputStream in = SchemaCompatibilityTest.class.getResourceAsStream(file)) {
            if (in == null) throw new IllegalStateException(file + " missing");
            return new Schema.Parser().parse(in);
        }
    }

    @Test
    void everyChangedTopicIsCompatibleBothWaysWithItsPublishedVersion() throws IOException {
        for (Topics topic : CHANGED) {
            Schema old = history("v1", topic), now = topic.schema();
            var oldReadsNew = SchemaCompatibility.checkReaderWriterCompatibility(old, now);
            var newReadsOld = SchemaCompatibility.checkReaderWriterCompatibility(now, old);
            assertEquals(
                    SchemaCompatibility.SchemaCompatibilityType.COMPATIBLE,
                    oldReadsNew.getType(),
                    topic + ": an old reader of new records: " + oldReadsNew.getResult());
            assertEquals(
                    SchemaCompatibility.SchemaCompatibilityType.COMPATIBLE,
                    newReadsOld.getType(),
                    topic + ": a new reader of old records: " + newReadsOld.getResult());
        }
    }

    @Test
    void anOldConsumerReadsANewDecisionAndTheJobReadsAnOldProducersTelemetry() throws IOException {
        PlacementDecision d = PlacementDecision.newBuilder()
                .setTime(12.5)
                .setJob("j1")
                .setAction(DecisionAction.RESIZE)
                .setType("V100")
                .setGpus(4)
                .setPolicy("powerflow")
                .setController(0)
                .setSeq(3)
                .setPowerLimitWatts(175.0)
                .setLocalBatch(64.0)
                .build();
        Schema oldDecision = history("v1", Topics.DECISIONS);
        GenericRecord seenByOld =
                read(write(PlacementDecision.getClassSchema(), d), PlacementDecision.getClassSchema(), oldDecision);
        assertEquals(4, seenByOld.get("gpus"));
        assertEquals("j1", seenByOld.get("job").toString());
        assertNull(seenByOld.getSchema().getField("powerLimitWatts"), "the old schema has no power limit");

        Schema oldTelemetry = history("v1", Topics.TELEMETRY);
        GenericRecord old = new GenericData.Record(oldTelemetry);
        old.put("time", 3.0);
        old.put("kind", new GenericData.EnumSymbol(oldTelemetry.getField("kind").schema(), "JOB_PROGRESS"));
        old.put("job", "j1");
        old.put("progress", 0.25);
        byte[] bytes = write(oldTelemetry, old);
        Telemetry t = new SpecificDatumReader<Telemetry>(oldTelemetry, Telemetry.getClassSchema())
                .read(null, DecoderFactory.get().binaryDecoder(bytes, null));
        assertEquals(TelemetryKind.JOB_PROGRESS, t.getKind());
        assertEquals(0.25, t.getProgress());
        assertNull(t.getStepSeconds());
        assertNull(t.getGpus());
        assertNull(t.getIterationsDone());
    }

    private static byte[] write(Schema schema, Object record) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        BinaryEncoder enc = EncoderFactory.get().binaryEncoder(out, null);
        new GenericDatumWriter<Object>(schema, GenericData.get()).write(record, enc);
        enc.flush();
        return out.toByteArray();
    }

    private static GenericRecord read(byte[] bytes, Schema writer, Schema reader) throws IOException {
        return new GenericDatumReader<GenericRecord>(writer, reader)
                .read(null, DecoderFactory.get().binaryDecoder(bytes, null));
    }
}
