package org.gpusched.streaming;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.List;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.avro.specific.SpecificRecordBase;
import org.gpusched.streaming.avro.DecisionAction;
import org.gpusched.streaming.avro.ExecutionTime;
import org.gpusched.streaming.avro.JobMetrics;
import org.gpusched.streaming.avro.JobSubmitted;
import org.gpusched.streaming.avro.NodeEventKind;
import org.gpusched.streaming.avro.PlacementDecision;
import org.gpusched.streaming.avro.SchedulingMetrics;
import org.gpusched.streaming.state.ControllerEvent;
import org.junit.jupiter.api.Test;

/**
 * The job runs Avro's generated coders (the parent pom's avro.jvm.coders, also in the launcher and conf/): they must
 * write the very bytes the reflective writer does, and read them, and older writers' bytes, to equal records.
 */
class AvroCodersTest {

    @Test
    void theTestsRunWithTheGeneratedCodersAsTheJobDoes() {
        SpecificData model = SpecificData.getForClass(ControllerEvent.class);
        assertTrue(
                model.useCustomCoders(),
                "-Dorg.apache.avro.specific.use_custom_coders=true (avro.jvm.coders in the parent pom)");
        assertFalse(
                model.isFastReaderEnabled(), "-Dorg.apache.avro.fastread=false (avro.jvm.coders in the parent pom)");
    }

    @Test
    void generatedCodersWriteAndReadTheSameBytesAsTheReflectiveOnes() throws IOException {
        JobSubmitted job = JobSubmitted.newBuilder()
                .setId("j1")
                .setSubmit(12.5)
                .setDue(7200)
                .setWeight(0.25)
                .setTimes(List.of(
                        new ExecutionTime("g1", 1, 3600.0),
                        new ExecutionTime("g4", 2, 1900.5),
                        new ExecutionTime("g4", 4, 1000.25)))
                .setActualFactor(1.07)
                .setExtrasJson("{\"application\":\"AlexNet\"}")
                .build();
        sameBothWays(TestData.submission(job, "fifo", 3));
        sameBothWays(TestData.nodeEvent(40, "n7", NodeEventKind.TYPE_CHANGED, "g4", "andreas-rg", 1));
        sameBothWays(PlacementDecision.newBuilder()
                .setTime(99.125)
                .setJob("j1")
                .setAction(DecisionAction.MIGRATE)
                .setNode("n2")
                .setType("g4")
                .setGpus(2)
                .setPreviousNode("n1")
                .setPolicy("fifo")
                .setController(0)
                .setSeq(41)
                .setExpectedCompletion(5000.0)
                .setExpectedCost(null)
                .build());
        sameBothWays(SchedulingMetrics.newBuilder()
                .setTime(1)
                .setPolicy("edf")
                .setController(2)
                .setTrigger("SUBMISSION+PERIOD")
                .setFObj(1.5e-3)
                .setOptimizerNanos(0)
                .setQueueLength(4)
                .setRunning(9)
                .setDecisions(1)
                .setAccruedExecutionCost(10)
                .setAccruedTardinessCost(0)
                .setCompletedJobs(3)
                .build());
        sameBothWays(JobMetrics.newBuilder()
                .setTime(10)
                .setJob("j1")
                .setPolicy("fifo")
                .setController(0)
                .setSubmit(0)
                .setDue(5)
                .setWeight(1)
                .setFirstStart(null)
                .setJctSeconds(10)
                .setTardinessSeconds(5)
                .setTardinessCost(0.001)
                .setPreemptions(0)
                .setMigrations(1)
                .setResizes(0)
                .setActualFactor(1)
                .build());
    }

    /** A record written before actualFactor and extrasJson existed reads with their defaults (state restored after an upgrade). */
    @Test
    void generatedDecodersResolveAnOlderWritersSchema() throws IOException {
        Schema old = new Schema.Parser().parse("""
                {"type": "record", "name": "JobSubmitted", "namespace": "org.gpusched.streaming.avro", "fields": [
                  {"name": "id", "type": "string"}, {"name": "submit", "type": "double"}, {"name": "due", "type": "double"},
                  {"name": "weight", "type": "double"},
                  {"name": "times", "type": {"type": "array", "items": {"type": "record", "name": "ExecutionTime", "fields": [
                    {"name": "type", "type": "string"}, {"name": "gpus", "type": "int"}, {"name": "seconds", "type": "double"}]}}}]}""");
        GenericRecord time =
                new GenericData.Record(old.getField("times").schema().getElementType());
        time.put("type", "g1");
        time.put("gpus", 2);
        time.put("seconds", 60.0);
        GenericRecord written = new GenericData.Record(old);
        written.put("id", "j9");
        written.put("submit", 1.0);
        written.put("due", 2.0);
        written.put("weight", 3.0);
        written.put("times", List.of(time));
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        BinaryEncoder out = EncoderFactory.get().binaryEncoder(bytes, null);
        new GenericDatumWriter<GenericRecord>(old).write(written, out);
        out.flush();

        JobSubmitted read = new SpecificDatumReader<JobSubmitted>(old, JobSubmitted.getClassSchema(), model(true))
                .read(null, DecoderFactory.get().binaryDecoder(bytes.toByteArray(), null));
        assertEquals("j9", read.getId());
        assertEquals(List.of(new ExecutionTime("g1", 2, 60.0)), read.getTimes());
        assertNull(read.getActualFactor());
        assertNull(read.getExtrasJson());
    }

    private static <T extends SpecificRecordBase> void sameBothWays(T record) throws IOException {
        byte[] reflective = encode(record, model(false));
        byte[] generated = encode(record, model(true));
        assertArrayEquals(reflective, generated, record.getClass().getSimpleName());
        assertEquals(record, decode(generated, record, model(true)));
        assertEquals(record, decode(generated, record, model(false)));
    }

    /** A model of its own (not the classes' shared one, which the JVM flags set): generated coders on or off. */
    private static SpecificData model(boolean generated) {
        SpecificData model = new SpecificData();
        model.setCustomCoders(generated);
        model.setFastReaderEnabled(!generated);
        return model;
    }

    private static <T extends SpecificRecordBase> byte[] encode(T record, SpecificData model) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        BinaryEncoder out = EncoderFactory.get().binaryEncoder(bytes, null);
        new SpecificDatumWriter<T>(record.getSchema(), model).write(record, out);
        out.flush();
        return bytes.toByteArray();
    }

    private static <T extends SpecificRecordBase> T decode(byte[] bytes, T like, SpecificData model)
            throws IOException {
        return new SpecificDatumReader<T>(like.getSchema(), like.getSchema(), model)
                .read(null, DecoderFactory.get().binaryDecoder(bytes, null));
    }
}
