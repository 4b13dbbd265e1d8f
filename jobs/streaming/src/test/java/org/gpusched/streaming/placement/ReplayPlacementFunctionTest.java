package org.gpusched.streaming.placement;

import static org.junit.jupiter.api.Assertions.assertEquals;

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
    private static final ReplayTrace TRACE = ReplayTrace.read(PODS);
    private static final List<NodeSpec> NODE_LIST = AlibabaTraceCsv.readNodes(NODES);

    private static KeyedOneInputStreamOperatorTestHarness<String, ReplayPod, ReplayEvent> harness() throws Exception {
        return new KeyedOneInputStreamOperatorTestHarness<>(new KeyedProcessOperator<>(new ReplayPlacementFunction(NODE_LIST,
                TRACE.tasks(), new PolicySpec("bestfit", Double.NaN), 7, TRACE.endTime())), new PlacementReplay.ClusterKey(), Types.STRING);
    }

    private static List<String> drain(KeyedOneInputStreamOperatorTestHarness<String, ReplayPod, ReplayEvent> h) {
        List<String> out = new ArrayList<>();
        for (Object o : h.getOutput())
            if (o instanceof StreamRecord<?> r) {
                ReplayEvent e = (ReplayEvent) r.getValue();
                out.add(e.time + " " + e.action + " " + TRACE.tasks().get(e.traceIndex).name() + " " + Math.round(e.eopcWatts()) + " "
                        + e.allocatedGpuFraction + " " + e.running);
            }
        h.getOutput().clear();
        return out;
    }

    private static void feed(KeyedOneInputStreamOperatorTestHarness<String, ReplayPod, ReplayEvent> h, int fromPod, int toPod) throws Exception {
        for (ReplayPod p : TRACE.pods().subList(fromPod, toPod)) {
            h.processElement(new StreamRecord<>(p, p.creationTime));
        }
    }

    @Test
    void readsTheFixtureSkippingTheNeverScheduledPodAndMarkingTheCutOffOne() {
        assertEquals(5, TRACE.pods().size());
        assertEquals(1, TRACE.unscheduled());
        assertEquals(100, TRACE.endTime());
        assertEquals(ReplayPod.CUT_OFF, TRACE.pods().get(3).deletionTime); // p3
        assertEquals("p3", TRACE.tasks().get(TRACE.pods().get(3).traceIndex).name());
    }

    @Test
    void placesAtCreationReleasesAtDeletionByTimersAndEndsWithNoState() throws Exception {
        var h = harness();
        h.open();
        feed(h, 0, 5);
        assertEquals(List.of(), drain(h), "nothing is decided before the watermark reaches the creation time");
        assertEquals(5, h.numEventTimeTimers());

        h.processWatermark(20);
        assertEquals(List.of("0 PLACE p0 200 0.5 1", "10 PLACE p1 260 0.75 2", "20 FAIL p2 260 0.75 2"), drain(h));
        h.processWatermark(50);
        assertEquals(List.of("40 PLACE p3 260 0.75 3", "50 RELEASE p1 200 0.5 2", "50 PLACE p5 260 0.75 3"), drain(h));
        h.processWatermark(99);
        assertEquals(List.of("60 RELEASE p5 200 0.5 2"), drain(h));
        h.processWatermark(Long.MAX_VALUE);
        assertEquals(List.of("100 RELEASE p0 140 0.0 1", "100 RELEASE p3 35 0.0 0"), drain(h));

        assertEquals(0, h.numKeyedStateEntries(), "placements, pending arrivals/departures and random state are all cleared");
        assertEquals(0, h.numEventTimeTimers());
        h.close();
    }

    @Test
    void aRestoredOperatorDecidesAsAnUninterruptedOne() throws Exception {
        var straight = harness();
        straight.open();
        feed(straight, 0, 5);
        straight.processWatermark(Long.MAX_VALUE);
        List<String> expected = drain(straight);
        straight.close();

        var first = harness();
        first.open();
        feed(first, 0, 4);
        first.processWatermark(45);
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
