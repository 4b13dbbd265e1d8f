package org.gpusched.core.policy;

import static org.gpusched.core.policy.Instances.PAPER;
import static org.gpusched.core.policy.Instances.job;
import static org.gpusched.core.policy.Instances.times;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.gpusched.core.model.Cluster;
import org.gpusched.core.model.JobState;
import org.gpusched.core.model.Node;
import org.gpusched.core.model.NodeType;
import org.gpusched.core.model.Placement;
import org.gpusched.core.model.Schedule;
import org.gpusched.core.model.SchedulingProblem;
import org.gpusched.core.random.RandomState;
import org.junit.jupiter.api.Test;

/** The three node-opening rules on instances worked out by hand (numbers in the comments). */
class NodeOpeningRuleTest {
    private static final double EPS = 1e-9;
    private static final int S = 0, L = 1;

    /** Two P600 VMs leased whole: S = 2 GPUs at 0.11 $/h, L = 8 GPUs at {@code largePrice}; two rightsizable nodes. */
    private static SchedulingProblem problem(double largePrice, int jobCount) {
        List<NodeType> catalog =
                List.of(NodeType.priced("S", "P600", 2, 0.11), NodeType.priced("L", "P600", 8, largePrice));
        Cluster cluster = new Cluster(catalog, List.of(Node.rightsizable("vm0"), Node.rightsizable("vm1")));
        var times = times("S", 1, 3600, 2, 2400, "L", 1, 3600, 2, 2400);
        List<JobState> jobs = new ArrayList<>();
        for (int j = 0; j < jobCount; j++) jobs.add(JobState.waiting(job("j" + j, 0, 1e6, 1, times)));
        return new SchedulingProblem(0, cluster, jobs, null, PAPER);
    }

    private static Schedule greedy(NodeOpeningRule rule, SchedulingProblem problem) {
        Schedule s = new GreedyEngine(rule)
                .run(problem, new RandomState(1), 1, 1, true)
                .get(0);
        ScheduleChecks.verify(problem, s);
        return s;
    }

    @Test
    void vmPerJobOpensTheVmCheapestForTheJobAlone() {
        // whole prices: S1 1 h x 0.11 = 0.11, S2 2/3 h x 0.11 = 0.0733, L1 0.44, L2 0.2933 -> S2 for each job, one
        // S node each; f_OBJ = 2 x 0.0733
        Schedule s = greedy(NodeOpeningRule.VM_PER_JOB, problem(0.44, 2));
        assertEquals(new Placement(0, S, 2), s.placement(0));
        assertEquals(new Placement(1, S, 2), s.placement(1));
        assertEquals(2 * 2400 / 3600.0 * 0.11, s.objective(), EPS);
    }

    @Test
    void largestVmOpensTheLargestVmOfTheModelAndPacksTheQueueOntoIt() {
        // best configuration S2 (as above); the node opens as L, the largest P600 VM with a time for 2 GPUs; the
        // second job's S2 finds no S node but the open L node (same GPU model) with 6 free GPUs. No time for 3-8
        // GPUs, so the idle GPUs stay idle; f_OBJ = first-ending cost 2/3 h x 0.44 = 0.2933 (mu = 0)
        Schedule s = greedy(NodeOpeningRule.LARGEST_VM, problem(0.44, 2));
        assertEquals(new Placement(0, L, 2), s.placement(0));
        assertEquals(new Placement(0, L, 2), s.placement(1));
        assertEquals(-1, s.nodeType(1));
        assertEquals(2400 / 3600.0 * 0.44, s.objective(), EPS);
    }

    @Test
    void packedPricesTheJobsShareAndFillsTheOpenNode() {
        // shares: S1 1 h x 0.11 / 2 = 0.055 = L1 1 h x 0.44 / 8; S2 0.0733 = L2 -> S1 (lower type index on ties).
        // The queue wants 2 P600 GPUs: S costs 0.11 / 2 per GPU it can fill, L 0.44 / 2 -> S. The second job fills
        // the S node's other GPU; f_OBJ = first-ending cost 1 h x 0.11 = 0.11, the cheapest of the three rules
        Schedule s = greedy(NodeOpeningRule.PACKED, problem(0.44, 2));
        assertEquals(new Placement(0, S, 1), s.placement(0));
        assertEquals(new Placement(0, S, 1), s.placement(1));
        assertEquals(-1, s.nodeType(1));
        assertEquals(0.11, s.objective(), EPS);
        assertEquals(NodeOpeningRule.PACKED, NodeOpeningRule.DEFAULT);
        assertEquals(
                0.11,
                new GreedyPolicy(PolicyConfig.DEFAULTS)
                        .schedule(problem(0.44, 2), null)
                        .objective(),
                EPS);
    }

    @Test
    void packedOpensTheVmThePriceOfWhichPerGpuTheQueueCanFillIsLowest() {
        // L at 0.40: its share 1 h x 0.40 / 8 = 0.05 beats S1's 0.055, so L1 is every job's best configuration.
        // One job: L would cost 0.40 per GPU the queue fills, S 0.11 -> S, and post-processing gives the job S's
        // second GPU (first-ending cost 0.0733 < 0.11)
        Schedule one = greedy(NodeOpeningRule.PACKED, problem(0.40, 1));
        assertEquals(new Placement(0, S, 2), one.placement(0));
        assertEquals(2400 / 3600.0 * 0.11, one.objective(), EPS);
        // Eight jobs: L costs 0.40 / 8 = 0.05 per GPU, S 0.11 / 2 = 0.055 -> L, and all eight share it
        Schedule eight = greedy(NodeOpeningRule.PACKED, problem(0.40, 8));
        for (int j = 0; j < 8; j++) assertEquals(new Placement(0, L, 1), eight.placement(j));
        assertEquals(-1, eight.nodeType(1));
        assertEquals(0.40, eight.objective(), EPS);
        // L at 0.44: S1 is every job's best configuration (ties with L1 go to the lower type index), but for a
        // queue of eight S and L cost the same per GPU and the larger one opens; the other seven jobs' S1 finds the
        // open L node through its GPU model
        Schedule tie = greedy(NodeOpeningRule.PACKED, problem(0.44, 8));
        for (int j = 0; j < 8; j++) assertEquals(new Placement(0, L, 1), tie.placement(j));
        assertEquals(0.44, tie.objective(), EPS);
    }

    @Test
    void randomizedIterationsDrawTheVmSizeUnderPacked() {
        // S = 4 GPUs at 0.22, L = 8 at 0.44 (both 0.055 per GPU). The job's three best configurations are on S (L1
        // is ten times slower), so a configuration draw never yields L; L is opened only when the VM size drawn for
        // S1 is L (weights 1 / 0.22 and 1 / 0.44 per GPU the queue of one fills), which the greedy never does
        List<NodeType> catalog = List.of(NodeType.priced("S", "P600", 4, 0.22), NodeType.priced("L", "P600", 8, 0.44));
        Cluster cluster = new Cluster(catalog, List.of(Node.rightsizable("vm0")));
        var times = times("S", 1, 3600, 2, 2400, 3, 2000, 4, 1900, "L", 1, 36000);
        SchedulingProblem problem =
                new SchedulingProblem(0, cluster, List.of(JobState.waiting(job("j", 0, 1e6, 1, times))), null, PAPER);
        assertEquals(S, greedy(NodeOpeningRule.PACKED, problem).nodeType(0));
        Set<Integer> opened = new HashSet<>();
        GreedyEngine engine = new GreedyEngine(false, NodeOpeningRule.PACKED);
        RandomState random = new RandomState(7);
        for (int call = 0; call < 20; call++) {
            for (Schedule s : engine.run(problem, random, 20, 3, true)) opened.add(s.nodeType(0));
        }
        assertEquals(Set.of(S, L), opened);
        Set<Integer> perJob = new HashSet<>();
        GreedyEngine vmPerJob = new GreedyEngine(false, NodeOpeningRule.VM_PER_JOB);
        for (int call = 0; call < 20; call++) {
            for (Schedule s : vmPerJob.run(problem, random, 20, 3, true)) perJob.add(s.nodeType(0));
        }
        assertEquals(Set.of(S), perJob);
    }

    @Test
    void theRulesDecideAlikeWithoutWholeVmsOrSeveralTypesPerModel() {
        // without a VM leased whole PACKED is VM_PER_JOB; with one type per GPU model as well, so is LARGEST_VM
        int checked = 0, oneTypePerModel = 0;
        for (long seed = 1; seed <= 600 && checked < 60; seed++) {
            SchedulingProblem problem = Instances.random(seed);
            Set<String> models = new HashSet<>();
            boolean whole = false, distinctModels = true;
            for (NodeType type : problem.cluster().types()) {
                whole |= NodeOpeningRule.leasedWhole(type);
                distinctModels &= models.add(type.gpuModel());
            }
            if (whole) continue;
            checked++;
            Schedule reference = randomized(NodeOpeningRule.VM_PER_JOB, problem, seed);
            List<NodeOpeningRule> alike = new ArrayList<>(List.of(NodeOpeningRule.PACKED));
            if (distinctModels) {
                alike.add(NodeOpeningRule.LARGEST_VM);
                oneTypePerModel++;
            }
            for (NodeOpeningRule rule : alike) {
                Schedule s = randomized(rule, problem, seed);
                assertEquals(reference.objective(), s.objective(), 0, rule + " seed " + seed);
                for (int j = 0; j < problem.jobCount(); j++)
                    assertEquals(reference.placement(j), s.placement(j), rule + " seed " + seed);
                assertArrayEquals(nodeTypes(reference, problem), nodeTypes(s, problem));
            }
        }
        assertTrue(checked >= 30 && oneTypePerModel >= 10, checked + " / " + oneTypePerModel + " instances");
    }

    private static Schedule randomized(NodeOpeningRule rule, SchedulingProblem problem, long seed) {
        return new GreedyEngine(rule)
                .run(problem, new RandomState(seed), 50, 1, true)
                .get(0);
    }

    private static int[] nodeTypes(Schedule s, SchedulingProblem problem) {
        int[] types = new int[problem.cluster().nodeCount()];
        for (int n = 0; n < types.length; n++) types[n] = s.nodeType(n);
        return types;
    }
}
