package org.gpusched.placement.policy;

import static org.gpusched.placement.model.Nodes.node;
import static org.gpusched.placement.model.Nodes.task;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.gpusched.core.random.RandomState;
import org.gpusched.placement.model.ClusterState;
import org.gpusched.placement.model.NodeSpec;
import org.gpusched.placement.model.TargetWorkload;
import org.gpusched.placement.model.TargetWorkload.TaskClass;
import org.gpusched.placement.model.Task;
import org.junit.jupiter.api.Test;

/** The FGD simulator's plugins: integer scores, ties to the smallest node name, each baseline on hand-checked nodes. */
class SimulatorPolicyTest {
    private static ClusterState cluster(TargetWorkload w, NodeSpec... nodes) {
        return new ClusterState(List.of(nodes), w);
    }

    private static void put(ClusterState c, Task t, int node, int gpu) {
        c.place(t, c.placementOf(t, node, gpu));
    }

    /** A: a 500-milli share (popularity .05), B: a 100-milli share (.95). */
    private static final TargetWorkload SMALL_SHARES =
            new TargetWorkload(List.of(new TaskClass(0, 1, 500, Set.of(), 5), new TaskClass(0, 1, 100, Set.of(), 95)));

    @Test
    void integerFgdScoresTieAndTheSmallestNameWinsWhereExactScoresDoNot() {
        // node 0 "b": one GPU with 400 free; node 1 "a": one free GPU. A 100 share on "b" lowers F_n by 0.05 x 100 = 5
        // milli (A cannot run there: 400 -> 300 fragment), on "a" changes nothing: exact FGD takes "b"; the plugin's
        // int64(100 sigmoid(0.005)) = 50 = int64(100 sigmoid(0)) ties, and "a" < "b".
        ClusterState c = cluster(SMALL_SHARES, node("b", 8000, 1024, 1, "G2"), node("a", 8000, 1024, 1, "G2"));
        put(c, task(0, 0, 1, 600), 0, 0);
        Task share = task(0, 0, 1, 100);
        assertEquals(-5, c.fragmentationAfter(share, 0, 0) - c.nodeFragmentationMilli(0), 1e-9);
        assertEquals(
                1,
                PlacementPolicies.byName("fgd", 0)
                        .get()
                        .choose(share, c, new RandomState(1))
                        .node());
        for (long seed = 0; seed < 5; seed++)
            assertEquals(
                    0,
                    PlacementPolicies.byName("fgd-exact", 0)
                            .get()
                            .choose(share, c, new RandomState(seed))
                            .node());
    }

    @Test
    void thePerSeedPermutationOfNamesDecidesTies() {
        List<NodeSpec> nodes = new ArrayList<>();
        for (int i = 0; i < 20; i++) nodes.add(node(String.format("n%02d", 19 - i), 8000, 1024, 1, "T4"));
        ClusterState plain = new ClusterState(nodes, null);
        assertEquals(19, plain.tieRank(0), "without a permutation the rank is the name order");
        Task cpuOnly = task(1000, 0, 0, 0); // GpuPacking scores every node 0: the tie rank alone decides
        assertEquals(
                19,
                new GpuPackingScorePolicy()
                        .choose(cpuOnly, plain, new RandomState(0))
                        .node());
        Set<Integer> chosen = new HashSet<>();
        for (long seed = 0; seed < 10; seed++) {
            ClusterState c = new ClusterState(nodes, null);
            c.permuteTieOrder(RandomState.derive(seed, 1));
            int[] ranks = new int[20];
            for (int n = 0; n < 20; n++) ranks[c.tieRank(n)]++;
            for (int r : ranks) assertEquals(1, r, "ranks are a permutation");
            int node = new GpuPackingScorePolicy()
                    .choose(cpuOnly, c, new RandomState(0))
                    .node();
            assertEquals(0, c.tieRank(node));
            ClusterState again = new ClusterState(nodes, null);
            again.permuteTieOrder(RandomState.derive(seed, 1));
            assertEquals(
                    node,
                    new GpuPackingScorePolicy()
                            .choose(cpuOnly, again, new RandomState(5))
                            .node(),
                    "same seed, same node");
            chosen.add(node);
        }
        assertTrue(chosen.size() > 3, "different seeds rename differently: " + chosen);
    }

    @Test
    void bestFitScoresCpuAndGpuLeftOverTheLargestSpec() {
        ClusterState c = cluster(null, node("a", 32000, 65536, 4, "V100M16"));
        // left: 28 of 128 vCPUs and 3 of 8 GPUs, 0.5 each: 0.109375 + 0.1875 -> int64(100 x 0.703125) = 70
        assertEquals(70, new BestFitScorePolicy().score(task(4000, 60000, 1, 1000), c, 0));
        // memory plays no part in the score
        assertEquals(70, new BestFitScorePolicy().score(task(4000, 0, 1, 1000), c, 0));
    }

    @Test
    void dotProductScoresFreeTimesDemandOverTheLargestSpec() {
        ClusterState c = cluster(null, node("a", 64000, 65536, 8, "G2"));
        put(c, task(0, 0, 6, 1000), 0, -1);
        // (64/128)(8/128) + (2/8)(1/8) = 0.0625, halved 0.03125 -> int64(100 x 0.96875) = 96
        assertEquals(96, new DotProductScorePolicy().score(task(8000, 0, 1, 1000), c, 0));
    }

    @Test
    void dotProductTruncationTiesNodesThatExactScoresSeparate() {
        // free CPU 64 vs 60 vCPUs: exact dot products 0.001953 vs 0.001831 (halved), both int64 -> 99
        ClusterState c = cluster(null, node("b", 64000, 1024, 1, "T4"), node("a", 60000, 1024, 1, "T4"));
        Task t = task(1000, 0, 0, 0);
        assertEquals(new DotProductScorePolicy().score(t, c, 0), new DotProductScorePolicy().score(t, c, 1));
        assertEquals(
                1, new DotProductScorePolicy().choose(t, c, new RandomState(0)).node(), "tie: name a");
        assertEquals(
                0,
                new DotProductPolicy().choose(t, c, new RandomState(0)).node(),
                "dotprod-3d normalises by the node: 1/64 < 1/60 of its CPU");
    }

    @Test
    void gpuPackingScoresIdleNodesThenFreshGpusThenUsedGpus() {
        ClusterState c = cluster(
                null,
                node("idle8", 96000, 1 << 20, 8, "G2"),
                node("idle2", 96000, 1 << 20, 2, "T4"),
                node("used", 96000, 1 << 20, 8, "G2"));
        put(c, task(0, 0, 1, 300), 2, 0);
        put(c, task(0, 0, 1, 900), 2, 1);
        GpuPackingScorePolicy p = new GpuPackingScorePolicy();
        assertEquals(25, p.score(task(0, 0, 1, 500), c, 0)); // max(33 - 8, 8)
        assertEquals(31, p.score(task(0, 0, 1, 500), c, 1)); // max(33 - 2, 2)
        assertEquals(48, p.score(task(0, 0, 2, 1000), c, 2)); // two fully free GPUs used: max(50 - 2, 33)
        assertEquals(93, p.score(task(0, 0, 1, 500), c, 2)); // tightest holding GPU has 700 free: 100 - 70 / 10
        assertEquals(49, p.score(task(0, 0, 1, 800), c, 2)); // only a fully free GPU holds 800: max(50 - 1, 33)
        assertEquals(0, p.score(task(1000, 0, 0, 0), c, 2)); // CPU-only: 0 everywhere
        assertArrayEquals(
                new int[] {0},
                p.choose(task(0, 0, 1, 500), c, new RandomState(0)).gpus());
    }

    @Test
    void gpuClusteringAffinityIsShareOrWholeGpuCount() {
        ClusterState d = cluster(
                null,
                node("shares", 96000, 1 << 20, 8, "G2"),
                node("mixed", 96000, 1 << 20, 8, "G2"),
                node("empty", 96000, 1 << 20, 8, "G2"));
        put(d, task(0, 0, 1, 500), 0, 0);
        put(d, task(0, 0, 1, 250), 0, 1);
        put(d, task(0, 0, 1, 500), 1, 0);
        put(d, task(0, 0, 2, 1000), 1, -1);
        GpuClusteringScorePolicy p = new GpuClusteringScorePolicy();
        // "shares": only the share affinity (any milli), 7250 free -> 25 x 750 / 8000 = 2 (integer)
        assertEquals(75 + 2, p.score(task(0, 0, 1, 300), d, 0));
        assertEquals(0 + 2, p.score(task(0, 0, 1, 1000), d, 0)); // a 1-gpu task: other affinity only
        // "mixed": share and 2-gpu, 5500 free -> 25 x 2500 / 8000 = 7
        assertEquals(50 + 7, p.score(task(0, 0, 2, 1000), d, 1));
        assertEquals(25, p.score(task(0, 0, 1, 1000), d, 2)); // no GPU task on it
        assertEquals(0, p.score(task(1000, 0, 0, 0), d, 0));
        assertEquals(
                0,
                new GpuClusteringScorePolicy()
                        .choose(task(0, 0, 1, 100), d, new RandomState(0))
                        .node());
        assertEquals(1, d.gpuAffinitiesOnNode(0));
        assertEquals(2, d.gpuAffinitiesOnNode(1));
    }

    @Test
    void randomDrawsAFeasibleNodeAndAFittingGpu() {
        ClusterState c = cluster(
                null, node("a", 8000, 1024, 2, "T4"), node("b", 8000, 1024, 2, "T4"), node("c", 100, 1024, 2, "T4"));
        put(c, task(0, 0, 1, 800), 0, 0);
        Set<String> seen = new HashSet<>();
        for (long seed = 0; seed < 60; seed++) {
            var p = new RandomScorePolicy().choose(task(1000, 0, 1, 500), c, new RandomState(seed));
            assertEquals(p, new RandomScorePolicy().choose(task(1000, 0, 1, 500), c, new RandomState(seed)));
            seen.add(p.node() + ":" + p.gpu(0));
        }
        assertEquals(Set.of("0:1", "1:0", "1:1"), seen, "node c lacks CPU; GPU 0 of a lacks milli");
    }

    @Test
    void memoryIsEnforced() {
        ClusterState c =
                cluster(SMALL_SHARES, node("small", 96000, 1024, 8, "G2"), node("large", 96000, 65536, 8, "G2"));
        for (String name : List.of("fgd", "bestfit", "dotprod", "gpu-packing", "gpu-clustering", "random"))
            assertEquals(
                    1,
                    PlacementPolicies.byName(name, 0)
                            .get()
                            .choose(task(1000, 4096, 1, 500), c, new RandomState(2))
                            .node(),
                    name);
    }
}
