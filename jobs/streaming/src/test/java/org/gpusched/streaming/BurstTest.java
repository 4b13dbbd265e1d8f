package org.gpusched.streaming;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.gpusched.core.model.Cluster;
import org.gpusched.core.model.Node;
import org.gpusched.core.model.NodeType;
import org.gpusched.core.objective.ObjectiveParameters;
import org.gpusched.formats.ClusterSpec;
import org.gpusched.streaming.avro.DecisionAction;
import org.gpusched.streaming.avro.ExecutionTime;
import org.gpusched.streaming.avro.JobSubmitted;
import org.gpusched.streaming.avro.PlacementDecision;
import org.gpusched.streaming.avro.SchedulingMetrics;
import org.gpusched.streaming.state.ControllerEvent;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every job submitted at one instant: the queue baselines are handed the head of their queue in slices
 * (ControllerStep#startOnFreeNodes) and price a long queue from its summed terms; neither may change which
 * job starts when.
 */
class BurstTest {
    /** More jobs waiting than f_OBJ is summed job by job for, and a few slices of the queue beyond them. */
    private static final int JOBS = ProblemBuilder.EXACT_PRICING_QUEUE + 192;

    @ParameterizedTest
    @ValueSource(strings = {"fifo", "edf", "priority"})
    void aBurstStartsJobsInThePolicysQueueOrder(String policy) throws Exception {
        SchedulerConfig cfg =
                TestData.config(TestData.oneGpuNodes(3, 3600), policy).build();
        var h = new KeyedOneInputStreamOperatorTestHarness<>(
                new KeyedProcessOperator<>(new ControllerFunction(cfg)), new ControllerKey(), Types.STRING);
        h.open();
        List<JobSubmitted> jobs = new ArrayList<>();
        for (int i = 0; i < JOBS; i++) {
            // due dates and weights in orders unrelated to the ids and to each other
            double due = 1000 + (i * 7919L % JOBS) * 10.0;
            double weight = 1 + (i * 104_729L % JOBS) / 100.0;
            JobSubmitted job = TestData.job(String.format("j%05d", i), 0, due, weight, 1000);
            jobs.add(job);
            ControllerEvent e = TestData.submission(job, policy, 0);
            h.processElement(new StreamRecord<>(e, e.getTimeMillis()));
        }
        Comparator<JobSubmitted> byId = Comparator.comparing(JobSubmitted::getId);
        Comparator<JobSubmitted> queue = switch (policy) {
            case "fifo" -> byId; // one submission time: ties by id
            case "edf" ->
                Comparator.<JobSubmitted>comparingDouble(JobSubmitted::getDue).thenComparing(byId);
            default ->
                Comparator.<JobSubmitted>comparingDouble(j -> -j.getWeight()).thenComparing(byId);
        };
        List<String> inQueue =
                jobs.stream().sorted(queue).map(JobSubmitted::getId).toList();
        // three nodes, 1000 s each: the jobs at queue positions 3r..3r+2 start together at 1000 r, their decisions in
        // submission order (here: by id)
        List<String> expected = new ArrayList<>();
        for (int r = 0; 3 * r < JOBS; r++)
            expected.addAll(inQueue.subList(3 * r, Math.min(JOBS, 3 * r + 3)).stream()
                    .sorted()
                    .toList());

        h.processWatermark(new Watermark(Long.MAX_VALUE));
        List<String> started = new ArrayList<>();
        List<Double> startTimes = new ArrayList<>();
        for (Object o : h.getOutput()) {
            if (o instanceof StreamRecord<?> r
                    && r.getValue() instanceof PlacementDecision d
                    && d.getAction() == DecisionAction.START) {
                started.add(d.getJob());
                startTimes.add(d.getTime());
            }
        }
        assertEquals(expected.size(), started.size(), "every job starts");
        for (int k = 0; k < started.size(); k++)
            assertEquals(expected.get(k), started.get(k), "the " + k + "th job to start");
        for (int k = 0; k < started.size(); k++)
            assertEquals(1000.0 * (k / 3), startTimes.get(k), 1e-9, "start of the " + k + "th job");

        // f_OBJ at each event, by hand: the three jobs just started (1000 s left, 1/h each node) and the waiting ones'
        // postponement terms (rho 100, H 3600 s, slowest 1000 s). More than EXACT_PRICING_QUEUE wait at the first
        // events, so both ways of summing the queue are checked.
        List<SchedulingMetrics> metrics = new ArrayList<>();
        h.getSideOutput(ControllerFunction.SCHEDULING_METRICS).forEach(r -> metrics.add(r.getValue()));
        assertEquals(
                (JOBS + 2) / 3 + 1, metrics.size(), "one rescheduling for the burst, then one per completion time");
        List<JobSubmitted> inQueueOrder = jobs.stream().sorted(queue).toList();
        for (SchedulingMetrics m : metrics) {
            double t = m.getTime();
            int round = (int) Math.round(t / 1000);
            double f = 0;
            for (int k = 3 * round; k < JOBS; k++) {
                JobSubmitted j = inQueueOrder.get(k);
                if (k < 3 * round + 3) {
                    f += j.getWeight() * Math.max(0, t + 1000 - j.getDue()) / 3600 + 1000 / 3600.0;
                } else {
                    f += 100 * j.getWeight() * Math.max(0, t + 3600 + 1000 - j.getDue()) / 3600;
                }
            }
            assertEquals(f, m.getFObj(), Math.abs(f) * 1e-12, "f_OBJ at " + t);
        }
        h.close();
    }

    /**
     * The head of the queue runs only on the node that is taken: the slices grow (4, 8, 16 jobs) until a job that the
     * free node can run is found, 20 places down, and it starts at once.
     */
    @ParameterizedTest
    @ValueSource(strings = {"fifo", "edf", "priority"})
    void aHeadThatCannotRunOnTheFreeNodeIsPassedOverSliceBySlice(String policy) throws Exception {
        NodeType g1 = new NodeType("G1", "X", 1, new double[] {0.5, 1.0});
        NodeType g2 = new NodeType("G2", "X", 2, new double[] {0.5, 1.0, 1.8});
        ClusterSpec cluster = new ClusterSpec(
                new Cluster(List.of(g1, g2), List.of(Node.fixed("n0", "G1"), Node.fixed("n1", "G2"))),
                new ObjectiveParameters(100, 3600, 0));
        var h = new KeyedOneInputStreamOperatorTestHarness<>(
                new KeyedProcessOperator<>(
                        new ControllerFunction(TestData.config(cluster, policy).build())),
                new ControllerKey(),
                Types.STRING);
        h.open();
        for (int i = 0; i < 30; i++) {
            // one queue order for the three policies: ids, due dates and weights all rank j00 first
            JobSubmitted job = JobSubmitted.newBuilder(
                            TestData.job(String.format("j%02d", i), 0, 5000 + i, 30 - i, 1000))
                    .setTimes(
                            i == 20
                                    ? List.of(new ExecutionTime("G1", 1, 1000.0))
                                    : List.of(new ExecutionTime("G2", 1, 1000.0), new ExecutionTime("G2", 2, 600.0)))
                    .build();
            ControllerEvent e = TestData.submission(job, policy, 0);
            h.processElement(new StreamRecord<>(e, e.getTimeMillis()));
        }
        h.processWatermark(new Watermark(0));
        List<String> startedAtZero = new ArrayList<>();
        for (Object o : h.getOutput()) {
            if (o instanceof StreamRecord<?> r
                    && r.getValue() instanceof PlacementDecision d
                    && d.getAction() == DecisionAction.START
                    && d.getTime() == 0) startedAtZero.add(d.getJob() + "@" + d.getNode());
        }
        assertEquals(List.of("j00@n1", "j20@n0"), startedAtZero);
        h.close();
    }
}
