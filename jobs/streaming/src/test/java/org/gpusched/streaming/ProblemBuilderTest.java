package org.gpusched.streaming;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.gpusched.core.model.SchedulingProblem;
import org.gpusched.core.policy.Policies;
import org.gpusched.core.policy.SchedulingPolicy;
import org.gpusched.streaming.avro.DecisionAction;
import org.gpusched.streaming.avro.ExecutionTime;
import org.gpusched.streaming.avro.JobSubmitted;
import org.gpusched.streaming.state.JobRecord;
import org.junit.jupiter.api.Test;

/** What an optimizer is asked, built from a controller's facts without Flink. */
class ProblemBuilderTest {
    private final SchedulerConfig config =
            TestData.config(TestData.oneGpuNodes(2, 3600), "greedy").build();
    private final SchedulingPolicy greedy = Policies.create("greedy", config.policyConfig());
    private final ActiveJobs jobs = new ActiveJobs();

    private final StepRecorder recorder = new StepRecorder();

    private ControllerFacts facts(long nowMillis) {
        return recorder.facts(config, ControllerFacts.initialState(config, 0), jobs, nowMillis);
    }

    private static JobRecord waiting(JobSubmitted spec) {
        return EventApplier.waiting(spec, 0);
    }

    @Test
    void aLongQueueIsCutToTheMostUrgentJobsInSubmissionOrderAndTheRestIsPricedApart() {
        // 300 waiting jobs, 1000 s each, all late in the worst case: the urgency is the due date, latest submitted
        // first
        int count = Topology.OPTIMIZER_WINDOW_MIN + 44;
        for (int i = 0; i < count; i++)
            jobs.add(waiting(TestData.job(String.format("j%03d", i), i, 4000 - 10 * i, 1, 1000)));
        ControllerFacts f = facts(count * 1000L);
        ProblemBuilder builder = new ProblemBuilder(f);
        Topology topology = f.topology();
        assertNotNull(topology);
        builder.rankWaiting(topology, greedy);
        List<ActiveJobs.Entry> candidates = builder.ask(topology, false).candidates();
        assertEquals(Topology.OPTIMIZER_WINDOW_MIN, candidates.size());
        List<String> ids = new ArrayList<>();
        for (ActiveJobs.Entry e : candidates) ids.add(e.record.getSpec().getId());
        List<String> expected = new ArrayList<>();
        for (int i = 44; i < count; i++) expected.add(String.format("j%03d", i));
        assertEquals(expected, ids, "the 256 earliest due dates, in submission order");
        assertTrue(builder.postponedBeyond(topology, candidates) > 0, "the 44 left out still cost their postponement");
        assertTrue(builder.exactPricing());

        SchedulingProblem problem = builder.problem(topology, candidates);
        assertEquals(candidates.size(), problem.jobCount());
    }

    @Test
    void aJobNoUpNodeCanRunIsNotAsked() {
        jobs.add(waiting(TestData.job("g1", 0, 5000, 1, 1000)));
        JobSubmitted onlyG2 = TestData.job("g2", 0, 5000, 1, 1000);
        onlyG2.setTimes(List.of(new ExecutionTime("G2", 2, 600.0)));
        jobs.add(waiting(onlyG2));
        ControllerFacts f = facts(0);
        ProblemBuilder builder = new ProblemBuilder(f);
        Topology topology = f.topology();
        builder.rankWaiting(topology, greedy);
        List<ActiveJobs.Entry> candidates = builder.ask(topology, false).candidates();
        assertEquals(1, candidates.size());
        assertEquals("g1", candidates.get(0).record.getSpec().getId());
        assertEquals(0.0, builder.postponedBeyond(topology, candidates), "no runnable job is left out");
        assertFalse(jobs.get("g2").priced(topology.cluster).runnable);
    }

    /** The facts at 250 s of a controller that started job a (1,000 s on G1, due at 5,000 s) on n1 at 0. */
    private ControllerFacts aStartedOnN1AtZeroSeenAt250Seconds() {
        jobs.add(waiting(TestData.job("a", 0, 5000, 1, 1000)));
        ControllerFacts start = facts(0);
        ActiveJobs.Entry a = jobs.get("a");
        start.writable(a);
        start.place(a, DecisionAction.START, "n1", "G1", 1);
        return recorder.facts(config, start.state, jobs, 250_000);
    }

    @Test
    void aRunningJobIsAskedWithItsPlacementAndItsProgressSoFar() {
        ControllerFacts later = aStartedOnN1AtZeroSeenAt250Seconds();
        Topology topology = later.topology();
        SchedulingProblem problem = new ProblemBuilder(later).problem(topology, List.of(jobs.get("a")));
        assertEquals(0.25, problem.job(0).doneFraction(), 1e-12);
        assertEquals(topology.cluster.nodeIndex("n1"), problem.job(0).current().node());
    }

    /**
     * The walks over every running job read figures copied off the records ({@link ActiveJobs.Entry#walked}); they
     * must follow a move and a corrected progress, not keep what the first walk read.
     */
    @Test
    void theWalksOverTheRunningJobsReadEachRecordAsItIsAfterItChanges() {
        ControllerFacts later = aStartedOnN1AtZeroSeenAt250Seconds();
        ActiveJobs.Entry a = jobs.get("a");
        Topology topology = later.topology();
        int n1 = topology.cluster.nodeIndex("n1"), n0 = topology.cluster.nodeIndex("n0");
        ProblemBuilder problems = new ProblemBuilder(later);
        assertEquals(1, problems.ask(topology, true).byNode().fewest()[n1]);
        assertFalse(problems.someRunningJobLate(topology));

        later.writable(a);
        later.place(a, DecisionAction.MIGRATE, "n0", "G1", 1);
        int[] fewest = problems.ask(later.topology(), true).byNode().fewest();
        assertEquals(0, fewest[n1]);
        assertEquals(1, fewest[n0]);

        // measured progress far behind the prediction: at 4,500 s with 90 % left it ends at 5,400 s, past its due date
        ControllerFacts corrected = recorder.facts(config, later.state, jobs, 4_500_000);
        assertFalse(new ProblemBuilder(corrected).someRunningJobLate(corrected.topology()));
        corrected.writable(a).setModelDone(0.1);
        assertTrue(new ProblemBuilder(corrected).someRunningJobLate(corrected.topology()));
    }

    /**
     * The running jobs' figures come out of the walk that picks the candidates, whether it walks every job (a short
     * queue) or the running ones and the window's most urgent waiting ones (a long queue).
     */
    @Test
    void theRunningFiguresAreTheSameWhenTheQueueGrowsPastTheWindow() {
        ControllerFacts later = aStartedOnN1AtZeroSeenAt250Seconds();
        Topology topology = later.topology();
        int n1 = topology.cluster.nodeIndex("n1");
        ProblemBuilder problems = new ProblemBuilder(later);
        problems.rankWaiting(topology, greedy);
        ProblemBuilder.Asked shortQueue = problems.ask(topology, true);
        assertEquals(List.of("a"), ids(shortQueue.candidates()));
        assertEquals(List.of(), shortQueue.waiting());
        assertEquals(1, shortQueue.byNode().fewest()[n1]);

        int queued = Topology.OPTIMIZER_WINDOW_MIN + 5;
        for (int i = 0; i < queued; i++)
            jobs.add(waiting(TestData.job(String.format("w%03d", i), i, 9000 - i, 1, 1000)));
        ControllerFacts longQueue = recorder.facts(config, later.state, jobs, 250_000);
        Topology now = longQueue.topology();
        ProblemBuilder ranked = new ProblemBuilder(longQueue);
        ranked.rankWaiting(now, greedy);
        ProblemBuilder.Asked asked = ranked.ask(now, true);
        assertEquals(Topology.OPTIMIZER_WINDOW_MIN + 1, asked.candidates().size());
        assertEquals("a", ids(asked.candidates()).get(0), "the running job first: submitted first");
        assertEquals(Topology.OPTIMIZER_WINDOW_MIN, asked.waiting().size());
        assertFalse(asked.waiting().contains(jobs.get("a")));
        assertEquals(1, asked.byNode().fewest()[n1]);
        assertEquals(0, asked.byNode().fewest()[now.cluster.nodeIndex("n0")]);
        assertEquals(null, ranked.ask(now, false).byNode(), "no scope, no figures");
    }

    private static List<String> ids(List<ActiveJobs.Entry> entries) {
        return entries.stream().map(e -> e.record.getSpec().getId()).toList();
    }
}
