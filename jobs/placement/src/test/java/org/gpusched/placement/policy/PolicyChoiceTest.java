package org.gpusched.placement.policy;

import static org.gpusched.placement.model.Nodes.constrained;
import static org.gpusched.placement.model.Nodes.node;
import static org.gpusched.placement.model.Nodes.task;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.gpusched.core.random.RandomState;
import org.gpusched.placement.model.ClusterState;
import org.gpusched.placement.model.NodeSpec;
import org.gpusched.placement.model.Placement;
import org.gpusched.placement.model.TargetWorkload;
import org.gpusched.placement.model.TargetWorkload.TaskClass;
import org.gpusched.placement.model.Task;
import org.junit.jupiter.api.Test;

class PolicyChoiceTest {
    private static final TargetWorkload HALVES = new TargetWorkload(List.of(new TaskClass(0, 1, 500, Set.of(), 1)));

    private static ClusterState cluster(TargetWorkload w, NodeSpec... nodes) {
        return new ClusterState(List.of(nodes), w);
    }

    private static void put(ClusterState c, Task t, int node, int gpu) {
        c.place(t, c.placementOf(t, node, gpu));
    }

    private static Placement choose(PlacementPolicy p, Task t, ClusterState c, long seed) {
        return p.choose(t, c, new RandomState(seed));
    }

    /** node 0: G2 with 700 milli free on GPU 0 (a 300 share); node 1: empty G2. */
    private static ClusterState partlyUsedAndEmpty() {
        ClusterState c = cluster(HALVES, node("a", 96000, 1 << 20, 8, "G2"), node("b", 96000, 1 << 20, 8, "G2"));
        put(c, task(0, 0, 1, 300), 0, 0);
        return c;
    }

    @Test
    void pwrPutsAShareOnAGpuAlreadyAtTdp() {
        ClusterState c = partlyUsedAndEmpty();
        for (long seed = 0; seed < 5; seed++)
            assertEquals(new Placement(0, new int[] {0}), choose(new PwrPolicy(), task(0, 0, 1, 500), c, seed));
    }

    @Test
    void pwrTakesTheLeastPowerHungryGpuModel() {
        ClusterState c = cluster(null, node("g2", 96000, 1 << 20, 8, "G2"), node("t4", 96000, 1 << 20, 2, "T4"));
        assertEquals(1, choose(new PwrPolicy(), task(1000, 0, 1, 1000), c, 1).node()); // +60 W on a T4, +120 W on a G2
    }

    @Test
    void fgdAvoidsLeavingAnUnusableSliver() {
        ClusterState c = partlyUsedAndEmpty();
        // 500 on GPU 0 would leave 200 milli no 500-task can use (+200 fragment); any whole free GPU leaves 500: +0.
        for (long seed = 0; seed < 10; seed++)
            assertNotEquals(new Placement(0, new int[] {0}), choose(new FgdPolicy(), task(0, 0, 1, 500), c, seed));
    }

    @Test
    void pwrFgdInterpolatesWithThePluginsNormalisation() {
        Task t = task(0, 0, 1, 500);
        Placement gpu0 = new Placement(0, new int[] {0});
        assertEquals(gpu0, choose(new PwrFgdPolicy(1.0), t, partlyUsedAndEmpty(), 3));
        assertNotEquals(gpu0, choose(new PwrFgdPolicy(0.0), t, partlyUsedAndEmpty(), 3));
        // 0.05*100 + 0.95*100*sigmoid(-0.2) = 47.77 beats 0.95*50 = 47.5; at alpha 0.01 it does not (45.57 < 49.5).
        assertEquals(gpu0, choose(new PwrFgdPolicy(0.05), t, partlyUsedAndEmpty(), 3));
        assertNotEquals(gpu0, choose(new PwrFgdPolicy(0.01), t, partlyUsedAndEmpty(), 3));
        assertThrows(IllegalArgumentException.class, () -> new PwrFgdPolicy(1.5));
    }

    @Test
    void bestFitAndDotProductPreferTheFullerNode() {
        ClusterState c = cluster(null, node("a", 32000, 65536, 4, "V100M16"), node("b", 32000, 65536, 4, "V100M16"));
        put(c, task(16000, 32768, 2, 1000), 1, -1);
        Task t = task(4000, 4096, 1, 1000);
        assertEquals(1, choose(new BestFitPolicy(), t, c, 7).node());
        assertEquals(1, choose(new DotProductPolicy(), t, c, 7).node());
    }

    @Test
    void bestFitPutsAShareOnTheTightestGpu() {
        ClusterState c = cluster(null, node("a", 32000, 65536, 4, "V100M16"));
        put(c, task(0, 0, 1, 300), 0, 0);
        put(c, task(0, 0, 1, 600), 0, 1);
        assertArrayEquals(
                new int[] {1},
                choose(new BestFitPolicy(), task(0, 0, 1, 400), c, 7).gpus()); // 400 free beats 700
    }

    @Test
    void gpuPackingPrefersUsedGpusThenActiveNodesThenIdleNodes() {
        ClusterState c = cluster(
                null,
                node("idle", 96000, 1 << 20, 8, "G2"),
                node("shared", 96000, 1 << 20, 8, "G2"),
                node("active", 96000, 1 << 20, 8, "G2"));
        put(c, task(1000, 0, 1, 200), 1, 5);
        put(c, task(1000, 0, 4, 1000), 2, -1);
        assertEquals(new Placement(1, new int[] {5}), choose(new GpuPackingPolicy(), task(0, 0, 1, 500), c, 1));
        assertEquals(
                2, choose(new GpuPackingPolicy(), task(0, 0, 2, 1000), c, 1).node()); // active, fewest free GPUs left
    }

    @Test
    void gpuClusteringGroupsEqualGpuDemands() {
        ClusterState c = cluster(
                null,
                node("empty", 96000, 1 << 20, 8, "G2"),
                node("halves", 96000, 1 << 20, 8, "G2"),
                node("wholes", 96000, 1 << 20, 8, "G2"));
        put(c, task(1000, 0, 1, 500), 1, 0);
        put(c, task(1000, 0, 1, 1000), 2, -1);
        assertEquals(
                1,
                choose(new GpuClusteringPolicy(), task(1000, 0, 1, 500), c, 1).node());
        assertEquals(
                2,
                choose(new GpuClusteringPolicy(), task(1000, 0, 1, 1000), c, 1).node());
        assertEquals(
                0,
                choose(new GpuClusteringPolicy(), task(1000, 0, 1, 300), c, 1).node()); // empty before a mismatch
    }

    @Test
    void randomIsSeededAndCoversFeasibleNodes() {
        ClusterState c = cluster(
                null, node("a", 8000, 1024, 1, "T4"), node("b", 8000, 1024, 1, "T4"), node("c", 100, 1024, 1, "T4"));
        Set<Integer> seen = new HashSet<>();
        for (long seed = 0; seed < 40; seed++) {
            Placement p = choose(new RandomPolicy(), task(1000, 0, 1, 1000), c, seed);
            assertEquals(p, choose(new RandomPolicy(), task(1000, 0, 1, 1000), c, seed));
            seen.add(p.node());
        }
        assertEquals(Set.of(0, 1), seen);
    }

    @Test
    void everyPolicyRespectsModelConstraintsAndReportsNoFit() {
        for (String name : PlacementPolicies.NAMES) {
            ClusterState c = cluster(HALVES, node("g2", 96000, 1 << 20, 8, "G2"), node("t4", 104000, 1 << 20, 2, "T4"));
            PlacementPolicy p = PlacementPolicies.byName(name, 0.1).get();
            Task t4Only = constrained(1000, 1, 1000, "T4");
            assertEquals(1, choose(p, t4Only, c, 5).node(), name);
            put(c, t4Only, 1, -1);
            put(c, t4Only, 1, -1);
            assertNull(choose(p, t4Only, c, 5), name + ": no T4 left");
            assertNull(choose(p, task(200000, 0, 0, 0), c, 5), name + ": no node has the CPU");
            assertTrue(choose(p, task(1000, 0, 1, 250), c, 5).node() == 0, name);
        }
        assertThrows(IllegalArgumentException.class, () -> PlacementPolicies.byName("tetris", 0));
    }
}
