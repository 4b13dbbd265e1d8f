package org.gpusched.core.policy;

import static org.gpusched.core.policy.Instances.PAPER;
import static org.gpusched.core.policy.Instances.job;
import static org.gpusched.core.policy.Instances.times;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import org.gpusched.core.model.Cluster;
import org.gpusched.core.model.JobState;
import org.gpusched.core.model.Node;
import org.gpusched.core.model.NodeType;
import org.gpusched.core.model.SchedulingProblem;
import org.gpusched.core.random.RandomState;
import org.junit.jupiter.api.Test;

/**
 * The VM size andreas-rg's randomized constructions switch a node on as, under {@link NodeOpeningRule#PACKED}: drawn
 * among the GPU model's types with weight 1 / the type's price per GPU the queue can fill.
 *
 * <p>The hand-made instance: two P600 VMs leased whole, S = 2 GPUs at 0.10 $/h and L = 4 GPUs at 0.40 $/h, four
 * rightsizable nodes, and four identical 1-GPU jobs (no time on more GPUs, so post-processing cannot give a job the
 * idle GPUs). The queue wants 4 P600 GPUs when the first job is placed: S can fill 2 of them at 0.10 / 2 = 0.05 $ per
 * GPU, L 4 at 0.40 / 4 = 0.10 $. So S weighs 1 / 0.05 = 20 and L 1 / 0.10 = 10, and the first node is S with
 * probability 2/3: uniform weights would give 1/2, weights by price per GPU (inverted) 1/3. Either VM is full once
 * opened (S takes two jobs, L all four), so post-processing never retypes the first node and its type is the draw's.
 */
class VmSizeDrawTest {
    private static final int S = 0, L = 1;

    private static SchedulingProblem fourJobs() {
        List<NodeType> catalog = List.of(NodeType.priced("S", "P600", 2, 0.10), NodeType.priced("L", "P600", 4, 0.40));
        List<Node> nodes = new ArrayList<>();
        for (int n = 0; n < 4; n++) nodes.add(Node.rightsizable("vm" + n));
        var times = times("S", 1, 3600, "L", 1, 3600);
        List<JobState> jobs = new ArrayList<>();
        for (int j = 0; j < 4; j++) jobs.add(JobState.waiting(job("j" + j, 0, 1e6, 1, times)));
        return new SchedulingProblem(0, new Cluster(catalog, nodes), jobs, null, PAPER);
    }

    @Test
    void theCandidatesAreWeightedByOneOverThePricePerGpuTheQueueCanFill() {
        SchedulingProblem problem = fourJobs();
        NodeOpening opening = new NodeOpening(NodeOpeningRule.PACKED);
        ProblemTables tables = new ProblemTables();
        tables.prepare(problem);
        opening.prepareCatalog(problem.cluster());
        new JobConfigurations().prepare(problem, tables, opening);
        NodeOpening.Demand demand = opening.demand();
        demand.startConstruction();
        // the first job's 1-GPU configuration on S, both types off: S first (0.05 $ per GPU < 0.10 $), weights 20, 10
        int count = demand.typesToOpen(0, S, 1, new boolean[] {true, true});
        assertEquals(2, count);
        assertArrayEquals(new int[] {S, L}, java.util.Arrays.copyOf(demand.candidate, count));
        assertEquals(20, demand.candidateWeight[0], 1e-9);
        assertEquals(10, demand.candidateWeight[1], 1e-9);
        // the same from the L configuration: the candidates and weights do not depend on which size the job drew
        count = demand.typesToOpen(0, L, 1, new boolean[] {true, true});
        assertArrayEquals(new int[] {S, L}, java.util.Arrays.copyOf(demand.candidate, count));
        assertEquals(20, demand.candidateWeight[0], 1e-9);
        assertEquals(10, demand.candidateWeight[1], 1e-9);
        // two jobs passed: the queue wants 2 GPUs, which both sizes can fill -> S 2 / 0.10 = 20, L 2 / 0.40 = 5
        demand.passed(S, 1);
        demand.passed(S, 1);
        count = demand.typesToOpen(2, S, 1, new boolean[] {true, true});
        assertEquals(20, demand.candidateWeight[0], 1e-9);
        assertEquals(5, demand.candidateWeight[1], 1e-9);
        tables.release();
    }

    @Test
    void randomizedConstructionsOpenTheFirstNodeAsSWithProbabilityTwoThirds() {
        SchedulingProblem problem = fourJobs();
        NodeOpening opening = new NodeOpening(NodeOpeningRule.PACKED);
        ProblemTables tables = new ProblemTables();
        tables.prepare(problem);
        opening.prepareCatalog(problem.cluster());
        JobConfigurations configs = new JobConfigurations();
        configs.prepare(problem, tables, opening);
        GreedyConstruction construction = new GreedyConstruction(opening);
        construction.prepare(tables, configs, false);

        // the deterministic construction takes the best candidate
        construction.construct(null, true);
        assertEquals(S, construction.pool.nodeType[construction.pool.opened[0]]);
        construction.reset();

        int draws = 6000, small = 0;
        for (int it = 1; it <= draws; it++) {
            construction.construct(RandomState.derive(42, it), true);
            NodePool pool = construction.pool;
            int first = pool.opened[0];
            int type = pool.nodeType[first];
            // the first node is full whatever its size, so its type is the draw's
            assertEquals(0, pool.nodeFree[first], "iteration " + it);
            if (type == S) small++;
            construction.reset();
        }
        double share = small / (double) draws;
        // 2/3 expected; one standard deviation is 0.006 here. Uniform weights give 1/2, inverted ones 1/3
        assertEquals(2 / 3.0, share, 0.03, "share of first nodes opened as S");
        tables.release();
    }
}
