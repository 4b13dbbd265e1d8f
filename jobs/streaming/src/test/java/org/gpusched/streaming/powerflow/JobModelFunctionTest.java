package org.gpusched.streaming.powerflow;

import static org.gpusched.streaming.powerflow.PowerflowTestData.LIVE;
import static org.gpusched.streaming.powerflow.PowerflowTestData.completion;
import static org.gpusched.streaming.powerflow.PowerflowTestData.job;
import static org.gpusched.streaming.powerflow.PowerflowTestData.profile;
import static org.gpusched.streaming.powerflow.PowerflowTestData.sample;
import static org.gpusched.streaming.powerflow.PowerflowTestData.submission;
import static org.gpusched.streaming.powerflow.PowerflowTestData.telemetry;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.gpusched.powerflow.model.Configuration;
import org.gpusched.powerflow.model.PerformanceModel;
import org.gpusched.streaming.avro.JobModelFit;
import org.gpusched.streaming.avro.PowerflowJob;
import org.gpusched.streaming.state.PowerflowEvent;
import org.gpusched.streaming.state.PowerflowEventKind;
import org.junit.jupiter.api.Test;

class JobModelFunctionTest {
    private static final PowerflowJob RESNET = job("r", 0, "resnet50", 256, 1e5);

    private static KeyedOneInputStreamOperatorTestHarness<String, PowerflowEvent, PowerflowEvent> harness(
            OperatorSubtaskState restoreFrom) throws Exception {
        var h = new KeyedOneInputStreamOperatorTestHarness<>(
                new KeyedProcessOperator<>(new JobModelFunction(LIVE)), PowerflowEvent::getJob, Types.STRING);
        if (restoreFrom != null) h.initializeState(restoreFrom);
        h.open();
        return h;
    }

    private static void send(
            KeyedOneInputStreamOperatorTestHarness<String, PowerflowEvent, PowerflowEvent> h, List<PowerflowEvent> in)
            throws Exception {
        for (PowerflowEvent e : in) h.processElement(new StreamRecord<>(e, e.getTimeMillis()));
    }

    private static List<JobModelFit> fits(
            KeyedOneInputStreamOperatorTestHarness<String, PowerflowEvent, PowerflowEvent> h) {
        List<JobModelFit> out = new ArrayList<>();
        for (Object o : h.getOutput())
            if (o instanceof StreamRecord<?> r && ((PowerflowEvent) r.getValue()).getKind() == PowerflowEventKind.MODEL)
                out.add(((PowerflowEvent) r.getValue()).getModel());
        return out;
    }

    /** The submission and the profile at 10 s. */
    private static List<PowerflowEvent> profiled() {
        List<PowerflowEvent> in = new ArrayList<>();
        in.add(submission(RESNET));
        in.addAll(profile(RESNET, 10));
        return in;
    }

    /** Four GPUs at 250 W, three times slower than the truth: communication far worse than the prior assumes. */
    private static PowerflowEvent slowOnFour(double time) {
        return telemetry(sample("r", time, "resnet50", 256, 4, 250, 3.0));
    }

    private static double stepOnFour(JobModelFit fit) {
        PerformanceModel m = JobModels.model(fit);
        return m.stepTime(Configuration.of(4, LIVE.gpusPerNode(), 256, 1.0));
    }

    @Test
    void telemetryAtANewConfigurationRefitsTheModel() throws Exception {
        var h = harness(null);
        send(h, profiled());
        h.processWatermark(new Watermark(10_000));
        List<JobModelFit> first = fits(h);
        assertEquals(1, first.size(), "one fit for the profile's time");
        JobModelFit profileFit = first.get(0);
        assertEquals(7, profileFit.getObservations());
        assertEquals(1, profileFit.getRefits());
        double trueStep = PowerflowTestData.TRUTH.at("resnet50", 1, 256, 250).stepTime();
        double fitted = JobModels.model(profileFit).stepTime(Configuration.of(1, 8, 256, 1.0));
        // within 8%: the fit weighs the job's own profile against the scale-out prior's pseudo-observations at the
        // halved batches, and eq. 3's linear batch term cannot follow the measured batch curve at both exactly
        assertEquals(trueStep, fitted, 0.08 * trueStep, "the profile fit knows the one-GPU step time");

        send(h, List.of(slowOnFour(100)));
        h.processWatermark(new Watermark(100_000));
        List<JobModelFit> all = fits(h);
        assertEquals(2, all.size());
        JobModelFit refit = all.get(1);
        assertEquals(2, refit.getRefits());
        assertTrue(refit.getNewGpuCount());
        assertEquals(100.0, refit.getTime());
        double observed = PowerflowTestData.TRUTH.at("resnet50", 4, 256, 250).stepTime() * 3;
        double before = Math.abs(stepOnFour(profileFit) - observed), after = Math.abs(stepOnFour(refit) - observed);
        assertTrue(
                after < 0.25 * before,
                "the refit moves the 4-GPU step time toward the telemetry: error " + before + " s -> " + after + " s");

        // the same configuration again: averaged in, no refit
        send(h, List.of(slowOnFour(150)));
        h.processWatermark(new Watermark(150_000));
        assertEquals(2, fits(h).size());
        assertEquals(2, h.getSideOutput(JobModelFunction.MODELS).size(), "every fit also goes to the models output");
    }

    @Test
    void stateFallsToZeroWhenTheJobCompletes() throws Exception {
        var h = harness(null);
        send(h, profiled());
        send(h, List.of(slowOnFour(100)));
        h.processWatermark(new Watermark(100_000));
        assertTrue(h.numKeyedStateEntries() > 0);
        send(h, List.of(completion("r", 200), slowOnFour(200)));
        h.processWatermark(new Watermark(200_000));
        assertEquals(0, h.numKeyedStateEntries(), "model and pending events are cleared at completion");
        // telemetry of a finished (or never submitted) job leaves nothing behind
        send(h, List.of(slowOnFour(300), telemetry(sample("ghost", 300, "resnet50", 256, 1, 250, 1))));
        h.processWatermark(new Watermark(300_000));
        assertEquals(0, h.numKeyedStateEntries());
        long forwarded = h.getOutput().stream()
                .filter(o -> o instanceof StreamRecord<?> r
                        && ((PowerflowEvent) r.getValue()).getKind() == PowerflowEventKind.COMPLETION)
                .count();
        assertEquals(1, forwarded, "the completion goes on to the scheduler");
    }

    @Test
    void telemetryAndCompletionsOfAJobItDoesNotKnowAreRejectedNotDropped() throws Exception {
        var h = harness(null);
        send(h, profiled());
        // a sample of the completion's own time still belongs to the job (its energy); a later one does not
        send(h, List.of(completion("r", 200), slowOnFour(200), slowOnFour(250)));
        send(h, List.of(telemetry(sample("ghost", 300, "resnet50", 256, 1, 250, 1)), completion("ghost", 310)));
        send(h, List.of(completion("r", 400)));
        h.processWatermark(new Watermark(1_000_000));
        List<String> reasons = new ArrayList<>();
        h.getSideOutput(JobModelFunction.REJECTED).forEach(r -> {
            assertEquals("job", r.getValue().getField());
            reasons.add(r.getValue().getReason());
        });
        assertEquals(
                List.of(
                        "telemetry of unknown or finished job r",
                        "telemetry of unknown or finished job ghost",
                        "completion of unknown or finished job ghost",
                        "completion of unknown or finished job r"),
                reasons);
    }

    @Test
    void aRestoredFunctionFitsExactlyAsTheOneThatWentOn() throws Exception {
        var before = harness(null);
        send(before, profiled());
        before.processWatermark(new Watermark(10_000));
        OperatorSubtaskState snapshot = before.snapshot(1, 1);
        send(before, List.of(slowOnFour(100)));
        before.processWatermark(new Watermark(100_000));
        JobModelFit wentOn = fits(before).get(1);

        var after = harness(snapshot);
        send(after, List.of(slowOnFour(100)));
        after.processWatermark(new Watermark(100_000));
        List<JobModelFit> restoredFits = fits(after);
        assertEquals(1, restoredFits.size());
        assertEquals(wentOn, restoredFits.get(0), "same refit, warm-started from the restored fit and samples");
        assertNotEquals(fits(before).get(0), wentOn);
    }

    @Test
    void arrivalOrderDoesNotChangeTheFits() throws Exception {
        List<PowerflowEvent> in = profiled();
        in.add(slowOnFour(10));
        var inOrder = harness(null);
        send(inOrder, in);
        inOrder.processWatermark(new Watermark(10_000));
        List<PowerflowEvent> shuffled = new ArrayList<>(in);
        Collections.shuffle(shuffled, new Random(3));
        assertFalse(shuffled.equals(in));
        var outOfOrder = harness(null);
        send(outOfOrder, shuffled);
        outOfOrder.processWatermark(new Watermark(10_000));
        assertEquals(fits(inOrder), fits(outOfOrder));
        assertEquals(8, fits(inOrder).get(0).getObservations());
    }
}
