package org.gpusched.streaming;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.gpusched.streaming.avro.DecisionAction;
import org.gpusched.streaming.avro.JobCompleted;
import org.gpusched.streaming.avro.JobMetrics;
import org.gpusched.streaming.avro.JobSubmitted;
import org.gpusched.streaming.avro.NodeEventKind;
import org.gpusched.streaming.avro.PlacementDecision;
import org.gpusched.streaming.avro.Telemetry;
import org.gpusched.streaming.avro.TelemetryKind;
import org.gpusched.streaming.state.ControllerEvent;
import org.gpusched.streaming.state.ControllerState;
import org.gpusched.streaming.state.EventKind;
import org.gpusched.streaming.state.JobRecord;
import org.gpusched.streaming.state.NodeSlot;
import org.junit.jupiter.api.Test;

/** Input events applied to a controller's facts, plain Java: no harness, a recording output and timers. */
class EventApplierTest {
    private final SchedulerConfig config =
            TestData.config(TestData.oneGpuNodes(2, 3600), "fifo").build();
    private final ControllerState state = ControllerFacts.initialState(config, 0);
    private final ActiveJobs jobs = new ActiveJobs();
    private final StepRecorder recorder = new StepRecorder();
    private final List<PlacementDecision> decisions = recorder.decisions;
    private final List<JobMetrics> jobMetrics = recorder.jobMetrics;
    private final List<JobCompleted> completions = recorder.completions;
    private final List<Long> timers = recorder.timers;

    /** The facts of one step at {@code seconds}, over the same state and jobs as the steps before. */
    private ControllerFacts at(double seconds) {
        return recorder.facts(config, state, jobs, (long) (seconds * 1000));
    }

    private static ControllerEvent submission(JobSubmitted job) {
        return TestData.submission(job, "fifo", 0);
    }

    /** Job a (1000 s on G1, due 2000, weight 1) submitted at 10 s and started on n0 at 10 s. */
    private ActiveJobs.Entry runningA() {
        ControllerFacts f = at(10);
        new EventApplier(f).apply(submission(TestData.job("a", 10, 2000, 1, 1000)));
        ActiveJobs.Entry a = jobs.get("a");
        f.writable(a);
        f.place(a, DecisionAction.START, "n0", "G1", 1);
        return a;
    }

    @Test
    void aSubmissionAddsAWaitingJobOnceAndTriggersARescheduling() {
        ControllerFacts f = at(10);
        EventApplier applier = new EventApplier(f);
        applier.apply(submission(TestData.job("a", 10, 2000, 1, 1000)));
        applier.apply(submission(TestData.job("a", 10, 9999, 1, 1000)));
        assertEquals(1, jobs.size());
        JobRecord a = jobs.get("a").record;
        assertNull(a.getNode());
        assertEquals(2000.0, a.getSpec().getDue(), "the first submission of an id holds");
        assertEquals(10_000L, a.getProgressMillis());
        assertTrue(f.dirty.contains("a"));
        assertEquals(List.of("SUBMISSION"), List.copyOf(applier.triggers()));
    }

    @Test
    void aFailedNodePreemptsItsJobsWithTheReasonAndTheirProgress() {
        ActiveJobs.Entry a = runningA();
        assertEquals(List.of(1_010_000L), timers, "replay: the job's real end is a timer");
        ControllerFacts f = at(910);
        EventApplier applier = new EventApplier(f);
        applier.apply(TestData.nodeEvent(910, "n0", NodeEventKind.FAILED, null, "fifo", 0));
        assertEquals(1, decisions.size());
        PlacementDecision d = decisions.get(0);
        assertEquals(DecisionAction.PREEMPT, d.getAction());
        assertEquals("n0", d.getNode());
        assertEquals("node n0 failed", d.getReason());
        assertEquals(1, d.getSeq());
        JobRecord j = a.record;
        assertNull(j.getNode());
        assertEquals(1, j.getPreemptions());
        // 900 of 1000 s done when the node failed; back to the snapshot taken after 600 s (every 600 s by default)
        assertEquals(0.6, j.getDone(), 1e-12);
        assertEquals(0.6, j.getModelDone(), 1e-12);
        assertEquals(-1L, j.getEndMillis());
        assertEquals(-1L, j.getRunStartMillis());
        assertEquals(0, jobs.runningCount());
        NodeSlot n0 = state.getNodes().get(0);
        assertFalse(n0.getUp());
        assertNull(n0.getCurrentType());
        assertEquals(List.of("NODE"), List.copyOf(applier.triggers()));
    }

    @Test
    void aCompletionEndsTheJobWithItsDecisionMetricsAndTardiness() {
        runningA();
        ControllerFacts f = at(2100);
        EventApplier applier = new EventApplier(f);
        applier.apply(ControllerEvent.newBuilder()
                .setPolicy("fifo")
                .setController(0)
                .setTimeMillis(2_100_000)
                .setKind(EventKind.COMPLETION)
                .setId("a")
                .setSource("test")
                .setPosition("")
                .build());
        assertEquals(DecisionAction.COMPLETE, decisions.get(0).getAction());
        assertEquals(2100.0, decisions.get(0).getExpectedCompletion());
        JobMetrics m = jobMetrics.get(0);
        assertEquals(2090.0, m.getJctSeconds());
        assertEquals(100.0, m.getTardinessSeconds());
        assertEquals(100.0 / 3600, m.getTardinessCost(), 1e-12, "weight 1 per hour late");
        assertEquals(10.0, m.getFirstStart());
        assertTrue(completions.isEmpty(), "a completion read from the topic is not simulated again");
        assertTrue(jobs.isEmpty());
        assertTrue(f.removed.contains("a"));
        assertEquals(1, state.getCompletedJobs());
        assertEquals(100.0 / 3600, state.getAccruedTardinessCost(), 1e-12);
        assertEquals(List.of("COMPLETION"), List.copyOf(applier.triggers()));
    }

    @Test
    void replayCompletesTheJobsWhoseRealEndCameWithASimulatedCompletion() {
        runningA();
        ControllerFacts f = at(1010);
        new EventApplier(f).completeEnded();
        assertEquals(1, completions.size());
        assertEquals("n0", completions.get(0).getNode());
        assertEquals(0.0, jobMetrics.get(0).getTardinessCost());
    }

    @Test
    void progressTelemetryReplacesBothDoneFractions() {
        new EventApplier(at(10)).apply(submission(TestData.job("a", 10, 2000, 1, 1000)));
        ControllerFacts f = at(20);
        new EventApplier(f)
                .apply(ControllerEvent.newBuilder()
                        .setPolicy("fifo")
                        .setController(0)
                        .setTimeMillis(20_000)
                        .setKind(EventKind.TELEMETRY)
                        .setId("a")
                        .setTelemetry(Telemetry.newBuilder()
                                .setTime(20)
                                .setKind(TelemetryKind.JOB_PROGRESS)
                                .setJob("a")
                                .setProgress(0.25)
                                .setNode(null)
                                .setPowerWatts(null)
                                .build())
                        .setSource("test")
                        .setPosition("")
                        .build());
        JobRecord a = jobs.get("a").record;
        assertEquals(0.25, a.getDone());
        assertEquals(0.25, a.getModelDone());
        assertTrue(f.dirty.contains("a"));
    }
}
