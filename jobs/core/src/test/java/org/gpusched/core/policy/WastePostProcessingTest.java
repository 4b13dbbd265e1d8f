package org.gpusched.core.policy;

import static org.gpusched.core.policy.Instances.PAPER;
import static org.gpusched.core.policy.Instances.job;
import static org.gpusched.core.policy.Instances.times;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.gpusched.core.model.Cluster;
import org.gpusched.core.model.JobState;
import org.gpusched.core.model.Node;
import org.gpusched.core.model.NodeType;
import org.gpusched.core.model.Placement;
import org.gpusched.core.model.SchedulingProblem;
import org.gpusched.core.objective.WasteObjective;
import org.junit.jupiter.api.Test;

/**
 * The post-processing of andreas-rg's searching calls, by f_W: idle GPUs split among a node's jobs where they save the
 * most waste, and jobs that scale brought to the nodes that have idle GPUs. Worked by hand on VMs leased whole, where
 * a GPU-hour costs at least 1 $, so each job's cheapest share is its 1-GPU hours.
 */
class WastePostProcessingTest {
    @Test
    void idleGpusAreSplitWhereTheySaveTheMostWasteNotGivenToTheHighestSpeedUp() {
        // One VM of 8 GPUs at 8 $/h, two jobs due late, both started on 1 GPU with 6 GPUs idle:
        // a {1: 3600 s, 2: 1900, 4: 1000, 7: 700}, b {1: 3600, 2: 1900, 4: 1000}.
        NodeType vm = NodeType.priced("V", "V100", 8, 8.0);
        SchedulingProblem problem = new SchedulingProblem(
                0,
                new Cluster(List.of(vm), List.of(Node.fixed("n0", "V"))),
                List.of(
                        JobState.waiting(job("a", 0, 1e6, 1, times("V", 1, 3600, 2, 1900, 4, 1000, 7, 700))),
                        JobState.waiting(job("b", 0, 1e6, 1, times("V", 1, 3600, 2, 1900, 4, 1000)))),
                null,
                PAPER);
        // The thesis' rule gives all 6 to a, the highest speed-up (3600 / 700 = 5.14): f_W = 8 $ over H = 1 h less
        // the progress earned at the cheapest shares, 8 - 3600 / 700 - 1 = 1.857.
        GreedyConstruction thesis = deterministic(problem, false);
        assertEquals(7, thesis.jobGpus[0]);
        assertEquals(1, thesis.jobGpus[1]);
        assertEquals(8 - 3600 / 700.0 - 1, waste(problem, thesis), 1e-6);
        // By f_W, 4 and 4: 8 - 3.6 - 3.6 = 0.8 (5 and 3 cannot be: neither has a time there; 7 and 1 is 1.857,
        // 2 and 4 is 8 - 1.895 - 3.6 = 2.505).
        GreedyConstruction byWaste = deterministic(problem, true);
        assertEquals(4, byWaste.jobGpus[0]);
        assertEquals(4, byWaste.jobGpus[1]);
        assertEquals(0.8, waste(problem, byWaste), 1e-6);
    }

    @Test
    void jobsThatScaleComeToANodeWhereTheLastJobSitsAloneWithIdleGpus() {
        // Two VMs of 4 GPUs at 4 $/h. Four jobs that scale, s0..s3 {1: 3600 s, 2: 1900}, due before a fifth one,
        // stiff {1: 3600} (no time on more GPUs). By pressure the four fill the first VM, and stiff opens the second
        // alone: its 3 idle GPUs do nothing for it (the thesis' rule leaves them idle).
        NodeType vm = NodeType.priced("V", "V100", 4, 4.0);
        List<JobState> jobs = new ArrayList<>();
        for (int i = 0; i < 4; i++)
            jobs.add(JobState.waiting(job("s" + i, 0, 50_000 + i, 1, times("V", 1, 3600, 2, 1900))));
        jobs.add(JobState.waiting(job("stiff", 0, 90_000, 1, times("V", 1, 3600))));
        SchedulingProblem problem = new SchedulingProblem(
                0, new Cluster(List.of(vm), List.of(Node.fixed("n0", "V"), Node.fixed("n1", "V"))), jobs, null, PAPER);
        GreedyConstruction thesis = deterministic(problem, false);
        int second = thesis.jobNode[4];
        for (int j = 0; j < 4; j++) {
            assertEquals(1, thesis.jobGpus[j]);
            assertEquals(1 - second, thesis.jobNode[j]);
        }
        // 8 $ over H less 5 jobs on 1 GPU: 8 - 5 = 3.
        assertEquals(3, waste(problem, thesis), 1e-6);
        // By f_W the best is stiff on 1 GPU and three scaling jobs on 2 (1 -> 2 GPUs earns 3600 / 1900 - 1 = 0.895
        // per GPU, an idle GPU nothing): 8 - 1 - 1 - 3 x 3600 / 1900 = 0.316. Scaling jobs move to the second VM one at
        // a time while the two VMs' idle GPUs then save more: s0 (the VMs save 0.895 + 0.895 against 0), s1 (0.895 +
        // 2 x 0.895 against 2 x 0.895), not s2 (0 + 0.895 against 3 x 0.895).
        GreedyConstruction byWaste = deterministic(problem, true);
        int secondGpus = 0, firstGpus = 0, doubled = 0;
        for (int j = 0; j < 5; j++) {
            if (byWaste.jobNode[j] == byWaste.jobNode[4]) secondGpus += byWaste.jobGpus[j];
            else firstGpus += byWaste.jobGpus[j];
            if (byWaste.jobGpus[j] == 2) doubled++;
        }
        assertEquals(1, byWaste.jobGpus[4], "stiff gains nothing from more GPUs");
        assertEquals(4, firstGpus);
        assertEquals(4, secondGpus);
        assertEquals(3, doubled);
        assertEquals(8 - 1 - 1 - 3 * 3600 / 1900.0, waste(problem, byWaste), 1e-6);
    }

    /** The deterministic construction of andreas-rg's engine, post-processed by f_W or by the thesis' rule. */
    private static GreedyConstruction deterministic(SchedulingProblem problem, boolean byWaste) {
        NodeOpening opening = new NodeOpening(NodeOpeningRule.DEFAULT);
        ProblemTables tables = new ProblemTables();
        tables.prepare(problem);
        opening.prepareCatalog(problem.cluster());
        JobConfigurations configs = new JobConfigurations();
        configs.prepare(problem, tables, opening, Ranking.WASTE, null, 1);
        GreedyConstruction construction = new GreedyConstruction(opening);
        construction.prepare(tables, configs, byWaste);
        construction.construct(null, true);
        return construction;
    }

    /** f_W of the construction's schedule, from scratch. */
    private static double waste(SchedulingProblem problem, GreedyConstruction c) {
        Placement[] placements = new Placement[problem.jobs().size()];
        int[] types = new int[problem.cluster().nodeCount()];
        Arrays.fill(types, -1);
        for (int j = 0; j < placements.length; j++) {
            if (c.jobNode[j] < 0) continue;
            placements[j] = new Placement(c.jobNode[j], c.jobType[j], c.jobGpus[j]);
            types[c.jobNode[j]] = c.jobType[j];
        }
        return WasteObjective.evaluate(problem, placements, types);
    }
}
