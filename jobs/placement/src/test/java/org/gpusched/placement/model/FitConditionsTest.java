package org.gpusched.placement.model;

import static org.gpusched.placement.model.Nodes.constrained;
import static org.gpusched.placement.model.Nodes.node;
import static org.gpusched.placement.model.Nodes.task;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class FitConditionsTest {
    private static ClusterState one(NodeSpec n) {
        return new ClusterState(List.of(n), null);
    }

    @Test
    void cpuAndMemoryAreConditionsOneAndTwo() {
        ClusterState c = one(node("n", 8000, 1024, 0, null));
        assertTrue(c.fits(task(8000, 1024, 0, 0), 0));
        assertFalse(c.fits(task(8001, 1024, 0, 0), 0));
        assertFalse(c.fits(task(8000, 1025, 0, 0), 0));
    }

    @Test
    void wholeGpusNeedThatManyUnallocatedGpus() {
        ClusterState c = one(node("n", 64000, 1 << 20, 4, "V100M16"));
        assertTrue(c.fits(task(1000, 0, 4, 1000), 0));
        c.place(task(1000, 0, 1, 300), c.placementOf(task(1000, 0, 1, 300), 0, 0)); // GPU 0 becomes partly used
        assertFalse(c.fits(task(1000, 0, 4, 1000), 0), "a partly used GPU is not a whole free one (u_n = 3.7)");
        assertTrue(c.fits(task(1000, 0, 3, 1000), 0));
        assertEquals(3, c.fullFreeGpus(0));
    }

    @Test
    void aShareNeedsOneGpuWithThatMuchFree() {
        ClusterState c = one(node("n", 64000, 1 << 20, 2, "T4"));
        // Paper's literal condition 3 (D <= u_n - floor(u_n) = 0 on an empty node) would reject this; the simulator
        // admits it.
        assertTrue(c.fits(task(1000, 0, 1, 500), 0));
        Task big = task(1000, 0, 1, 700);
        c.place(big, c.placementOf(big, 0, 0));
        c.place(big, c.placementOf(big, 0, 1)); // both GPUs at 300 free: 600 free in total, but no single GPU has 400
        assertFalse(c.fits(task(1000, 0, 1, 400), 0));
        assertTrue(c.fits(task(1000, 0, 1, 300), 0));
        assertEquals(300, c.maxGpuFree(0));
    }

    @Test
    void gpuModelConstraintIsConditionFive() {
        ClusterState c = new ClusterState(
                List.of(node("g2", 96000, 1 << 20, 8, "G2"), node("t4", 104000, 1 << 20, 2, "T4")), null);
        Task onlyT4 = constrained(1000, 1, 500, "T4");
        assertFalse(c.fits(onlyT4, 0));
        assertTrue(c.fits(onlyT4, 1));
        assertArrayEquals(new int[] {1}, c.candidates(onlyT4));
        Task either = constrained(1000, 1, 1000, "T4", "G2");
        assertTrue(c.fits(either, 0) && c.fits(either, 1));
        assertFalse(c.fits(constrained(1000, 0, 0, "P100"), 1), "a model constraint applies to CPU-only tasks too");
    }

    @Test
    void cpuModelConstraintIsConditionFour() {
        ClusterState c = one(node("n", 8000, 1024, 0, null));
        assertFalse(c.fits(new Task("x", 1, 1, 0, 0, Set.of(), Set.of("EPYC")), 0));
        assertTrue(c.fits(new Task("x", 1, 1, 0, 0, Set.of(), Set.of(PowerCatalog.XEON_E5_2682_V4.name())), 0));
    }

    @Test
    void aTaskNeverSharesAndTakesWholeGpusAtOnce() {
        assertThrows(IllegalArgumentException.class, () -> Task.of("x", 1, 1, 2, 500));
        assertThrows(IllegalArgumentException.class, () -> Task.of("x", 1, 1, 0, 500));
        assertEquals(Task.GpuKind.SHARED, Task.of("x", 1, 1, 1, 999).kind());
        assertEquals(Task.GpuKind.WHOLE, Task.of("x", 1, 1, 2, 1000).kind());
    }

    @Test
    void placingWhatDoesNotFitIsRefusedAndReleaseRestoresTheNode() {
        ClusterState c = one(node("n", 8000, 1024, 2, "T4"));
        Task t = task(6000, 512, 1, 1000);
        Placement p = c.placementOf(t, 0, -1);
        c.place(t, p);
        assertThrows(IllegalStateException.class, () -> c.place(t, p));
        c.release(t, p);
        assertEquals(8000, c.cpuFree(0));
        assertEquals(1024, c.memFree(0));
        assertEquals(2, c.fullFreeGpus(0));
        assertEquals(0, c.gpuMilliAllocated());
        assertThrows(IllegalStateException.class, () -> c.release(t, p));
    }
}
