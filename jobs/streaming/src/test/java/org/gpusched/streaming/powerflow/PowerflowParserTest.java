package org.gpusched.streaming.powerflow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.apache.flink.streaming.api.operators.ProcessOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.gpusched.formats.FormatException;
import org.gpusched.formats.TraceJson;
import org.gpusched.streaming.RawRecord;
import org.gpusched.streaming.Topics;
import org.gpusched.streaming.avro.RejectedRecord;
import org.gpusched.streaming.state.PowerflowEvent;
import org.junit.jupiter.api.Test;

/** Each input of the powerflow scheduler: good records pass, each bad one is rejected with its reason and field. */
class PowerflowParserTest {
    private record Result(List<PowerflowEvent> valid, List<RejectedRecord> rejected) {}

    private static Result parse(Topics topic, String... lines) throws Exception {
        var h = new OneInputStreamOperatorTestHarness<>(new ProcessOperator<>(new PowerflowParser(topic)));
        h.open();
        for (int i = 0; i < lines.length; i++)
            h.processElement(new StreamRecord<>(RawRecord.text("f", "f:" + (i + 1), lines[i]), 0));
        List<PowerflowEvent> valid = new ArrayList<>();
        for (Object o : h.getOutput()) if (o instanceof StreamRecord<?> r) valid.add((PowerflowEvent) r.getValue());
        List<RejectedRecord> rejected = new ArrayList<>();
        h.getSideOutput(PowerflowParser.REJECTED).forEach(r -> rejected.add(r.getValue()));
        h.close();
        return new Result(valid, rejected);
    }

    private static void assertRejected(Result r, int i, String position, String reason, String field) {
        RejectedRecord x = r.rejected().get(i);
        assertEquals(position, x.getPosition());
        assertEquals(reason, x.getReason());
        assertEquals(field, x.getField());
    }

    @Test
    void traceLines() throws Exception {
        Result r = parse(
                Topics.POWERFLOW_JOBS,
                "{\"id\":1,\"submit\":0,\"workload\":\"resnet50\",\"batch\":256,\"gpus\":4,\"iterations\":5e4}",
                "{not json",
                "{\"id\":2,\"submit\":0,\"workload\":\"resnet50\",\"batch\":256,\"gpus\":4,\"iterations\":5,\"x\":1}",
                "{\"id\":3,\"submit\":0,\"workload\":\"resnet50\",\"batch\":256,\"gpus\":2.5,\"iterations\":5}",
                "{\"id\":4,\"submit\":-1,\"workload\":\"resnet50\",\"batch\":256,\"gpus\":4,\"iterations\":5}",
                "{\"id\":5,\"submit\":0,\"submit\":1,\"workload\":\"resnet50\",\"batch\":256,\"gpus\":4,\"iterations\":5}",
                "{\"id\":6,\"submit\":0,\"workload\":\"resnet50\",\"batch\":\"a\",\"gpus\":4,\"iterations\":5}",
                "   ");
        assertEquals(1, r.valid().size());
        assertEquals("1", r.valid().get(0).getJob());
        assertEquals(6, r.rejected().size());
        assertEquals("f:2", r.rejected().get(0).getPosition());
        assertEquals(FormatException.WHOLE_RECORD, r.rejected().get(0).getField());
        assertTrue(
                r.rejected().get(0).getReason().startsWith("not valid JSON ("),
                r.rejected().get(0).getReason());
        assertRejected(
                r,
                1,
                "f:3",
                "unknown field 'x' (a PowerFlow trace line has id, submit, workload, batch, gpus, iterations)",
                "x");
        assertRejected(r, 2, "f:4", "field 'gpus' must be a whole number, got 2.5", "gpus");
        assertRejected(
                r,
                3,
                "f:5",
                "field 'submit' must be a time in [0, " + TraceJson.MAX_SECONDS + "] seconds, got -1.0",
                "submit");
        assertRejected(r, 4, "f:6", "field 'submit' is given twice", "submit");
        assertRejected(r, 5, "f:7", "field 'batch' must be a number, got \"a\"", "batch");
    }

    @Test
    void completionsAndTelemetry() throws Exception {
        Result c = parse(Topics.COMPLETIONS, "{\"time\":5,\"job\":\"1\"}", "{\"time\":5}", "[1]");
        assertEquals(1, c.valid().size());
        assertRejected(c, 0, "f:2", "field 'job' is missing", "job");
        assertEquals("a record must be a JSON object", c.rejected().get(1).getReason());

        Result t = parse(
                Topics.TELEMETRY,
                "{\"time\":5,\"kind\":\"JOB_PROGRESS\",\"job\":\"1\",\"iterationsDone\":10}",
                "{\"time\":5,\"kind\":\"NODE_POWER\",\"node\":\"n\",\"powerWatts\":10}",
                "{\"time\":5,\"kind\":\"JOB_PROGRESS\",\"job\":\"1\",\"stepSeconds\":0.1}",
                "{\"time\":5,\"kind\":\"JOB_PROGRESS\",\"job\":\"1\",\"iterationsDone\":1,\"gpus\":1.5}",
                "{\"time\":5,\"kind\":\"OTHER\",\"job\":\"1\"}");
        assertEquals(1, t.valid().size(), "NODE_POWER is dropped");
        assertRejected(
                t,
                0,
                "f:3",
                "job 1: a performance sample needs stepSeconds, gpuPowerWatts, gpus, powerLimitWatts and localBatch;"
                        + " 'gpuPowerWatts' is missing",
                "gpuPowerWatts");
        assertRejected(t, 1, "f:4", "field 'gpus' must be a whole number, got 1.5", "gpus");
        assertRejected(t, 2, "f:5", "field 'kind' must be JOB_PROGRESS or NODE_POWER, got 'OTHER'", "kind");
    }
}
