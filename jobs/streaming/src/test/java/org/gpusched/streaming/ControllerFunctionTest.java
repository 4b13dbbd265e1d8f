package org.gpusched.streaming;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.apache.flink.util.OutputTag;
import org.gpusched.core.model.Cluster;
import org.gpusched.core.model.Node;
import org.gpusched.core.model.NodeType;
import org.gpusched.core.objective.ObjectiveParameters;
import org.gpusched.formats.ClusterSpec;
import org.gpusched.streaming.avro.DecisionAction;
import org.gpusched.streaming.avro.ExecutionTime;
import org.gpusched.streaming.avro.JobCompleted;
import org.gpusched.streaming.avro.JobMetrics;
import org.gpusched.streaming.avro.JobSubmitted;
import org.gpusched.streaming.avro.NodeEventKind;
import org.gpusched.streaming.avro.PlacementDecision;
import org.gpusched.streaming.avro.SchedulingMetrics;
import org.gpusched.streaming.state.ControllerEvent;
import org.gpusched.streaming.state.JobRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class ControllerFunctionTest {
    private static final String KEY_FIFO = ControllerKey.of("fifo", 0);

    private static KeyedOneInputStreamOperatorTestHarness<String, ControllerEvent, PlacementDecision> harness(
            SchedulerConfig cfg) throws Exception {
        var h = new KeyedOneInputStreamOperatorTestHarness<>(
                new KeyedProcessOperator<>(new ControllerFunction(cfg)), new ControllerKey(), Types.STRING);
        h.open();
        return h;
    }

    private static KeyedOneInputStreamOperatorTestHarness<String, ControllerEvent, PlacementDecision> restored(
            SchedulerConfig cfg, OperatorSubtaskState snapshot) throws Exception {
        var h = new KeyedOneInputStreamOperatorTestHarness<>(
                new KeyedProcessOperator<>(new ControllerFunction(cfg)), new ControllerKey(), Types.STRING);
        h.initializeState(snapshot);
        h.open();
        return h;
    }

    /** The harness's function, with the state of {@code key} current. */
    private static ControllerFunction function(
            KeyedOneInputStreamOperatorTestHarness<String, ControllerEvent, PlacementDecision> h, String key) {
        h.getOperator().setCurrentKey(key);
        return (ControllerFunction) ((KeyedProcessOperator<?, ?, ?>) h.getOperator()).getUserFunction();
    }

    /** "time job action node" per decision. */
    private static List<String> decisionLines(
            KeyedOneInputStreamOperatorTestHarness<String, ControllerEvent, PlacementDecision> h) {
        List<String> lines = new ArrayList<>();
        for (PlacementDecision x : decisions(h))
            lines.add(x.getTime() + " " + x.getJob() + " " + x.getAction() + " " + x.getNode());
        return lines;
    }

    private static List<PlacementDecision> decisions(
            KeyedOneInputStreamOperatorTestHarness<String, ControllerEvent, PlacementDecision> h) {
        List<PlacementDecision> out = new ArrayList<>();
        for (Object o : h.getOutput()) if (o instanceof StreamRecord<?> r) out.add((PlacementDecision) r.getValue());
        return out;
    }

    private static <T> List<T> sideOutput(
            KeyedOneInputStreamOperatorTestHarness<String, ControllerEvent, PlacementDecision> h, OutputTag<T> tag) {
        List<T> out = new ArrayList<>();
        h.getSideOutput(tag).forEach(r -> out.add(r.getValue()));
        return out;
    }

    private static void submit(
            KeyedOneInputStreamOperatorTestHarness<String, ControllerEvent, PlacementDecision> h, JobSubmitted job)
            throws Exception {
        submit(h, job, "fifo");
    }

    private static void submit(
            KeyedOneInputStreamOperatorTestHarness<String, ControllerEvent, PlacementDecision> h,
            JobSubmitted job,
            String policy)
            throws Exception {
        ControllerEvent e = TestData.submission(job, policy, 0);
        h.processElement(new StreamRecord<>(e, e.getTimeMillis()));
    }

    @Test
    void completionTimerFiresAtRealEndAndStateFallsToZero() throws Exception {
        SchedulerConfig cfg =
                TestData.config(TestData.oneGpuNodes(1, 3600), "fifo").build();
        var h = harness(cfg);
        JobSubmitted a = TestData.job("a", 10, 2000, 1, 1000);
        a.setActualFactor(1.5); // really takes 1500 s
        submit(h, a);
        h.processWatermark(new Watermark(9_999));
        assertTrue(decisions(h).isEmpty(), "nothing may happen before the watermark passes the submission");
        h.processWatermark(new Watermark(10_000));
        List<PlacementDecision> d = decisions(h);
        assertEquals(1, d.size());
        assertEquals(DecisionAction.START, d.get(0).getAction());
        assertEquals("n0", d.get(0).getNode());
        assertEquals(1010.0, d.get(0).getExpectedCompletion(), 1e-9, "expected completion uses the prediction");
        // real end: 10 + 1000 x 1.5 = 1510 s; one ms earlier nothing completes
        h.processWatermark(new Watermark(1_509_999));
        assertEquals(1, decisions(h).size());
        h.processWatermark(new Watermark(1_510_000));
        d = decisions(h);
        assertEquals(2, d.size());
        assertEquals(DecisionAction.COMPLETE, d.get(1).getAction());
        assertEquals(1510.0, d.get(1).getTime(), 1e-9);
        List<JobCompleted> completed = sideOutput(h, ControllerFunction.COMPLETIONS);
        assertEquals(1, completed.size());
        assertEquals(1510.0, completed.get(0).getTime(), 1e-9);
        assertEquals("n0", completed.get(0).getNode());
        List<JobMetrics> jobs = sideOutput(h, ControllerFunction.JOB_METRICS);
        assertEquals(1500.0, jobs.get(0).getJctSeconds(), 1e-9);
        assertEquals(0.0, jobs.get(0).getTardinessCost(), 1e-12, "due 2000 > 1510: on time");
        // the node cost 1/h with its one GPU busy for 1500 s
        SchedulingMetrics last = null;
        for (var r : h.getSideOutput(ControllerFunction.SCHEDULING_METRICS)) last = r.getValue();
        assertEquals(1500.0 / 3600, last.getAccruedExecutionCost(), 1e-9);
        assertEquals("COMPLETION", last.getTrigger());

        assertEquals(
                0, h.numEventTimeTimers(), "no timer left once the controller is idle (the periodic one is deleted)");
        ControllerFunction f = function(h, KEY_FIFO);
        assertEquals(0, f.activeJobs(), "finished jobs leave state");
        assertEquals(0, f.pendingTimestamps());
        assertEquals(0, f.keysWithJobsInMemory(), "an idle key's working memory of jobs is dropped too");
        assertEquals(1, h.numKeyedStateEntries(), "only the controller record (nodes, costs, random state) remains");
        h.close();
    }

    @Test
    void aJobPostponedByChoiceIsStartedByLaterPeriodicTicksEvenWithNothingRunning() throws Exception {
        // Due in 10 h on an idle cluster: milp-relaxed postpones the job (postponing is free in f_OBJ while
        // now + H + M < due, running costs energy; the work-conserving milp would start it at once). Only the periodic
        // ticks, as time passes, can make it start: nothing else arrives.
        SchedulerConfig cfg =
                TestData.config(TestData.oneGpuNodes(1, 3600), "milp-relaxed").build();
        var h = harness(cfg);
        JobSubmitted a = TestData.job("a", 0, 36_000, 1, 1000);
        ControllerEvent e = TestData.submission(a, "milp-relaxed", 0);
        h.processElement(new StreamRecord<>(e, e.getTimeMillis()));
        h.processWatermark(new Watermark(0));
        assertTrue(decisions(h).isEmpty(), "milp-relaxed postpones a job whose due date is far: " + decisions(h));
        assertEquals(1, h.numEventTimeTimers(), "a waiting job keeps a periodic tick even with nothing running");
        h.processWatermark(new Watermark(Long.MAX_VALUE));
        List<PlacementDecision> d = decisions(h);
        assertEquals(
                List.of(DecisionAction.START, DecisionAction.COMPLETE),
                d.stream().map(PlacementDecision::getAction).toList());
        assertTrue(
                d.get(0).getTime() > 0 && d.get(1).getTime() <= 36_000,
                "started by a tick, finished by its due date: " + d);
        assertEquals(0, h.numEventTimeTimers());
        h.close();
    }

    @Test
    void tardinessCostAndQueueingOnOneNode() throws Exception {
        SchedulerConfig cfg =
                TestData.config(TestData.oneGpuNodes(1, 3600), "fifo").build();
        var h = harness(cfg);
        submit(h, TestData.job("a", 0, 10_000, 1, 3600));
        submit(h, TestData.job("b", 0, 3600, 2, 1800)); // waits for a: ends at 5400, 1800 s late at 2/h -> cost 1
        h.processWatermark(new Watermark(Long.MAX_VALUE));
        List<JobMetrics> jobs = sideOutput(h, ControllerFunction.JOB_METRICS);
        assertEquals(2, jobs.size());
        JobMetrics b = jobs.get(1);
        assertEquals("b", b.getJob());
        assertEquals(5400.0, b.getTime(), 1e-9);
        assertEquals(1.0, b.getTardinessCost(), 1e-9);
        h.close();
    }

    @Test
    void sameTimestampEventsGiveTheSameDecisionsInAnyArrivalOrder() throws Exception {
        List<JobSubmitted> jobs = List.of(
                TestData.job("a", 0, 5000, 1, 3000),
                TestData.job("b", 0, 4000, 3, 1000),
                TestData.job("c", 0, 2000, 2, 500),
                TestData.job("d", 100, 3000, 1, 800));
        List<String> first = null;
        for (List<Integer> order : List.of(List.of(0, 1, 2, 3), List.of(3, 2, 1, 0), List.of(2, 0, 3, 1))) {
            SchedulerConfig cfg =
                    TestData.config(TestData.oneGpuNodes(2, 600), "andreas-rg").build();
            var h = new KeyedOneInputStreamOperatorTestHarness<>(
                    new KeyedProcessOperator<>(new ControllerFunction(cfg)), new ControllerKey(), Types.STRING);
            h.open();
            for (int i : order) {
                ControllerEvent e = TestData.submission(jobs.get(i), "andreas-rg", 0);
                h.processElement(new StreamRecord<>(e, e.getTimeMillis()));
            }
            h.processWatermark(new Watermark(Long.MAX_VALUE));
            List<String> d = new ArrayList<>();
            for (Object o : h.getOutput())
                if (o instanceof StreamRecord<?> r) d.add(r.getValue().toString());
            assertEquals(4, d.stream().filter(s -> s.contains("\"COMPLETE\"")).count(), "every job completes: " + d);
            if (first == null) first = d;
            else assertEquals(first, d, "arrival order " + order);
            h.close();
        }
    }

    @Test
    void failedNodePreemptsItsJobKeepingProgressWhenMovesAreFree() throws Exception {
        SchedulerConfig cfg = TestData.config(TestData.oneGpuNodes(2, 3600), "fifo")
                .moveOverheadSeconds(0)
                .snapshotIntervalSeconds(0)
                .build();
        var h = harness(cfg);
        submit(h, TestData.job("a", 0, 100_000, 1, 1000));
        h.processWatermark(new Watermark(0));
        assertEquals("n0", decisions(h).get(0).getNode());
        ControllerEvent fail = TestData.nodeEvent(400, "n0", NodeEventKind.FAILED, null, "fifo", 0);
        h.processElement(new StreamRecord<>(fail, fail.getTimeMillis()));
        h.processWatermark(new Watermark(Long.MAX_VALUE));
        List<PlacementDecision> d = decisions(h);
        assertEquals(DecisionAction.PREEMPT, d.get(1).getAction());
        assertEquals(400.0, d.get(1).getTime(), 1e-9);
        assertTrue(d.get(1).getReason().contains("n0"));
        assertEquals(DecisionAction.START, d.get(2).getAction());
        assertEquals("n1", d.get(2).getNode());
        assertEquals(DecisionAction.COMPLETE, d.get(3).getAction());
        // 400 s done before the failure, 600 s left on n1
        assertEquals(1000.0, d.get(3).getTime(), 1e-9);
        h.close();
    }

    @Test
    void aPreemptedJobLosesItsProgressSinceItsLastSnapshotAndPaysItsRestart() throws Exception {
        SchedulerConfig cfg = TestData.config(TestData.oneGpuNodes(2, 3600), "fifo")
                .snapshotIntervalSeconds(300)
                .moveOverheadSeconds(50)
                .build();
        var h = harness(cfg);
        submit(h, TestData.job("a", 0, 100_000, 1, 1000));
        h.processWatermark(new Watermark(0));
        ControllerEvent fail = TestData.nodeEvent(700, "n0", NodeEventKind.FAILED, null, "fifo", 0);
        h.processElement(new StreamRecord<>(fail, fail.getTimeMillis()));
        h.processWatermark(new Watermark(Long.MAX_VALUE));
        // 700 s of progress on n0, snapshots at 300 and 600: 100 s lost, 400 s of work left; on n1 it restores its
        // snapshot for 50 s from 700, then runs 400 s (free moves: done at 1000)
        assertEquals(
                List.of("0.0 a START n0", "700.0 a PREEMPT n0", "700.0 a START n1", "1150.0 a COMPLETE n1"),
                decisionLines(h));
        assertEquals(1150.0, decisions(h).get(2).getExpectedCompletion(), 1e-9);
        // G1 x1 costs 1.0 per hour: 700 s on n0 and 450 s on n1, restore included
        SchedulingMetrics last = null;
        for (var r : h.getSideOutput(ControllerFunction.SCHEDULING_METRICS)) last = r.getValue();
        assertEquals(1150 / 3600.0, last.getAccruedExecutionCost(), 1e-9);
        h.close();
    }

    @Test
    void aJobStoppedWhileRestoringItsSnapshotLosesNothingMore() throws Exception {
        SchedulerConfig cfg = TestData.config(TestData.oneGpuNodes(3, 3600), "fifo")
                .snapshotIntervalSeconds(300)
                .moveOverheadSeconds(100)
                .build();
        var h = harness(cfg);
        submit(h, TestData.job("a", 0, 100_000, 1, 1000));
        h.processWatermark(new Watermark(0));
        for (var f : List.of(
                TestData.nodeEvent(400, "n0", NodeEventKind.FAILED, null, "fifo", 0),
                TestData.nodeEvent(450, "n1", NodeEventKind.FAILED, null, "fifo", 0)))
            h.processElement(new StreamRecord<>(f, f.getTimeMillis()));
        h.processWatermark(new Watermark(Long.MAX_VALUE));
        // n0 at 400: 100 s lost, 700 s left; n1 fails at 450 while the job restores (until 500): nothing more lost;
        // n2 from 450: restore until 550, then 700 s
        List<String> d = decisionLines(h);
        assertEquals("1250.0 a COMPLETE n2", d.get(d.size() - 1), d.toString());
        h.close();
    }

    @Test
    void periodicReschedulingEveryHWhileJobsRun() throws Exception {
        assertEquals(
                List.of("0.0:SUBMISSION", "600.0:PERIOD", "1200.0:PERIOD", "1800.0:PERIOD", "2000.0:COMPLETION"),
                triggersOfOneJob("andreas-rg"));
    }

    @Test
    void aPeriodWithNothingWaitingAndNothingLateCallsNoOptimizerUnderStableStability() throws Exception {
        // a alone, on time: the periods are kept without a call
        assertEquals(
                List.of(
                        "0.0:SUBMISSION:called",
                        "600.0:PERIOD:kept",
                        "1200.0:PERIOD:kept",
                        "1800.0:PERIOD:kept",
                        "2000.0:COMPLETION:kept"),
                callsOfOneJob(100_000, SchedulerConfig.Stability.STABLE));
        List<String> everyPeriodCalled = List.of(
                "0.0:SUBMISSION:called",
                "600.0:PERIOD:called",
                "1200.0:PERIOD:called",
                "1800.0:PERIOD:called",
                "2000.0:COMPLETION:kept");
        // due before it can end: every period asks the optimizer again
        assertEquals(everyPeriodCalled, callsOfOneJob(1_500, SchedulerConfig.Stability.STABLE));
        // the papers' plans: every period is a call
        assertEquals(everyPeriodCalled, callsOfOneJob(100_000, SchedulerConfig.Stability.PAPER));
    }

    @Test
    void eachCallSaysWhetherItsProblemWasUnderDeadlinePressure() throws Exception {
        // on time even started one horizon (600 s) from now: no pressure, the periods make no call
        assertEquals(
                List.of(
                        "0.0:SUBMISSION:free",
                        "600.0:PERIOD:-",
                        "1200.0:PERIOD:-",
                        "1800.0:PERIOD:-",
                        "2000.0:COMPLETION:-"),
                pressureOfOneJob(100_000, SchedulerConfig.Stability.STABLE));
        // due at 2,500 s: on time if started now, late if started one horizon from now; once it runs it is on time
        // and nothing waits, so the periods make no call
        assertEquals(
                List.of(
                        "0.0:SUBMISSION:pressed",
                        "600.0:PERIOD:-",
                        "1200.0:PERIOD:-",
                        "1800.0:PERIOD:-",
                        "2000.0:COMPLETION:-"),
                pressureOfOneJob(2_500, SchedulerConfig.Stability.STABLE));
        // due before it can end: every call is pressed
        assertEquals(
                List.of(
                        "0.0:SUBMISSION:pressed",
                        "600.0:PERIOD:pressed",
                        "1200.0:PERIOD:pressed",
                        "1800.0:PERIOD:pressed",
                        "2000.0:COMPLETION:-"),
                pressureOfOneJob(1_500, SchedulerConfig.Stability.STABLE));
        // moves free (the papers' setting): never pressed, whatever the due date
        assertEquals(
                List.of(
                        "0.0:SUBMISSION:free",
                        "600.0:PERIOD:free",
                        "1200.0:PERIOD:free",
                        "1800.0:PERIOD:free",
                        "2000.0:COMPLETION:-"),
                pressureOfOneJob(1_500, SchedulerConfig.Stability.PAPER));
    }

    /** "time:trigger:pressed|free|-" per rescheduling of the job of {@link #metricsOfOneJob} (-: no call). */
    private List<String> pressureOfOneJob(double due, SchedulerConfig.Stability stability) throws Exception {
        List<String> calls = new ArrayList<>();
        for (SchedulingMetrics m : metricsOfOneJob(due, stability)) {
            String call = m.getOptimizerNanos() == 0 ? "-" : m.getDeadlinePressure() ? "pressed" : "free";
            assertTrue(m.getOptimizerNanos() > 0 || !m.getDeadlinePressure(), "no call, no pressure: " + m);
            calls.add(m.getTime() + ":" + m.getTrigger() + ":" + call);
        }
        return calls;
    }

    /** "time:trigger:called|kept" per rescheduling of one job of 2,000 s on one 1-GPU node, by andreas-rg. */
    private List<String> callsOfOneJob(double due, SchedulerConfig.Stability stability) throws Exception {
        List<String> calls = new ArrayList<>();
        for (SchedulingMetrics m : metricsOfOneJob(due, stability))
            calls.add(m.getTime() + ":" + m.getTrigger() + ":" + (m.getOptimizerNanos() > 0 ? "called" : "kept"));
        return calls;
    }

    /** The scheduling metrics of one job of 2,000 s due at {@code due} on one 1-GPU node, by andreas-rg. */
    private List<SchedulingMetrics> metricsOfOneJob(double due, SchedulerConfig.Stability stability) throws Exception {
        SchedulerConfig cfg = TestData.config(TestData.oneGpuNodes(1, 600), "andreas-rg")
                .stability(stability)
                .build();
        var h = harness(cfg);
        submit(h, TestData.job("a", 0, due, 1, 2000), "andreas-rg");
        h.processWatermark(new Watermark(Long.MAX_VALUE));
        List<SchedulingMetrics> metrics = sideOutput(h, ControllerFunction.SCHEDULING_METRICS);
        h.close();
        return metrics;
    }

    @Test
    void noPeriodicReschedulingForAPolicyATickCannotChange() throws Exception {
        assertEquals(List.of("0.0:SUBMISSION", "2000.0:COMPLETION"), triggersOfOneJob("fifo"));
    }

    private List<String> triggersOfOneJob(String policy) throws Exception {
        SchedulerConfig cfg =
                TestData.config(TestData.oneGpuNodes(1, 600), policy).build();
        var h = harness(cfg);
        submit(h, TestData.job("a", 0, 100_000, 1, 2000), policy);
        h.processWatermark(new Watermark(Long.MAX_VALUE));
        List<String> triggers = new ArrayList<>();
        h.getSideOutput(ControllerFunction.SCHEDULING_METRICS)
                .forEach(r ->
                        triggers.add(r.getValue().getTime() + ":" + r.getValue().getTrigger()));
        assertEquals(0, h.numEventTimeTimers(), "no timer left behind");
        h.close();
        return triggers;
    }

    @ParameterizedTest
    @EnumSource(SchedulerConfig.OptimizerScope.class)
    void restoreFromSnapshotContinuesWithTheSameDecisions(SchedulerConfig.OptimizerScope scope) throws Exception {
        SchedulerConfig cfg = TestData.config(TestData.oneGpuNodes(2, 600), "andreas-rg")
                .optimizerScope(scope)
                .build();
        List<ControllerEvent> events = new ArrayList<>();
        for (int i = 0; i < 12; i++)
            events.add(TestData.submission(
                    TestData.job("j" + i, i * 50, 600 + i * 100, 1 + i % 3, 300 + 97 * i), "andreas-rg", 0));

        var straight = harness(cfg);
        for (ControllerEvent e : events) straight.processElement(new StreamRecord<>(e, e.getTimeMillis()));
        straight.processWatermark(new Watermark(Long.MAX_VALUE));
        List<String> expected = new ArrayList<>();
        for (Object o : straight.getOutput())
            if (o instanceof StreamRecord<?> r) expected.add(r.getValue().toString());
        straight.close();

        var before = harness(cfg);
        for (ControllerEvent e : events) before.processElement(new StreamRecord<>(e, e.getTimeMillis()));
        before.processWatermark(new Watermark(400_000)); // mid-run: some jobs done, some running, random state advanced
        List<String> got = new ArrayList<>();
        for (Object o : before.getOutput())
            if (o instanceof StreamRecord<?> r) got.add(r.getValue().toString());
        var snapshot = before.snapshot(1, 1);
        // The snapshotted instance goes on too: its working memory of jobs must stay equal to state after a snapshot.
        before.processWatermark(new Watermark(Long.MAX_VALUE));
        List<String> continued = new ArrayList<>();
        for (Object o : before.getOutput())
            if (o instanceof StreamRecord<?> r) continued.add(r.getValue().toString());
        assertEquals(expected, continued, "going on after a snapshot must not change any decision");
        before.close();

        var after = restored(cfg, snapshot);
        after.processWatermark(new Watermark(Long.MAX_VALUE));
        for (Object o : after.getOutput())
            if (o instanceof StreamRecord<?> r) got.add(r.getValue().toString());
        after.close();
        assertTrue(expected.size() > 12, "a non-trivial run: " + expected.size());
        assertEquals(expected, got, "a restore from a snapshot must not change any decision");
    }

    @Test
    void aRestoredJobRecordWithoutItsProgressTimeHoldsItsDoneAtTheControllersClock() throws Exception {
        SchedulerConfig cfg = TestData.config(TestData.oneGpuNodes(2, 3600), "fifo")
                .moveOverheadSeconds(0)
                .snapshotIntervalSeconds(0)
                .build();
        var before = harness(cfg);
        submit(before, TestData.job("a", 0, 100_000, 1, 1000));
        submit(before, TestData.job("b", 500, 100_000, 1, 100));
        before.processWatermark(new Watermark(500_000));
        assertEquals(
                List.of("a", "b"),
                decisions(before).stream().map(PlacementDecision::getJob).toList());
        // Records written before progressMillis existed (-1) held done as of the controller's clock, here 500 s.
        var backend = before.getOperator().getKeyedStateBackend();
        backend.setCurrentKey(KEY_FIFO);
        var jobs = backend.getPartitionedState(
                VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, ControllerFunction.JOBS);
        JobRecord a = JobRecord.newBuilder(jobs.get("a"))
                .setProgressMillis(-1L)
                .setDone(0.5)
                .setModelDone(0.5)
                .build();
        jobs.put("a", a);
        var snapshot = before.snapshot(1, 1);
        before.close();

        var after = restored(cfg, snapshot);
        ControllerEvent fail = TestData.nodeEvent(700, "n0", NodeEventKind.FAILED, null, "fifo", 0);
        after.processElement(new StreamRecord<>(fail, fail.getTimeMillis()));
        after.processWatermark(new Watermark(Long.MAX_VALUE));
        List<String> d = decisionLines(after);
        // b ended at 600; a, half done at 500, is 0.7 done when n0 fails at 700 and needs 300 s more on n1
        assertEquals(
                List.of("600.0 b COMPLETE n1", "700.0 a PREEMPT n0", "700.0 a START n1", "1000.0 a COMPLETE n1"), d);
        assertEquals(
                0, function(after, KEY_FIFO).activeJobs(), "the rewritten record left state when its job finished");
        after.close();
    }

    @Test
    void aQueueBaselineKeepsItsPlacementsWithoutACallWhenNoJobCanStartAndEveryEventIsPricedAsTheObjectiveDoes()
            throws Exception {
        SchedulerConfig cfg =
                TestData.config(TestData.oneGpuNodes(2, 3600), "fifo").build();
        var h = harness(cfg);
        submit(h, TestData.job("a", 0, 1000, 1, 3600));
        submit(h, TestData.job("b", 100, 200, 2, 1800));
        submit(h, TestData.job("c", 150, 400, 3, 900)); // both nodes busy: c waits, nothing can start
        h.processWatermark(new Watermark(Long.MAX_VALUE));
        List<String> d = decisionLines(h);
        assertEquals(
                List.of(
                        "0.0 a START n0",
                        "100.0 b START n1",
                        "1900.0 b COMPLETE n1",
                        "1900.0 c START n1",
                        "2800.0 c COMPLETE n1",
                        "3600.0 a COMPLETE n0"),
                d);
        List<SchedulingMetrics> m = sideOutput(h, ControllerFunction.SCHEDULING_METRICS);
        List<Double> times = new ArrayList<>();
        for (SchedulingMetrics x : m) times.add(x.getTime());
        assertEquals(List.of(0.0, 100.0, 150.0, 1900.0, 2800.0, 3600.0), times);
        for (int i : new int[] {0, 1, 3})
            assertTrue(
                    m.get(i).getOptimizerNanos() > 0,
                    "a job could start at " + times.get(i) + ": the policy is called");
        for (int i : new int[] {2, 4, 5})
            assertEquals(0, m.get(i).getOptimizerNanos(), "nothing could start at " + times.get(i));
        // at 150: a (3450 s left, ends 2600 s late at 1/h) and b (1750 s left, 1700 s late at 2/h) run at 1/h each;
        // c waits: rho 100 x 3/h x (150 + H 3600 + 900 - due 400) s
        assertEquals(
                (3450 + 2600 + 1750 + 2 * 1700 + 100 * 3 * 4250) / 3600.0,
                m.get(2).getFObj(),
                1e-9);
        assertEquals((800 + 2600) / 3600.0, m.get(4).getFObj(), 1e-9, "at 2800 only a runs, 800 s left");
        // Where a job starts, the policy sees the queue alone (FreeNodePolicy) and the controller prices every job:
        // at 100, a (3500 s left, 2600 s late) and b, started (1800 s, 1700 s late at 2/h); at 1900, a (1700 s left)
        // and c, started (900 s, 2400 s late at 3/h)
        assertEquals((3500 + 2600 + 1800 + 2 * 1700) / 3600.0, m.get(1).getFObj(), 1e-9);
        assertEquals((1700 + 2600 + 900 + 3 * 2400) / 3600.0, m.get(3).getFObj(), 1e-9);
        h.close();
    }

    /** A queue baseline on rightsizable nodes: the types of the nodes it starts jobs on are priced too (mu x idle GPUs). */
    @Test
    void aQueueBaselineOnRightsizableNodesPricesTheTypesItStartsNodesAs() throws Exception {
        var g1 = new NodeType("G1", "X", 1, new double[] {0.5, 1.0});
        var g2 = new NodeType("G2", "X", 2, new double[] {0.5, 1.0, 1.8});
        var cluster = new ClusterSpec(
                new Cluster(List.of(g1, g2), List.of(Node.rightsizable("n0"), Node.rightsizable("n1"))),
                new ObjectiveParameters(100, 3600, 1));
        var h = harness(TestData.config(cluster, "fifo").build());
        submit(h, oneGpuOfG2("a", 0, 3600));
        submit(h, oneGpuOfG2("b", 100, 1800));
        h.processWatermark(new Watermark(150_000));
        List<String> starts = new ArrayList<>();
        for (PlacementDecision d : decisions(h))
            if (d.getAction() == DecisionAction.START)
                starts.add(d.getJob() + " " + d.getNode() + " " + d.getType() + " " + d.getGpus());
        assertEquals(List.of("a n0 G2 1", "b n1 G2 1"), starts);
        List<SchedulingMetrics> m = sideOutput(h, ControllerFunction.SCHEDULING_METRICS);
        // at 100: a (3500 s left) and b (1800 s) at 1/h each, on two G2 nodes with one of their two GPUs idle (mu = 1)
        assertEquals(100.0, m.get(1).getTime());
        assertEquals((3500 + 1800) / 3600.0 + 2, m.get(1).getFObj(), 1e-9);
        h.close();
    }

    /** A job that runs on one GPU of a G2 only, due long after it ends, 1/h late. */
    private static JobSubmitted oneGpuOfG2(String id, double submit, double seconds) {
        return JobSubmitted.newBuilder()
                .setId(id)
                .setSubmit(submit)
                .setDue(100_000)
                .setWeight(1)
                .setTimes(List.of(new ExecutionTime("G2", 1, seconds)))
                .build();
    }

    @Test
    void sameSeedGivesTheSameObjectives() throws Exception {
        List<List<String>> runs = new ArrayList<>();
        for (int run = 0; run < 2; run++) {
            SchedulerConfig cfg = TestData.config(TestData.oneGpuNodes(2, 600), "andreas-rg")
                    .seed(3)
                    .build();
            var h = harness(cfg);
            for (int i = 0; i < 12; i++) {
                ControllerEvent e = TestData.submission(
                        TestData.job("j" + i, i * 50, 600 + i * 100, 1 + i % 3, 300 + 97 * i), "andreas-rg", 0);
                h.processElement(new StreamRecord<>(e, e.getTimeMillis()));
            }
            h.processWatermark(new Watermark(Long.MAX_VALUE));
            List<String> d = new ArrayList<>();
            h.getSideOutput(ControllerFunction.SCHEDULING_METRICS)
                    .forEach(r ->
                            d.add(r.getValue().getTime() + ":" + r.getValue().getFObj()));
            runs.add(d);
            h.close();
        }
        assertEquals(runs.get(0), runs.get(1));
        assertNotEquals(List.of(), runs.get(0));
    }

    @Test
    void liveModeTakesCompletionsFromTheTopicAndTelemetryCorrectsProgress() throws Exception {
        double[] fObjAt200 = new double[2];
        for (int withTelemetry = 0; withTelemetry < 2; withTelemetry++) {
            SchedulerConfig cfg = TestData.config(TestData.oneGpuNodes(1, 3600), "fifo")
                    .mode(SchedulerConfig.Mode.LIVE)
                    .build();
            var h = harness(cfg);
            submit(h, TestData.job("a", 0, 100_000, 1, 1000));
            if (withTelemetry == 1) {
                var t = org.gpusched.streaming.avro.Telemetry.newBuilder()
                        .setTime(100)
                        .setKind(org.gpusched.streaming.avro.TelemetryKind.JOB_PROGRESS)
                        .setJob("a")
                        .setProgress(0.5)
                        .build();
                h.processElement(new StreamRecord<>(
                        ControllerEvent.newBuilder()
                                .setPolicy("fifo")
                                .setController(0)
                                .setTimeMillis(100_000)
                                .setKind(org.gpusched.streaming.state.EventKind.TELEMETRY)
                                .setId("a")
                                .setTelemetry(t)
                                .setSource("t")
                                .setPosition("")
                                .build(),
                        100_000L));
            }
            submit(h, TestData.job("b", 200, 100_000, 1, 500));
            h.processWatermark(new Watermark(5_000_000));
            assertEquals(1, decisions(h).size(), "live mode: no simulated completion, a keeps running");
            for (var r : h.getSideOutput(ControllerFunction.SCHEDULING_METRICS))
                if (r.getValue().getTime() == 200.0)
                    fObjAt200[withTelemetry] = r.getValue().getFObj();
            var done = org.gpusched.streaming.avro.JobCompleted.newBuilder()
                    .setTime(5000)
                    .setJob("a")
                    .build();
            h.processElement(new StreamRecord<>(
                    ControllerEvent.newBuilder()
                            .setPolicy("fifo")
                            .setController(0)
                            .setTimeMillis(5_000_000)
                            .setKind(org.gpusched.streaming.state.EventKind.COMPLETION)
                            .setId("a")
                            .setCompleted(done)
                            .setSource("c")
                            .setPosition("")
                            .build(),
                    5_000_000L));
            h.processWatermark(new Watermark(5_000_000));
            List<PlacementDecision> d = decisions(h);
            assertEquals(DecisionAction.COMPLETE, d.get(1).getAction());
            assertEquals(5000.0, d.get(1).getTime(), 1e-9);
            assertEquals("b", d.get(2).getJob());
            assertEquals(DecisionAction.START, d.get(2).getAction());
            assertTrue(
                    h.getSideOutput(ControllerFunction.COMPLETIONS) == null
                            || h.getSideOutput(ControllerFunction.COMPLETIONS).isEmpty(),
                    "live completions are not re-emitted");
            h.close();
        }
        // at 200 s a has 800 s left by the prediction, but 400 s after the telemetry said it was half done at 100 s
        assertEquals(800.0 / 3600, fObjAt200[0], 1e-9);
        assertEquals(400.0 / 3600, fObjAt200[1], 1e-9);
    }

    @Test
    void submissionAtTheCancelledPeriodBoundaryIsStillHandled() throws Exception {
        // a ends at 500 and the key goes idle, cancelling its periodic timer at 600 -- the very timestamp of b's
        // submission, whose buffered event must still be handled (regression: b was never started)
        SchedulerConfig cfg =
                TestData.config(TestData.oneGpuNodes(1, 600), "fifo").build();
        var h = harness(cfg);
        submit(h, TestData.job("a", 0, 10_000, 1, 500));
        submit(h, TestData.job("b", 600, 10_000, 1, 100));
        h.processWatermark(new Watermark(Long.MAX_VALUE));
        List<String> d = new ArrayList<>();
        for (PlacementDecision x : decisions(h)) d.add(x.getTime() + ":" + x.getJob() + ":" + x.getAction());
        assertEquals(List.of("0.0:a:START", "500.0:a:COMPLETE", "600.0:b:START", "700.0:b:COMPLETE"), d);
        h.close();
    }
}
