package org.gpusched.core.policy;

import static org.gpusched.core.policy.Instances.PAPER;
import static org.gpusched.core.policy.Instances.job;
import static org.gpusched.core.policy.Instances.linear;
import static org.gpusched.core.policy.Instances.times;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.gpusched.core.model.Cluster;
import org.gpusched.core.model.JobState;
import org.gpusched.core.model.Node;
import org.gpusched.core.model.NodeType;
import org.gpusched.core.model.Placement;
import org.gpusched.core.model.Schedule;
import org.gpusched.core.model.SchedulingProblem;
import org.gpusched.core.objective.ObjectiveParameters;
import org.gpusched.core.random.RandomState;
import org.junit.jupiter.api.Test;

/** Small instances whose best schedules and f_OBJ values were worked out by hand (numbers in the comments). */
class HandCheckedPoliciesTest {
    private static final double EPS = 1e-9;

    private static Schedule run(String policy, SchedulingProblem problem) {
        return run(Policies.create(policy, PolicyConfig.DEFAULTS), problem);
    }

    private static Schedule run(SchedulingPolicy policy, SchedulingProblem problem) {
        Schedule s = policy.schedule(problem, new RandomState(42));
        ScheduleChecks.verify(problem, s);
        return s;
    }

    @Test
    void edfProvablyLosesToAndreasRg() {
        // One 2-GPU node, cost 1 $/h per busy GPU. Two identical jobs, due 5000 s: {1 GPU: 3600 s, 2 GPUs: 2400 s}.
        Cluster cluster = new Cluster(List.of(linear("A", "V100", 2, 1.0)), List.of(Node.fixed("n0", "A")));
        var times = times("A", 1, 3600, 2, 2400);
        SchedulingProblem problem = new SchedulingProblem(
                0,
                cluster,
                List.of(JobState.waiting(job("j1", 0, 5000, 1, times)), JobState.waiting(job("j2", 0, 5000, 1, times))),
                null,
                PAPER);

        // RG: cheapest on-time configuration is 1 GPU (1 h x 1 $/h = 1.0 < 2400/3600 x 2 = 1.333): both jobs share
        // the node, first-ending cost 1.0, nobody late.
        Schedule rg = run("andreas-rg", problem);
        assertEquals(1.0, rg.objective(), EPS);
        assertEquals(new Placement(0, 0, 1), rg.placement(0));
        assertEquals(new Placement(0, 0, 1), rg.placement(1));
        assertEquals(1.0, run("greedy", problem).objective(), EPS);

        // EDF: one job per node, j1 in its cheapest on-time configuration, 1 GPU (cost 1.0); j2 postponed with
        // worst-case tardiness 3600 + 3600 - 5000 = 2200 s -> 100 x 1 x 2200/3600 = 61.111.
        Schedule edf = run("edf", problem);
        assertEquals(new Placement(0, 0, 1), edf.placement(0));
        assertNull(edf.placement(1));
        assertEquals(1.0 + 100 * 2200 / 3600.0, edf.objective(), EPS);
        // edf-fastest: j1 on both GPUs (cost 2400/3600 x 2 = 1.3333), j2 postponed as before
        Schedule fastest = run("edf-fastest", problem);
        assertEquals(new Placement(0, 0, 2), fastest.placement(0));
        assertEquals(2400 / 3600.0 * 2 + 100 * 2200 / 3600.0, fastest.objective(), EPS);
    }

    @Test
    void rightsizingPicksTheCheaperVmTypeThatMeetsTheDueDate() {
        List<NodeType> catalog = List.of(
                NodeType.priced("NC6", "K80", 1, 0.56),
                NodeType.priced("NV6", "M60", 1, 0.62),
                NodeType.priced("NC24", "K80", 4, 2.25));
        Cluster cluster = new Cluster(catalog, List.of(Node.rightsizable("vm0")));
        var times = times("NC6", 1, 7200, "NV6", 1, 6000, "NC24", 1, 7200, 4, 2400);
        // due 10000: NC6 2 h x 0.56 = 1.12, NV6 1.667 h x 0.62 = 1.0333, NC24x1 4.5, NC24x4 1.5 -> NV6
        Schedule cheap = run(
                "greedy",
                new SchedulingProblem(
                        0, cluster, List.of(JobState.waiting(job("j", 0, 10000, 1, times))), null, PAPER));
        assertEquals(1, cheap.nodeType(0));
        assertEquals(new Placement(0, 1, 1), cheap.placement(0));
        assertEquals(6000 / 3600.0 * 0.62, cheap.objective(), EPS);
        // due 5000: only NC24 with 4 GPUs (2400 s) meets it
        Schedule onTime = run(
                "andreas-rg",
                new SchedulingProblem(0, cluster, List.of(JobState.waiting(job("j", 0, 5000, 1, times))), null, PAPER));
        assertEquals(new Placement(0, 2, 4), onTime.placement(0));
        // due 2000: nothing meets it -> the fastest (NC24 x4, 400 s late)
        Schedule late = run(
                "greedy",
                new SchedulingProblem(0, cluster, List.of(JobState.waiting(job("j", 0, 2000, 1, times))), null, PAPER));
        assertEquals(new Placement(0, 2, 4), late.placement(0));
        assertEquals(400 / 3600.0 + 2400 / 3600.0 * 2.25, late.objective(), EPS);
    }

    @Test
    void postProcessingMovesAHalfEmptyNodeToTheEquivalentSmallerType() {
        // K4 and K2 (both K80) cost the same; the job ties on both and the tie goes to K4 (lower index), leaving
        // 2 idle GPUs; with mu = 1 the equivalent K2 saves 2 in f_OBJ: 1.0 instead of 3.0.
        List<NodeType> catalog = List.of(NodeType.priced("K4", "K80", 4, 1.0), NodeType.priced("K2", "K80", 2, 1.0));
        Cluster cluster = new Cluster(catalog, List.of(Node.rightsizable("vm0")));
        SchedulingProblem problem = new SchedulingProblem(
                0,
                cluster,
                List.of(JobState.waiting(job("j", 0, 10000, 1, times("K4", 2, 3600, "K2", 2, 3600)))),
                null,
                new ObjectiveParameters(100, 3600, 1));
        for (String policy : List.of("greedy", "andreas-rg")) {
            Schedule s = run(policy, problem);
            assertEquals(1, s.nodeType(0), policy);
            assertEquals(new Placement(0, 1, 2), s.placement(0), policy);
            assertEquals(1.0, s.objective(), EPS, policy);
        }
    }

    @Test
    void idleGpusGoToTheJobWithTheHighestSpeedup() {
        // One 4-GPU node, rate g x 1 $/h. b {1: 7200, 2: 3800, 3: 2700}, a {1: 3600, 2: 2000}, both far from due.
        // Cheapest: both on 1 GPU (b: 2.0, a: 1.0). Idle 2: speed-ups a->2 1.8, b->2 1.89, b->3 2.67 -> b gets 3 GPUs;
        // the first-ending cost stays a's 1.0, so f_OBJ does not grow.
        Cluster cluster = new Cluster(List.of(linear("E", "A100", 4, 1.0)), List.of(Node.fixed("n0", "E")));
        SchedulingProblem problem = new SchedulingProblem(
                0,
                cluster,
                List.of(
                        JobState.waiting(job("a", 0, 50000, 1, times("E", 1, 3600, 2, 2000))),
                        JobState.waiting(job("b", 0, 50000, 1, times("E", 1, 7200, 2, 3800, 3, 2700)))),
                null,
                PAPER);
        Schedule s = run("greedy", problem);
        assertEquals(new Placement(0, 0, 1), s.placement(0));
        assertEquals(new Placement(0, 0, 3), s.placement(1));
        assertEquals(1.0, s.objective(), EPS);
    }

    @Test
    void aPreemptedJobComesBackWithItsRemainingWork() {
        // 60% done: 10000 s becomes 4000 s; due 3000 -> 1000 s late x 2 $/h = 0.5556, cost 4000/3600 x 1 = 1.1111
        Cluster cluster = new Cluster(List.of(linear("A", "V100", 1, 1.0)), List.of(Node.fixed("n0", "A")));
        SchedulingProblem problem = new SchedulingProblem(
                0, cluster, List.of(new JobState(job("p", 0, 3000, 2, times("A", 1, 10000)), 0.6, null)), null, PAPER);
        for (String policy : List.of("greedy", "andreas-rg", "fifo")) {
            Schedule s = run(policy, problem);
            assertEquals(new Placement(0, 0, 1), s.placement(0), policy);
            assertEquals(1000 / 3600.0 * 2 + 4000 / 3600.0, s.objective(), EPS, policy);
        }
    }

    @Test
    void aRunningJobIsPreemptedForAMoreUrgentOneButNotByTheBaselines() {
        Cluster cluster = new Cluster(List.of(linear("A", "V100", 1, 1.0)), List.of(Node.fixed("n0", "A")));
        JobState running = new JobState(job("r", 0, 100000, 1, times("A", 1, 7200)), 0.5, new Placement(0, 0, 1));
        JobState urgent = JobState.waiting(job("u", 0, 4000, 10, times("A", 1, 3600)));
        SchedulingProblem problem = new SchedulingProblem(0, cluster, List.of(running, urgent), new int[] {0}, PAPER);
        // u has the higher pressure (-400 s): it takes the GPU, r waits with no worst-case tardiness -> f = 1.0
        for (String policy : List.of("greedy", "andreas-rg")) {
            Schedule s = run(policy, problem);
            assertNull(s.placement(0), policy);
            assertEquals(new Placement(0, 0, 1), s.placement(1), policy);
            assertEquals(1.0, s.objective(), EPS, policy);
        }
        // baselines never preempt: r keeps the GPU (cost 1.0), u waits: 100 x 10 x (3600 + 3600 - 4000)/3600
        for (String policy : List.of("fifo", "edf", "priority")) {
            Schedule s = run(policy, problem);
            assertEquals(new Placement(0, 0, 1), s.placement(0), policy);
            assertNull(s.placement(1), policy);
            assertEquals(1.0 + 1000 * 3200 / 3600.0, s.objective(), EPS, policy);
        }
    }

    @Test
    void hugeWeightsDoNotOverflowTheRanking() {
        // the preemption instance with weights of 1e13 $/h: f_OBJ ~ 1e16, beyond 1e-6 fixed point in a long
        Cluster cluster = new Cluster(List.of(linear("A", "V100", 1, 1.0)), List.of(Node.fixed("n0", "A")));
        JobState running = new JobState(job("r", 0, 100000, 1e13, times("A", 1, 7200)), 0.5, new Placement(0, 0, 1));
        JobState urgent = JobState.waiting(job("u", 0, 4000, 1e14, times("A", 1, 3600)));
        SchedulingProblem problem = new SchedulingProblem(0, cluster, List.of(running, urgent), new int[] {0}, PAPER);
        Schedule rg = run("andreas-rg", problem);
        assertNull(rg.placement(0));
        assertEquals(new Placement(0, 0, 1), rg.placement(1));
        assertEquals(1.0, rg.objective(), EPS);
        // now both late whatever happens: the one with the larger weight x lateness runs
        SchedulingProblem late = new SchedulingProblem(200000, cluster, List.of(running, urgent), new int[] {0}, PAPER);
        Schedule s = run("andreas-rg", late);
        assertTrue(s.objective() > 1e16 && s.objective() <= run("greedy", late).objective());
        assertEquals(new Placement(0, 0, 1), s.placement(1));
        // the ranking still orders: running r instead is the other distinct solution, and it is worse
        List<Schedule> best =
                new AndreasRandomizedGreedyPolicy(PolicyConfig.DEFAULTS).bestSolutions(late, new RandomState(3), 3);
        for (int i = 1; i < best.size(); i++)
            assertTrue(best.get(i - 1).objective() <= best.get(i).objective());
    }

    @Test
    void aRunningJobStaysOnItsNodeWhenNothingIsGainedByMoving() {
        Cluster cluster = new Cluster(
                List.of(linear("A", "V100", 2, 1.0)), List.of(Node.fixed("n0", "A"), Node.fixed("n1", "A")));
        JobState running = new JobState(job("r", 0, 10000, 1, times("A", 1, 3600)), 0.2, new Placement(1, 0, 1));
        JobState later = JobState.waiting(job("w", 0, 90000, 1, times("A", 1, 3600)));
        SchedulingProblem problem =
                new SchedulingProblem(0, cluster, List.of(running, later), new int[] {-1, 0}, PAPER);
        for (String policy : List.of("greedy", "andreas-rg")) {
            Schedule s = run(policy, problem);
            assertEquals(new Placement(1, 0, 1), s.placement(0), policy);
            // the waiting job joins the open node instead of switching on n0
            assertEquals(new Placement(1, 0, 1), s.placement(1), policy);
            assertEquals(-1, s.nodeType(0), policy);
        }
    }

    @Test
    void firstFitAndBestFitChooseDifferentOpenNodes() {
        // a (2 GPUs) opens n0, b (3 GPUs) opens n1; c (1 GPU): first fit -> n0 (lowest index), best fit -> n1 (0 idle)
        Cluster cluster = new Cluster(
                List.of(linear("A", "V100", 4, 1.0)), List.of(Node.fixed("n0", "A"), Node.fixed("n1", "A")));
        SchedulingProblem problem = new SchedulingProblem(
                0,
                cluster,
                List.of(
                        JobState.waiting(job("a", 0, 5000, 1, times("A", 2, 3600))),
                        JobState.waiting(job("b", 0, 6000, 1, times("A", 3, 3600))),
                        JobState.waiting(job("c", 0, 7000, 1, times("A", 1, 3600)))),
                null,
                PAPER);
        Schedule bestFit = run(new GreedyPolicy(new PolicyConfig(1, true, 10, 5, 30)), problem);
        Schedule firstFit = run(new GreedyPolicy(new PolicyConfig(1, false, 10, 5, 30)), problem);
        assertEquals(new Placement(0, 0, 2), bestFit.placement(0));
        assertEquals(new Placement(1, 0, 3), bestFit.placement(1));
        assertEquals(new Placement(1, 0, 1), bestFit.placement(2));
        assertEquals(new Placement(0, 0, 1), firstFit.placement(2));
    }

    @Test
    void aJobThatFitsNoFreeBestConfigurationTakesASubOptimalOne() {
        // n0 is fixed V (2 GPUs), n1 fixed W (1 GPU). a prefers V x2 and takes it; b also prefers V but V is full:
        // it runs sub-optimally on W.
        Cluster cluster = new Cluster(
                List.of(linear("V", "V100", 2, 1.0), linear("W", "T4", 1, 3.0)),
                List.of(Node.fixed("n0", "V"), Node.fixed("n1", "W")));
        SchedulingProblem problem = new SchedulingProblem(
                0,
                cluster,
                List.of(
                        JobState.waiting(job("a", 0, 5000, 1, times("V", 2, 3600, "W", 1, 4000))),
                        JobState.waiting(job("b", 0, 6000, 1, times("V", 2, 3600, "W", 1, 4000)))),
                null,
                PAPER);
        Schedule s = run("greedy", problem);
        assertEquals(new Placement(0, 0, 2), s.placement(0));
        assertEquals(new Placement(1, 1, 1), s.placement(1));
        assertEquals(2.0 + 4000 / 3600.0 * 3, s.objective(), EPS);
    }

    @Test
    void baselinesServeTheirQueueOrderOneJobPerNode() {
        Cluster cluster = new Cluster(List.of(linear("A", "V100", 2, 1.0)), List.of(Node.fixed("n0", "A")));
        var times = times("A", 1, 3600, 2, 2000);
        SchedulingProblem problem = new SchedulingProblem(
                100,
                cluster,
                List.of(
                        JobState.waiting(job("x", 0, 9000, 0.5, times)),
                        JobState.waiting(job("y", 10, 5000, 0.4, times)),
                        JobState.waiting(job("z", 20, 7000, 1.0, times))),
                null,
                PAPER);
        // the authors' rule: 1 GPU meets every due date and costs 1.0 against 2000/3600 x 2 = 1.11 for 2 GPUs
        assertOnlyPlaced(run("fifo", problem), 0, 1);
        assertOnlyPlaced(run("edf", problem), 1, 1);
        assertOnlyPlaced(run("priority", problem), 2, 1);
        assertOnlyPlaced(run("fifo-fastest", problem), 0, 2);
        assertOnlyPlaced(run("edf-fastest", problem), 1, 2);
        assertOnlyPlaced(run("priority-fastest", problem), 2, 2);
    }

    private static void assertOnlyPlaced(Schedule s, int job, int gpus) {
        for (int j = 0; j < s.jobCount(); j++) {
            if (j == job) assertEquals(new Placement(0, 0, gpus), s.placement(j));
            else assertNull(s.placement(j));
        }
    }

    @Test
    void fastestBaselinesPickTheRightsizableTypeWithTheFastestCompletion() {
        // S: all its 1 GPU, 5000 s. L (4 GPUs): no time for 4, fastest there is 2 GPUs in 4000 s -> L with 2 GPUs
        Cluster cluster = new Cluster(
                List.of(NodeType.priced("S", "M60", 1, 0.5), NodeType.priced("L", "K80", 4, 2.0)),
                List.of(Node.rightsizable("vm0"), Node.rightsizable("vm1")));
        SchedulingProblem problem = new SchedulingProblem(
                0,
                cluster,
                List.of(JobState.waiting(job("j", 0, 9000, 1, times("S", 1, 5000, "L", 1, 6000, 2, 4000)))),
                null,
                PAPER);
        for (String policy : List.of("fifo-fastest", "edf-fastest", "priority-fastest")) {
            Schedule s = run(policy, problem);
            assertNotNull(s.placement(0));
            assertEquals(new Placement(0, 1, 2), s.placement(0), policy);
            assertEquals(-1, s.nodeType(1), policy);
        }
    }

    @Test
    void baselinesStartEachJobInItsCheapestOnTimeConfigurationElseItsFastest() {
        // The ANDREAS authors' rule (GPUScheduler's first-principle methods). Three rightsizable VMs; S: 1 GPU at
        // 0.5/h, L: 4 GPUs at 2.0/h whatever the GPUs in use. At time 0, in submission order:
        //  a (due 9000): S 5000 s (0.694), L x1 6000 s (3.333), L x2 4000 s (2.222): all on time -> S x1
        //  b (due 4500): S 4000 s (0.556), L x2 2000 s (1.111): both on time -> S x1, not the faster L x2
        //  c (due 1000): S 5000 s (0.694), L x2 4000 s (2.222): none on time -> the fastest, L x2, dearer than S
        // f_OBJ: 0.694 + 0.556 + 2.222 + c late 3000 s x 1/h = 0.833 -> 4.30556
        Cluster cluster = new Cluster(
                List.of(NodeType.priced("S", "M60", 1, 0.5), NodeType.priced("L", "K80", 4, 2.0)),
                List.of(Node.rightsizable("vm0"), Node.rightsizable("vm1"), Node.rightsizable("vm2")));
        SchedulingProblem problem = new SchedulingProblem(
                0,
                cluster,
                List.of(
                        JobState.waiting(job("a", 0, 9000, 1, times("S", 1, 5000, "L", 1, 6000, 2, 4000))),
                        JobState.waiting(job("b", 0, 4500, 1, times("S", 1, 4000, "L", 2, 2000))),
                        JobState.waiting(job("c", 0, 1000, 1, times("S", 1, 5000, "L", 2, 4000)))),
                null,
                PAPER);
        Schedule s = run("fifo", problem);
        assertEquals(new Placement(0, 0, 1), s.placement(0));
        assertEquals(new Placement(1, 0, 1), s.placement(1));
        assertEquals(new Placement(2, 1, 2), s.placement(2));
        assertEquals(5000 / 3600.0 * 0.5 + 4000 / 3600.0 * 0.5 + 4000 / 3600.0 * 2 + 3000 / 3600.0, s.objective(), EPS);
        assertEquals(4.30556, s.objective(), 1e-5);
        // the older rule: every job on the fastest configuration, L x2
        Schedule fastest = run("fifo-fastest", problem);
        for (int j = 0; j < 3; j++) assertEquals(new Placement(j, 1, 2), fastest.placement(j));
    }

    @Test
    void aRunningJobStaysWhenTheCheaperNodeDoesNotPayForWhatTheMoveLoses() {
        // Fixed nodes a (1 GPU, 2.0/h) and b (1 GPU, 1.0/h); j runs on a, half done, 3600 s on either, due far.
        // andreas-rg's plan moves it to b either way (its configuration choice is by cost per job); f_OBJ prices the
        // plan: free moves 1800 s x 1.0 = 0.5 against 1.0 in place; costed moves (a quarter of the work since the
        // last snapshot, 1200 s to restore) 2700 + 1200 = 3900 s x 1.0 = 1.0833. The stabilizer, with no margin of
        // its own, carries out the move only when f_OBJ says it pays.
        Cluster cluster = new Cluster(
                List.of(NodeType.priced("A", "V100", 1, 2.0), NodeType.priced("B", "T4", 1, 1.0)),
                List.of(Node.fixed("a", "A"), Node.fixed("b", "B")));
        var job = job("j", 0, 1e6, 1, times("A", 1, 3600, "B", 1, 3600));
        Placement onA = new Placement(0, 0, 1), onB = new Placement(1, 1, 1);
        SchedulingProblem free =
                new SchedulingProblem(0, cluster, List.of(new JobState(job, 0.5, onA)), new int[] {0, -1}, PAPER);
        Schedule freePlan = run("andreas-rg", free);
        assertEquals(onB, freePlan.placement(0));
        assertEquals(0.5, freePlan.objective(), EPS);
        assertEquals(onB, new PlanStabilizer(0).stabilize(free, freePlan, null).placement(0));

        SchedulingProblem costed = new SchedulingProblem(
                0, cluster, List.of(new JobState(job, 0.5, onA, 0.25, 1200)), new int[] {0, -1}, PAPER);
        Schedule costedPlan = run("andreas-rg", costed);
        assertEquals(onB, costedPlan.placement(0));
        assertEquals(3900 / 3600.0, costedPlan.objective(), EPS);
        Schedule kept = new PlanStabilizer(0).stabilize(costed, costedPlan, null);
        assertEquals(onA, kept.placement(0));
        assertEquals(1.0, kept.objective(), EPS);
    }
}
