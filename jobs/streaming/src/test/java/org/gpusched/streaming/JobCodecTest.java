package org.gpusched.streaming;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.gpusched.core.model.InvalidInstanceException;
import org.gpusched.core.model.Job;
import org.gpusched.formats.TraceJob;
import org.gpusched.formats.TraceJson;
import org.gpusched.streaming.avro.ExecutionTime;
import org.gpusched.streaming.avro.JobSubmitted;
import org.junit.jupiter.api.Test;

/** A trace line, its Avro submission and its core job carry the same job, and the trace line comes back. */
class JobCodecTest {
    private static final String LINE = "{\"id\":\"j1\",\"submit\":5.5,\"due\":900,\"weight\":1.5,"
            + "\"times\":{\"V100x4\":{\"2\":170,\"1\":300},\"T4x1\":{\"1\":800}},"
            + "\"zeta\":[1,2],\"application\":\"bert\",\"actualFactor\":1.25,\"epochs\":3}";

    @Test
    void submissionHoldsTheTimesInTheJobsOrderTheFactorApartAndTheOtherExtrasSorted() {
        JobSubmitted s = JobCodec.toSubmitted(TraceJson.parse(LINE));
        assertEquals("j1", s.getId());
        assertEquals(5.5, s.getSubmit());
        assertEquals(900.0, s.getDue());
        assertEquals(1.5, s.getWeight());
        assertEquals(
                List.of(
                        new ExecutionTime("V100x4", 1, 300.0),
                        new ExecutionTime("V100x4", 2, 170.0),
                        new ExecutionTime("T4x1", 1, 800.0)),
                s.getTimes());
        assertEquals(1.25, s.getActualFactor());
        assertEquals("{\"application\":\"bert\",\"epochs\":3,\"zeta\":[1,2]}", s.getExtrasJson());
    }

    @Test
    void aLineWithoutExtrasHasNoExtrasAndNoFactor() {
        JobSubmitted s = JobCodec.toSubmitted(
                TraceJson.parse("{\"id\":\"a\",\"submit\":0,\"due\":10,\"weight\":1,\"times\":{\"T\":{\"1\":5}}}"));
        assertNull(s.getExtrasJson());
        assertNull(s.getActualFactor());
    }

    @Test
    void coreJobOfTheSubmissionIsTheParsedJob() {
        TraceJob parsed = TraceJson.parse(LINE);
        Job job = JobCodec.toJob(JobCodec.toSubmitted(parsed));
        assertEquals(parsed.job().id(), job.id());
        assertEquals(parsed.job().submitSeconds(), job.submitSeconds());
        assertEquals(parsed.job().dueSeconds(), job.dueSeconds());
        assertEquals(parsed.job().weightPerHour(), job.weightPerHour());
        assertEquals(parsed.job().times(), job.times());
        assertEquals(List.of("V100x4", "T4x1"), List.copyOf(job.times().keySet()));
    }

    @Test
    void aFactorThatIsNotANumberIsRefusedNamingTheJob() {
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class,
                () -> JobCodec.toSubmitted(TraceJson.parse(
                        "{\"id\":\"b\",\"submit\":0,\"due\":10,\"weight\":1,\"times\":{\"T\":{\"1\":5}},"
                                + "\"actualFactor\":\"fast\"}")));
        assertTrue(e.getMessage().startsWith("job b: field 'actualFactor'"), e.getMessage());
    }

    @Test
    void aTimeGivenTwiceInARecordIsAnImpossibleJob() {
        JobSubmitted s = JobSubmitted.newBuilder()
                .setId("c")
                .setSubmit(0)
                .setDue(10)
                .setWeight(1)
                .setTimes(List.of(new ExecutionTime("T", 1, 5.0), new ExecutionTime("T", 1, 6.0)))
                .setActualFactor(null)
                .setExtrasJson(null)
                .build();
        InvalidInstanceException e = assertThrows(InvalidInstanceException.class, () -> JobCodec.toJob(s));
        assertEquals("job c: times.T.1 given twice", e.getMessage());
    }

    @Test
    void traceLineOfTheSubmissionReadsBackAsTheSameSubmissionWithTheFactorInItsPlace() {
        JobSubmitted s = JobCodec.toSubmitted(TraceJson.parse(LINE));
        String line = JobCodec.toTraceLine(s);
        assertEquals(
                "{\"id\":\"j1\",\"submit\":5.5,\"due\":900.0,\"weight\":1.5,"
                        + "\"times\":{\"V100x4\":{\"1\":300.0,\"2\":170.0},\"T4x1\":{\"1\":800.0}},"
                        + "\"application\":\"bert\",\"epochs\":3,\"zeta\":[1,2],\"actualFactor\":1.25}",
                line);
        assertEquals(s, JobCodec.toSubmitted(TraceJson.parse(line)));
    }

    @Test
    void traceLineOfASubmissionWithoutFactorSaysOne() {
        JobSubmitted s = JobCodec.toSubmitted(
                TraceJson.parse("{\"id\":\"a\",\"submit\":0,\"due\":10,\"weight\":1,\"times\":{\"T\":{\"1\":5}}}"));
        assertTrue(JobCodec.toTraceLine(s).endsWith(",\"actualFactor\":1.0}"), JobCodec.toTraceLine(s));
    }

    @Test
    void aTraceLineNeverRepeatsAKeyNorFailsWhateverAnotherProducerPutInTheExtras() {
        for (String extras : org.gpusched.testkit.HostileRecords.badExtras().values()) {
            JobSubmitted s = JobCodec.toSubmitted(
                    TraceJson.parse("{\"id\":\"a\",\"submit\":0,\"due\":10,\"weight\":1,\"times\":{\"T\":{\"1\":5}}}"));
            s.setExtrasJson(extras);
            String line = JobCodec.toTraceLine(s);
            // the strict parser refuses a key given twice: the line is the record's own job, nothing forged
            TraceJob back = TraceJson.parse(line);
            assertEquals("a", back.job().id(), line);
            assertEquals(0.0, back.job().submitSeconds(), line);
            assertEquals(
                    java.util.Map.of("T", java.util.Map.of(1, 5.0)), back.job().times(), line);
        }
        JobSubmitted kept = JobCodec.toSubmitted(
                TraceJson.parse("{\"id\":\"a\",\"submit\":0,\"due\":10,\"weight\":1,\"times\":{\"T\":{\"1\":5}}}"));
        kept.setExtrasJson("{\"id\":\"spoofed\",\"epochs\":3}");
        assertEquals(
                "{\"id\":\"a\",\"submit\":0.0,\"due\":10.0,\"weight\":1.0,\"times\":{\"T\":{\"1\":5.0}},"
                        + "\"epochs\":3,\"actualFactor\":1.0}",
                JobCodec.toTraceLine(kept));
    }
}
