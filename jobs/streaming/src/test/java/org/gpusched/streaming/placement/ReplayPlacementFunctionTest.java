package org.gpusched.streaming.placement;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.gpusched.placement.experiment.PolicySpec;
import org.gpusched.placement.io.AlibabaTraceCsv;
import org.gpusched.placement.model.NodeSpec;
import org.junit.jupiter.api.Test;

/** Harness test of {@link ReplayPlacementFunction} on the hand-checked fixture (src/test/resources/place-replay). */
class ReplayPlacementFunctionTest {
    static final Path PODS = Path.of("src/test/resources/place-replay/pods.csv");
    static final Path NODES = Path.of("src/test/resources/place-replay/nodes.csv");
    private static final ReplayTrace TRACE = ReplayTrace.scan(PODS);
    private static final List<NodeSpec> NODE_LIST = AlibabaTraceCsv.readNodes(NODES);
    private static final ReplayRun BESTFIT = new ReplayRun(new PolicySpec("bestfit", Double.NaN), 7);
    private static final ReplayRun FGD = new ReplayRun(new PolicySpec("fgd", Double.NaN), 7);
    private static final List<ReplayPod> PODS_OF_FIXTURE = pods(PODS, BESTFIT.key());

    /** The fixture's replayed pods in file order, for one run, parsed as the stream's parser does. */
    static List<ReplayPod> pods(Path file, String runKey) {
        try {
            List<String> lines = Files.readAllLines(file);
            PodListFormat format = new PodListFormat(file.toString(), lines.get(0));
            List<ReplayPod> pods = new ArrayList<>();
            for (int i = 1; i < lines.size(); i++) {
                ReplayPod p = format.parse(i + 1, lines.get(i)).pod();
                if (p != null) pods.add(p.forRun(runKey));
            }
            return pods;
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static KeyedOneInputStreamOperatorTestHarness<String, ReplayPod, ReplayEvent> harness() throws Exception {
        return new KeyedOneInputStreamOperatorTestHarness<>(
                new KeyedProcessOperator<>(new ReplayPlacementFunction(
                        NODE_LIST, TRACE.workloadTasks(), List.of(BESTFIT, FGD), TRACE.endTime())),
                new PlacementJob.RunKey(),
                Types.STRING);
    }

    private static List<String> drain(KeyedOneInputStreamOperatorTestHarness<String, ReplayPod, ReplayEvent> h) {
        List<String> out = new ArrayList<>();
        for (Object o : h.getOutput())
            if (o instanceof StreamRecord<?> r) {
                out.add(describe((ReplayEvent) r.getValue()));
            }
        h.getOutput().clear();
        return out;
    }

    /** The bestfit run's events over the whole fixture in one operator, never interrupted. */
    private static List<String> uninterrupted() throws Exception {
        var h = harness();
        h.open();
        feed(h, 0, 5);
        h.processWatermark(Long.MAX_VALUE);
        List<String> events = drain(h);
        h.close();
        return events;
    }

    private static String describe(ReplayEvent e) {
        return e.time + " " + e.action + " " + e.task + " " + Math.round(e.eopcWatts()) + " " + e.allocatedGpuFraction
                + " " + e.running;
    }

    private static void feed(
            KeyedOneInputStreamOperatorTestHarness<String, ReplayPod, ReplayEvent> h, int fromPod, int toPod)
            throws Exception {
        for (ReplayPod p : PODS_OF_FIXTURE.subList(fromPod, toPod)) {
            h.processElement(new StreamRecord<>(p, p.creationTime * 1000));
        }
    }

    @Test
    void readsTheFixtureSkippingTheNeverScheduledPodAndMarkingTheCutOffOne() {
        assertEquals(5, TRACE.replayable());
        assertEquals(5, PODS_OF_FIXTURE.size());
        assertEquals(1, TRACE.unscheduled());
        assertEquals(0, TRACE.rejected());
        assertEquals(6, TRACE.workloadTasks().size(), "the never-scheduled pod still counts in the target workload");
        assertEquals(100, TRACE.endTime());
        assertEquals("p3", PODS_OF_FIXTURE.get(3).name);
        assertEquals(ReplayPod.CUT_OFF, PODS_OF_FIXTURE.get(3).deletionTime);
    }

    @Test
    void twoRunsInOneOperatorKeepSeparateClustersAndEachDecidesAsIfAlone() throws Exception {
        List<String> expected = uninterrupted();

        var both = harness();
        both.open();
        for (ReplayPod p : PODS_OF_FIXTURE) {
            both.processElement(new StreamRecord<>(p, p.creationTime * 1000));
            both.processElement(new StreamRecord<>(p.forRun(FGD.key()), p.creationTime * 1000));
        }
        both.processWatermark(Long.MAX_VALUE);
        List<String> bestfit = new ArrayList<>();
        int fgdEvents = 0;
        for (Object o : both.getOutput())
            if (o instanceof StreamRecord<?> r) {
                ReplayEvent e = (ReplayEvent) r.getValue();
                if (e.run.equals(BESTFIT.key())) bestfit.add(describe(e));
                else fgdEvents++;
            }
        assertEquals(expected, bestfit);
        assertEquals(
                9,
                fgdEvents,
                "fgd's run decided the same five pods (4 placed and released, 1 failed) on its own cluster");
        assertEquals(0, both.numKeyedStateEntries());
        both.close();
    }

    @Test
    void placesAtCreationReleasesAtDeletionByTimersAndEndsWithNoState() throws Exception {
        var h = harness();
        h.open();
        feed(h, 0, 5);
        assertEquals(List.of(), drain(h), "nothing is decided before the watermark reaches the creation time");
        assertEquals(5, h.numEventTimeTimers());

        h.processWatermark(19_999);
        assertEquals(List.of("0 PLACE p0 200 0.5 1", "10 PLACE p1 260 0.75 2"), drain(h), "event time is in ms");
        h.processWatermark(20_000);
        assertEquals(List.of("20 FAIL p2 260 0.75 2"), drain(h));
        h.processWatermark(50_000);
        assertEquals(List.of("40 PLACE p3 260 0.75 3", "50 RELEASE p1 200 0.5 2", "50 PLACE p5 260 0.75 3"), drain(h));
        h.processWatermark(99_000);
        assertEquals(List.of("60 RELEASE p5 200 0.5 2"), drain(h));
        h.processWatermark(Long.MAX_VALUE);
        assertEquals(List.of("100 RELEASE p0 140 0.0 1", "100 RELEASE p3 35 0.0 0"), drain(h));

        assertEquals(
                0,
                h.numKeyedStateEntries(),
                "placements, pending arrivals/departures and random state are all cleared");
        assertEquals(0, h.numEventTimeTimers());
        h.close();
    }

    @Test
    void aRestoredOperatorDecidesAsAnUninterruptedOne() throws Exception {
        List<String> expected = uninterrupted();

        var first = harness();
        first.open();
        feed(first, 0, 4);
        first.processWatermark(45_000);
        List<String> got = new ArrayList<>(drain(first));
        OperatorSubtaskState snapshot = first.snapshot(1, 1);
        first.close();

        var second = harness();
        second.initializeState(snapshot);
        second.open();
        feed(second, 4, 5);
        second.processWatermark(Long.MAX_VALUE);
        got.addAll(drain(second));
        assertEquals(expected, got);
        assertEquals(0, second.numKeyedStateEntries());
        second.close();
    }
}
