package org.gpusched.streaming;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.gpusched.streaming.avro.JobCompleted;
import org.gpusched.streaming.avro.NodeEventKind;
import org.gpusched.streaming.avro.RejectedRecord;
import org.gpusched.streaming.state.ControllerEvent;
import org.gpusched.streaming.state.EventKind;
import org.junit.jupiter.api.Test;

class DispatcherTest {
    private static KeyedOneInputStreamOperatorTestHarness<String, ControllerEvent, ControllerEvent> harness(
            SchedulerConfig cfg) throws Exception {
        var h = new KeyedOneInputStreamOperatorTestHarness<>(
                new KeyedProcessOperator<>(new Dispatcher(cfg)), e -> Dispatcher.KEY, Types.STRING);
        h.open();
        return h;
    }

    private static void send(
            KeyedOneInputStreamOperatorTestHarness<String, ControllerEvent, ControllerEvent> h, ControllerEvent e)
            throws Exception {
        ControllerEvent copy =
                ControllerEvent.newBuilder(e).setPolicy("").setController(-1).build();
        h.processElement(new StreamRecord<>(copy, copy.getTimeMillis()));
    }

    private static List<String> routed(
            KeyedOneInputStreamOperatorTestHarness<String, ControllerEvent, ControllerEvent> h) {
        List<String> out = new ArrayList<>();
        for (Object o : h.getOutput()) {
            if (o instanceof StreamRecord<?> r) {
                ControllerEvent e = (ControllerEvent) r.getValue();
                out.add(e.getKind() + ":" + e.getId() + "->" + ControllerKey.of(e.getPolicy(), e.getController()));
            }
        }
        return out;
    }

    @Test
    void roundRobinInSubmissionOrderWhateverTheArrivalOrderAndCopiedPerPolicy() throws Exception {
        SchedulerConfig cfg = TestData.config(TestData.oneGpuNodes(4, 3600), "fifo")
                .policies(List.of("fifo", "edf"))
                .controllers(2)
                .build();
        List<String> first = null;
        for (List<String> order : List.of(List.of("a", "b", "c", "d"), List.of("d", "c", "b", "a"))) {
            var h = harness(cfg);
            for (String id : order) {
                double submit = id.equals("d") ? 10 : 0; // a, b, c at the same time: id order decides
                send(h, TestData.submission(TestData.job(id, submit, 5000, 1, 100), "", -1));
            }
            h.processWatermark(new Watermark(Long.MAX_VALUE));
            List<String> r = routed(h);
            assertEquals(
                    List.of(
                            "SUBMISSION:a->fifo#0",
                            "SUBMISSION:a->edf#0",
                            "SUBMISSION:b->fifo#1",
                            "SUBMISSION:b->edf#1",
                            "SUBMISSION:c->fifo#0",
                            "SUBMISSION:c->edf#0",
                            "SUBMISSION:d->fifo#1",
                            "SUBMISSION:d->edf#1"),
                    r);
            if (first == null) first = r;
            assertEquals(first, r);
            assertEquals(4, h.getSideOutput(Dispatcher.ACCEPTED).size());
            h.close();
        }
    }

    private static List<Integer> dealt(SchedulerConfig cfg, int jobs) throws Exception {
        var h = harness(cfg);
        for (int i = 0; i < jobs; i++) send(h, TestData.submission(TestData.job("j" + i, i, 50_000, 1, 100), "", -1));
        h.processWatermark(new Watermark(Long.MAX_VALUE));
        List<Integer> owners = new ArrayList<>();
        for (Object o : h.getOutput())
            if (o instanceof StreamRecord<?> r) owners.add(((ControllerEvent) r.getValue()).getController());
        h.close();
        return owners;
    }

    @Test
    void gpuWeightedDispatchDealsInProportionToEachControllersGpus() throws Exception {
        // 4 one-GPU nodes over 3 controllers: controller 0 owns nodes 0 and 3 (2 GPUs), controllers 1 and 2 one each
        SchedulerConfig weighted = TestData.config(TestData.oneGpuNodes(4, 3600), "fifo")
                .controllers(3)
                .dispatch(SchedulerConfig.Dispatch.GPU_WEIGHTED)
                .build();
        assertEquals(List.of(0, 1, 2, 0, 0, 1, 2, 0), dealt(weighted, 8));
        SchedulerConfig roundRobin = TestData.config(TestData.oneGpuNodes(4, 3600), "fifo")
                .controllers(3)
                .build();
        assertEquals(List.of(0, 1, 2, 0, 1, 2, 0, 1), dealt(roundRobin, 8));
        // equal capacities: the weighted deal is the round robin
        SchedulerConfig equal = TestData.config(TestData.oneGpuNodes(4, 3600), "fifo")
                .controllers(2)
                .dispatch(SchedulerConfig.Dispatch.GPU_WEIGHTED)
                .build();
        assertEquals(List.of(0, 1, 0, 1, 0, 1), dealt(equal, 6));
    }

    @Test
    void duplicatesAndUnknownJobsAreRejectedNodesRoutedToOwners() throws Exception {
        SchedulerConfig cfg = TestData.config(TestData.oneGpuNodes(3, 3600), "fifo")
                .controllers(2)
                .mode(SchedulerConfig.Mode.LIVE)
                .build();
        var h = harness(cfg);
        send(h, TestData.submission(TestData.job("a", 0, 5000, 1, 100), "", -1));
        ControllerEvent dup = TestData.submission(TestData.job("a", 5, 5000, 1, 100), "", -1);
        dup.setPosition("trace.jsonl:2");
        send(h, dup);
        JobCompleted done = JobCompleted.newBuilder().setTime(50).setJob("a").build();
        send(
                h,
                ControllerEvent.newBuilder()
                        .setPolicy("")
                        .setController(-1)
                        .setTimeMillis(50_000)
                        .setKind(EventKind.COMPLETION)
                        .setId("a")
                        .setCompleted(done)
                        .setSource("c")
                        .setPosition("c:1")
                        .build());
        JobCompleted ghost = JobCompleted.newBuilder().setTime(60).setJob("zz").build();
        send(
                h,
                ControllerEvent.newBuilder()
                        .setPolicy("")
                        .setController(-1)
                        .setTimeMillis(60_000)
                        .setKind(EventKind.COMPLETION)
                        .setId("zz")
                        .setCompleted(ghost)
                        .setSource("c")
                        .setPosition("c:2")
                        .build());
        send(h, TestData.nodeEvent(70, "n2", NodeEventKind.FAILED, null, "", -1)); // node 2 -> controller 2 mod 2 = 0
        send(h, TestData.nodeEvent(80, "n9", NodeEventKind.ADDED, "G2", "", -1)); // 4th node -> controller 3 mod 2 = 1
        send(h, TestData.nodeEvent(90, "nx", NodeEventKind.REMOVED, null, "", -1)); // unknown
        h.processWatermark(new Watermark(Long.MAX_VALUE));
        assertEquals(
                List.of(
                        "SUBMISSION:a->fifo#0",
                        "COMPLETION:a->fifo#0",
                        "NODE:n2/FAILED->fifo#0",
                        "NODE:n9/ADDED->fifo#1"),
                routed(h));
        List<RejectedRecord> rejected = new ArrayList<>();
        h.getSideOutput(Dispatcher.REJECTED).forEach(r -> rejected.add(r.getValue()));
        assertEquals(3, rejected.size());
        assertTrue(
                rejected.get(0).getReason().contains("duplicate id"),
                rejected.get(0).getReason());
        assertEquals("trace.jsonl:2", rejected.get(0).getPosition());
        assertTrue(rejected.get(1).getReason().contains("unknown or finished job zz"));
        assertTrue(rejected.get(2).getReason().contains("unknown node"));
        h.close();
    }

    @Test
    void aDuplicateIdIsNeverCalledActiveWhenTheFirstJobMayHaveFinished() throws Exception {
        // Replay: the first "a" (100 s of work) finished long before the second is submitted, and the dispatcher
        // cannot know: the reason says what holds, that ids are unique within a replay.
        var replay =
                harness(TestData.config(TestData.oneGpuNodes(2, 3600), "fifo").build());
        send(replay, TestData.submission(TestData.job("a", 0, 5000, 1, 100), "", -1));
        send(replay, TestData.submission(TestData.job("a", 1e6, 2e6, 1, 100), "", -1));
        replay.processWatermark(new Watermark(Long.MAX_VALUE));
        List<RejectedRecord> rejected = new ArrayList<>();
        replay.getSideOutput(Dispatcher.REJECTED).forEach(r -> rejected.add(r.getValue()));
        assertEquals(1, rejected.size());
        assertEquals(
                "job a: duplicate id (a job with this id was submitted before in this replay, whether it has finished"
                        + " or not: ids are unique within a replay)",
                rejected.get(0).getReason());
        replay.close();
        // Live: taken until its completion is read, then free again.
        var live = harness(TestData.config(TestData.oneGpuNodes(2, 3600), "fifo")
                .mode(SchedulerConfig.Mode.LIVE)
                .build());
        send(live, TestData.submission(TestData.job("a", 0, 5000, 1, 100), "", -1));
        send(live, TestData.submission(TestData.job("a", 10, 5000, 1, 100), "", -1));
        live.processWatermark(new Watermark(Long.MAX_VALUE));
        List<RejectedRecord> liveRejected = new ArrayList<>();
        live.getSideOutput(Dispatcher.REJECTED).forEach(r -> liveRejected.add(r.getValue()));
        assertEquals(1, liveRejected.size());
        assertTrue(
                liveRejected.get(0).getReason().contains("its completion has not been read"),
                liveRejected.get(0).getReason());
        live.close();
    }

    @Test
    void jobNoNodeCanRunIsRejectedOneForAFailedNodeWaitsAndOthersSkipToAFeasibleController() throws Exception {
        // node 0 (controller 0) is G1, node 1 (controller 1) is G2: a job only for G2 must go to controller 1
        var base = TestData.oneGpuNodes(2, 3600);
        var nodes =
                List.of(org.gpusched.core.model.Node.fixed("n0", "G1"), org.gpusched.core.model.Node.fixed("n1", "G2"));
        var spec = new org.gpusched.formats.ClusterSpec(
                new org.gpusched.core.model.Cluster(base.cluster().types(), nodes), base.objective());
        SchedulerConfig cfg = TestData.config(spec, "fifo").controllers(2).build();
        var h = harness(cfg);
        var g2only = TestData.job("g2", 0, 5000, 1, 100);
        g2only.setTimes(List.of(new org.gpusched.streaming.avro.ExecutionTime("G2", 2, 100.0)));
        send(h, TestData.submission(g2only, "", -1));
        send(h, TestData.submission(TestData.job("x", 1, 5000, 1, 100), "", -1));
        var nowhere = TestData.job("big", 2, 5000, 1, 100);
        nowhere.setTimes(List.of(new org.gpusched.streaming.avro.ExecutionTime("G1", 1, 100.0)));
        send(
                h,
                TestData.nodeEvent(
                        1.5, "n0", NodeEventKind.FAILED, null, "", -1)); // the only G1 node is down: big waits for it
        send(h, TestData.submission(nowhere, "", -1));
        send(h, TestData.nodeEvent(2.5, "n0", NodeEventKind.REMOVED, null, "", -1)); // no G1 node at all: rejected
        var never = TestData.job("never", 3, 5000, 1, 100);
        never.setTimes(List.of(new org.gpusched.streaming.avro.ExecutionTime("G1", 1, 100.0)));
        send(h, TestData.submission(never, "", -1));
        h.processWatermark(new Watermark(Long.MAX_VALUE));
        assertEquals(
                List.of(
                        "SUBMISSION:g2->fifo#1",
                        "SUBMISSION:x->fifo#0",
                        "NODE:n0/FAILED->fifo#0",
                        "SUBMISSION:big->fifo#0",
                        "NODE:n0/REMOVED->fifo#0"),
                routed(h));
        assertEquals(1, h.getSideOutput(Dispatcher.REJECTED).size());
        RejectedRecord rejected = h.getSideOutput(Dispatcher.REJECTED).peek().getValue();
        assertTrue(rejected.getReason().contains("job never: no controller"), rejected.getReason());
        // the job as a trace line, which the user can find and fix, not the internal record's toString
        var line = new com.fasterxml.jackson.databind.ObjectMapper().readTree(rejected.getText());
        assertEquals("never", line.get("id").asText());
        assertEquals(100.0, line.at("/times/G1/1").asDouble(), rejected.getText());
        h.close();
    }
}
