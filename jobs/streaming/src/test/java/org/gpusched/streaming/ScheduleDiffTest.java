package org.gpusched.streaming;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import org.gpusched.core.model.Cluster;
import org.gpusched.core.model.Node;
import org.gpusched.core.model.NodeType;
import org.gpusched.core.model.Placement;
import org.gpusched.streaming.avro.DecisionAction;
import org.gpusched.streaming.avro.PlacementDecision;
import org.junit.jupiter.api.Test;

/** The schedule-to-decisions diff on hand-made placements, without Flink or a controller. */
class ScheduleDiffTest {
    private static final Cluster CLUSTER = new Cluster(
            List.of(
                    new NodeType("G1", "X", 1, new double[] {0.5, 1.0}),
                    new NodeType("G2", "X", 2, new double[] {0.5, 1.0, 1.8})),
            List.of(Node.fixed("n0", "G2"), Node.fixed("n1", "G2"), Node.fixed("n2", "G1")));

    /** Candidates' current placements: node (null: waiting), type, GPUs. */
    private record Now(String node, String type, int gpus) {}

    private static List<ScheduleDiff.Change> diff(List<Now> now, Placement... placements) {
        return ScheduleDiff.of(
                CLUSTER,
                now.size(),
                new ScheduleDiff.Current() {
                    @Override
                    public String node(int c) {
                        return now.get(c).node();
                    }

                    @Override
                    public String type(int c) {
                        return now.get(c).type();
                    }

                    @Override
                    public int gpus(int c) {
                        return now.get(c).gpus();
                    }
                },
                i -> placements[i]);
    }

    @Test
    void eachKindOfChangeAgainstWhereTheJobRunsNow() {
        List<Now> now = List.of(
                new Now(null, null, 0), // 0: waiting, placed -> START
                new Now("n0", "G2", 1), // 1: same node, more GPUs -> RESIZE
                new Now("n1", "G2", 2), // 2: other node -> MIGRATE from n1
                new Now("n2", "G1", 1), // 3: running, not placed -> PREEMPT where it was
                new Now("n1", "G2", 1), // 4: kept -> nothing
                new Now(null, null, 0)); // 5: waiting, not placed -> nothing
        List<ScheduleDiff.Change> changes = diff(
                now,
                new Placement(2, 0, 1),
                new Placement(0, 1, 2),
                new Placement(0, 1, 2),
                null,
                new Placement(1, 1, 1),
                null);
        assertEquals(
                List.of(
                        new ScheduleDiff.Change(0, DecisionAction.START, "n2", "G1", 1, null),
                        new ScheduleDiff.Change(1, DecisionAction.RESIZE, "n0", "G2", 2, null),
                        new ScheduleDiff.Change(2, DecisionAction.MIGRATE, "n0", "G2", 2, "n1"),
                        new ScheduleDiff.Change(3, DecisionAction.PREEMPT, "n2", "G1", 1, null)),
                changes);
    }

    @Test
    void aTypeChangeOnTheSameNodeIsAResize() {
        List<ScheduleDiff.Change> changes = diff(List.of(new Now("n0", "G1", 1)), new Placement(0, 1, 1));
        assertEquals(List.of(new ScheduleDiff.Change(0, DecisionAction.RESIZE, "n0", "G2", 1, null)), changes);
    }

    private static PlacementDecision d(String job, DecisionAction action, int gpus) {
        return PlacementDecision.newBuilder()
                .setTime(0)
                .setJob(job)
                .setAction(action)
                .setNode("n")
                .setType("G")
                .setGpus(gpus)
                .setPreviousNode(null)
                .setExpectedCompletion(null)
                .setExpectedCost(null)
                .setPolicy("p")
                .setController(0)
                .setSeq(0)
                .setReason(null)
                .build();
    }

    @Test
    void releasesGoOutBeforeStartsAndSmallerResizesFirst() {
        List<PlacementDecision> in = List.of(
                d("a", DecisionAction.START, 1),
                d("b", DecisionAction.RESIZE, 2),
                d("c", DecisionAction.PREEMPT, 1),
                d("d", DecisionAction.RESIZE, 1),
                d("e", DecisionAction.MIGRATE, 1),
                d("f", DecisionAction.RESIZE, 1),
                d("g", DecisionAction.PREEMPT, 2));
        List<String> order = new ArrayList<>();
        for (PlacementDecision x : ScheduleDiff.inEmissionOrder(in)) order.add(x.getJob());
        assertEquals(List.of("c", "g", "d", "f", "b", "e", "a"), order);
    }
}
