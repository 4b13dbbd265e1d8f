package org.gpusched.streaming.powerflow;

import static org.gpusched.streaming.powerflow.PowerflowTestData.LIVE;
import static org.gpusched.streaming.powerflow.PowerflowTestData.completion;
import static org.gpusched.streaming.powerflow.PowerflowTestData.job;
import static org.gpusched.streaming.powerflow.PowerflowTestData.sample;
import static org.gpusched.streaming.powerflow.PowerflowTestData.submission;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.gpusched.powerflow.model.Configuration;
import org.gpusched.streaming.avro.DecisionAction;
import org.gpusched.streaming.avro.JobModelFit;
import org.gpusched.streaming.avro.PlacementDecision;
import org.gpusched.streaming.avro.PowerflowJob;
import org.gpusched.streaming.avro.PowerflowJobEnergy;
import org.gpusched.streaming.avro.Telemetry;
import org.gpusched.streaming.avro.TelemetryKind;
import org.gpusched.streaming.state.JobModelState;
import org.gpusched.streaming.state.PowerflowEvent;
import org.gpusched.streaming.state.PowerflowEventKind;
import org.junit.jupiter.api.Test;

class PowerflowSchedulerTest {
    private static final PowerflowSettings REPLAY = PowerflowSettings.of(0.5, 16, true, 7, null);

    private static KeyedOneInputStreamOperatorTestHarness<String, PowerflowEvent, PlacementDecision> harness(
            PowerflowSettings cfg, OperatorSubtaskState restoreFrom) throws Exception {
        var h = new KeyedOneInputStreamOperatorTestHarness<>(
                new KeyedProcessOperator<>(new PowerflowScheduler(cfg)), e -> PowerflowSettings.POLICY, Types.STRING);
        if (restoreFrom != null) h.initializeState(restoreFrom);
        h.open();
        return h;
    }

    private static void send(
            KeyedOneInputStreamOperatorTestHarness<String, PowerflowEvent, PlacementDecision> h,
            List<PowerflowEvent> in)
            throws Exception {
        for (PowerflowEvent e : in) h.processElement(new StreamRecord<>(e, e.getTimeMillis()));
    }

    private static List<PlacementDecision> decisions(
            KeyedOneInputStreamOperatorTestHarness<String, PowerflowEvent, PlacementDecision> h) {
        List<PlacementDecision> out = new ArrayList<>();
        for (Object o : h.getOutput()) if (o instanceof StreamRecord<?> r) out.add((PlacementDecision) r.getValue());
        return out;
    }

    /** The model a job's profile gives (what JobModelFunction would emit). */
    private static PowerflowEvent profiledModel(PowerflowJob j, double time) {
        JobModelState s = JobModels.empty(j.getId());
        for (double limit : LIVE.powerLimits()) {
            var t = sample(j.getId(), time, j.getWorkload(), j.getGlobalBatch(), 1, limit, 1);
            s = JobModels.observe(
                    s,
                    Configuration.of(1, 8, j.getGlobalBatch(), LIVE.freq(limit)),
                    t.getStepSeconds(),
                    t.getStepSeconds() * t.getGpuPowerWatts());
        }
        JobModelFit fit = JobModels.fit(
                        s,
                        time,
                        new org.gpusched.powerflow.sim.ModelFitting(LIVE.groundTruth(), LIVE.cluster(), true),
                        LIVE.totalGpus(),
                        true)
                .getFit();
        return PowerflowEvent.newBuilder()
                .setTimeMillis((long) (time * 1000))
                .setKind(PowerflowEventKind.MODEL)
                .setJob(j.getId())
                .setModel(fit)
                .build();
    }

    private static final PowerflowJob A = job("a", 0, "resnet50", 256, 2e4);
    private static final PowerflowJob B = job("b", 0, "bert-squad", 32, 5e3);

    @Test
    void liveJobsWaitForTheirModelThenGetGpusPowerLimitAndLocalBatchWithinTheBudget() throws Exception {
        var h = harness(LIVE, null);
        send(h, List.of(submission(A), submission(B)));
        h.processWatermark(new Watermark(1_000));
        assertTrue(decisions(h).isEmpty(), "no model yet: nothing is scheduled");
        send(h, List.of(profiledModel(A, 10), profiledModel(B, 10)));
        h.processWatermark(new Watermark(10_000));
        List<PlacementDecision> started = decisions(h);
        assertEquals(2, started.size());
        int gpus = 0;
        double budget = LIVE.eta() * LIVE.totalGpus() * LIVE.maxPowerWatts(), power = 0;
        Map<String, PowerflowEvent> models = Map.of("a", profiledModel(A, 10), "b", profiledModel(B, 10));
        for (PlacementDecision d : started) {
            assertEquals(DecisionAction.START, d.getAction());
            assertEquals(10.0, d.getTime());
            assertTrue(Integer.bitCount(d.getGpus()) == 1, "power-of-two workers: " + d.getGpus());
            PowerflowJob j = d.getJob().equals("a") ? A : B;
            assertEquals(j.getGlobalBatch() / d.getGpus(), d.getLocalBatch());
            assertNotNull(d.getPowerLimitWatts());
            assertTrue(
                    java.util.Arrays.stream(LIVE.powerLimits()).anyMatch(l -> l == d.getPowerLimitWatts()),
                    "a supported limit: " + d.getPowerLimitWatts());
            assertNotNull(d.getExpectedCompletion());
            gpus += d.getGpus();
            power += JobModels.model(models.get(d.getJob()).getModel())
                    .power(Configuration.of(d.getGpus(), 8, j.getGlobalBatch(), LIVE.freq(d.getPowerLimitWatts())));
        }
        assertTrue(gpus <= LIVE.totalGpus());
        assertTrue(power <= budget + 1e-9, "predicted power " + power + " W within eta x G x Pmax = " + budget);

        send(h, List.of(completion("a", 50)));
        h.processWatermark(new Watermark(50_000));
        List<PlacementDecision> all = decisions(h);
        PlacementDecision complete = all.get(2);
        assertEquals("a", complete.getJob());
        assertEquals(DecisionAction.COMPLETE, complete.getAction());
        for (int i = 1; i < all.size(); i++)
            assertTrue(all.get(i).getSeq() > all.get(i - 1).getSeq());

        send(h, List.of(completion("b", 60)));
        h.processWatermark(new Watermark(60_000));
        h.getOperator().setCurrentKey(PowerflowSettings.POLICY);
        assertEquals(2, h.numKeyedStateEntries(), "an idle key holds only the clock and the counters");
    }

    /** A sample of job {@code id} at {@code time} drawing {@code watts} on {@code gpus} GPUs at 250 W. */
    private static PowerflowEvent drawing(String id, double time, int gpus, double watts) {
        return PowerflowTestData.telemetry(Telemetry.newBuilder()
                .setTime(time)
                .setKind(TelemetryKind.JOB_PROGRESS)
                .setJob(id)
                .setIterationsDone(0.0)
                .setStepSeconds(0.5)
                .setGpuPowerWatts(watts)
                .setGpus(gpus)
                .setPowerLimitWatts(250.0)
                .setLocalBatch(256.0 / gpus)
                .build());
    }

    @Test
    void liveEachFinishedJobsEnergyIsIntegratedFromTheTelemetryItReceived() throws Exception {
        var h = harness(LIVE, null);
        PowerflowJob e = job("e", 0, "resnet50", 256, 1e5);
        // profiling: 100 W over 0-30 s, 140 W over 30-60 s; the model at 60 s starts it
        send(h, List.of(submission(e), drawing("e", 30, 1, 100), drawing("e", 60, 1, 140), profiledModel(e, 60)));
        h.processWatermark(new Watermark(60_000));
        assertEquals(DecisionAction.START, decisions(h).get(0).getAction());
        // running: 400 W over 60-100 s; then 300 W up to its completion at 150 s (the sample of that time counts)
        send(h, List.of(drawing("e", 100, 2, 400), drawing("e", 150, 2, 300), completion("e", 150)));
        h.processWatermark(new Watermark(150_000));
        List<PowerflowJobEnergy> energy = new ArrayList<>();
        for (var r : h.getSideOutput(PowerflowScheduler.JOB_ENERGY)) energy.add(r.getValue());
        assertEquals(1, energy.size());
        PowerflowJobEnergy done = energy.get(0);
        assertEquals("e", done.getJob());
        assertTrue(done.getFromTelemetry());
        assertEquals(150.0, done.getJctSeconds(), 1e-9);
        assertEquals(100 * 30 + 140 * 30 + 400 * 40 + 300 * 50, done.getEnergyJoules(), 1e-9);
    }

    @Test
    void replaySimulatesTelemetryAndCompletionsAndEndsWithNoJobState() throws Exception {
        var h = harness(REPLAY, null);
        List<PowerflowEvent> in = trace();
        send(h, in);
        h.processWatermark(new Watermark(Long.MAX_VALUE));
        List<PlacementDecision> out = decisions(h);
        Map<String, Integer> running = new HashMap<>();
        int busy = 0;
        for (PlacementDecision d : out) {
            int before = running.getOrDefault(d.getJob(), 0);
            int after = switch (d.getAction()) {
                case START, RESIZE -> d.getGpus();
                default -> 0;
            };
            busy += after - before;
            running.put(d.getJob(), after);
            assertTrue(busy <= REPLAY.totalGpus(), "at most the cluster's GPUs at " + d.getTime());
        }
        for (PowerflowEvent e : in) {
            long completes = out.stream()
                    .filter(d -> d.getJob().equals(e.getJob()) && d.getAction() == DecisionAction.COMPLETE)
                    .count();
            assertEquals(1, completes, e.getJob() + " completes once");
        }
        assertEquals(in.size(), h.getSideOutput(PowerflowScheduler.COMPLETIONS).size());
        assertFalse(h.getSideOutput(PowerflowScheduler.TELEMETRY).isEmpty());
        assertTrue(h.getSideOutput(PowerflowScheduler.MODELS).size() >= in.size(), "a fit per profile at least");
        assertEquals(in.size(), h.getSideOutput(PowerflowScheduler.JOB_ENERGY).size(), "each job's energy once");
        assertEquals(
                3,
                h.numKeyedStateEntries(),
                "no job left in state: only the clock, the counters and the cluster's power");
    }

    @Test
    void replayDecisionsDoNotDependOnArrivalOrderAndSurviveARestore() throws Exception {
        List<PowerflowEvent> in = trace();
        var straight = harness(REPLAY, null);
        send(straight, in);
        straight.processWatermark(new Watermark(Long.MAX_VALUE));
        List<PlacementDecision> expected = decisions(straight);

        List<PowerflowEvent> shuffled = new ArrayList<>(in);
        Collections.shuffle(shuffled, new Random(5));
        var reordered = harness(REPLAY, null);
        send(reordered, shuffled);
        reordered.processWatermark(new Watermark(Long.MAX_VALUE));
        assertEquals(expected, decisions(reordered));

        var before = harness(REPLAY, null);
        send(before, in);
        before.processWatermark(new Watermark(400_000));
        int decidedBefore = decisions(before).size();
        assertTrue(decidedBefore > 0 && decidedBefore < expected.size(), "the snapshot is taken mid-run");
        OperatorSubtaskState snapshot = before.snapshot(1, 1);
        var after = harness(REPLAY, snapshot);
        after.processWatermark(new Watermark(Long.MAX_VALUE));
        List<PlacementDecision> resumed = new ArrayList<>(decisions(before));
        resumed.addAll(decisions(after));
        assertEquals(expected, resumed, "a restore continues with the same decisions");
        assertNull(resumed.get(0).getNode());
    }

    /** Five jobs over two minutes, mixed workloads. */
    private static List<PowerflowEvent> trace() {
        List<PowerflowEvent> in = new ArrayList<>();
        String[] workloads = {"resnet50", "bert-squad", "ncf", "deepspeech2", "shufflenetv2"};
        double[] batches = {256, 32, 1024, 48, 256};
        for (int i = 0; i < 5; i++)
            in.add(submission(job("j" + i, 30.0 * i, workloads[i], batches[i], 3000 + 1000 * i)));
        return in;
    }
}
