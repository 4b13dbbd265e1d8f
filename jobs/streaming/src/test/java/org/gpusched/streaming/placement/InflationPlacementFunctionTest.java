package org.gpusched.streaming.placement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.gpusched.placement.experiment.CurvePoint;
import org.gpusched.placement.experiment.InflationExperiment;
import org.gpusched.placement.experiment.InflationRun;
import org.gpusched.placement.experiment.TaskSequence;
import org.gpusched.placement.model.ClusterState;
import org.gpusched.placement.model.TargetWorkload;
import org.junit.jupiter.api.Test;

class InflationPlacementFunctionTest {
    private static final InflationExperiment.Config CONFIG = InflationFixture.config(1);
    private static final long SEED = 4;
    private static final int POLICY = 1; // pwr-fgd a=0.1

    private static KeyedOneInputStreamOperatorTestHarness<String, InflationArrival, InflationOutput> harness()
            throws Exception {
        return new KeyedOneInputStreamOperatorTestHarness<>(
                new KeyedProcessOperator<>(new InflationPlacementFunction(
                        CONFIG.nodes(), CONFIG.trace(), CONFIG.policies(), CONFIG.step(), CONFIG.load())),
                new StreamingInflation.RunKey(),
                Types.STRING);
    }

    private static List<InflationArrival> arrivals() {
        int[] seq = TaskSequence.sample(
                CONFIG.trace(), new ClusterState(CONFIG.nodes(), null).gpuMilliCapacity(), CONFIG.load(), SEED);
        List<InflationArrival> out = new ArrayList<>();
        for (int i = 0; i < seq.length; i++)
            out.add(new InflationArrival(POLICY, SEED, i, seq[i], i == seq.length - 1));
        return out;
    }

    private static List<InflationOutput> outputs(
            KeyedOneInputStreamOperatorTestHarness<String, InflationArrival, InflationOutput> h) {
        List<InflationOutput> out = new ArrayList<>();
        for (Object o : h.getOutput()) if (o instanceof StreamRecord<?> r) out.add((InflationOutput) r.getValue());
        return out;
    }

    private static String describe(InflationOutput o) {
        return o.end
                ? "end " + o.arrivedTasks + " " + o.failedTasks
                : o.requestedGpuFraction + " " + o.arrivedTasks + " " + o.eopcCpuWatts + " " + o.eopcGpuWatts + " "
                        + o.grar + " " + o.fragmentedGpus + " " + o.failedTasks;
    }

    @Test
    void emitsThePlainJavaCurveAndClearsStateAtTheRunsEnd() throws Exception {
        var h = harness();
        h.open();
        List<InflationArrival> arrivals = arrivals();
        for (InflationArrival a : arrivals) h.processElement(new StreamRecord<>(a));
        List<InflationOutput> out = outputs(h);
        InflationRun.Result plain = InflationRun.run(
                CONFIG.nodes(),
                TargetWorkload.fromTasks(CONFIG.trace()),
                CONFIG.trace(),
                arrivals.stream().mapToInt(a -> a.traceIndex).toArray(),
                CONFIG.policies().get(POLICY),
                SEED,
                CONFIG.step(),
                CONFIG.load());
        List<String> expected = new ArrayList<>();
        for (CurvePoint p : plain.curve())
            expected.add(p.requestedGpuFraction() + " " + p.arrivedTasks() + " " + p.eopcCpuWatts() + " "
                    + p.eopcGpuWatts() + " " + p.grar() + " " + p.fragmentedGpus() + " " + p.failedTasks());
        expected.add("end " + plain.tasks() + " " + plain.failed());
        assertEquals(
                expected,
                out.stream().map(InflationPlacementFunctionTest::describe).toList());
        assertTrue(plain.failed() > 0, "the run reaches saturation");
        assertEquals(0, h.numKeyedStateEntries(), "progress and placement log are cleared by the last arrival");
        assertEquals(0, h.numEventTimeTimers(), "arrivals are placed as they come: no event-time timer");
        assertEquals(0, h.numProcessingTimeTimers(), "no processing-time timer");
        h.close();
    }

    @Test
    void aRestoreFromASnapshotMidRunChangesNoDecision() throws Exception {
        List<InflationArrival> arrivals = arrivals();
        var straight = harness();
        straight.open();
        for (InflationArrival a : arrivals) straight.processElement(new StreamRecord<>(a));
        List<String> expected = outputs(straight).stream()
                .map(InflationPlacementFunctionTest::describe)
                .toList();
        straight.close();

        int half = arrivals.size() / 2;
        var before = harness();
        before.open();
        for (InflationArrival a : arrivals.subList(0, half)) before.processElement(new StreamRecord<>(a));
        List<String> got = new ArrayList<>(outputs(before).stream()
                .map(InflationPlacementFunctionTest::describe)
                .toList());
        assertEquals(2, before.numKeyedStateEntries(), "mid-run: progress and placement log");
        assertEquals(0, before.numEventTimeTimers() + before.numProcessingTimeTimers(), "mid-run: no timer");
        var snapshot = before.snapshot(1, 1);
        before.close();

        var after = harness(); // a new operator instance: its cluster cache is empty and must be rebuilt from the log
        after.initializeState(snapshot);
        after.open();
        for (InflationArrival a : arrivals.subList(half, arrivals.size())) after.processElement(new StreamRecord<>(a));
        got.addAll(outputs(after).stream()
                .map(InflationPlacementFunctionTest::describe)
                .toList());
        after.close();
        assertEquals(expected, got);
    }
}
