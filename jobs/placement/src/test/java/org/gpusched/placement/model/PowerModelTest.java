package org.gpusched.placement.model;

import static org.gpusched.placement.model.Nodes.node;
import static org.gpusched.placement.model.Nodes.task;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

class PowerModelTest {
    private static final CpuModel XEON = PowerCatalog.XEON_E5_2682_V4; // 15 W idle, 120 W max, 32 vCPUs per package

    @Test
    void cpuPackagesTouchedDrawMaxAndWholeIdleOnesIdle() {
        assertEquals(3 * 15.0, PowerModel.cpuWatts(XEON, 96000, 96000), 1e-9); // empty: 3 idle packages
        assertEquals(120 + 2 * 15.0, PowerModel.cpuWatts(XEON, 96000, 95500), 1e-9); // 0.5 vCPU busy: 1 package at max
        assertEquals(
                2 * 120 + 1 * 15.0,
                PowerModel.cpuWatts(XEON, 96000, 63000),
                1e-9); // 33 busy: ceil(33/32)=2, floor(63/32)=1
        assertEquals(3 * 120.0, PowerModel.cpuWatts(XEON, 96000, 0), 1e-9);
        // 104 vCPU (T4 nodes) = 52 cores in ceil(52/16) = 4 packages, as the PWR plugin counts them
        assertEquals(4 * 120.0, PowerModel.cpuWatts(XEON, 104000, 4000), 1e-9);
        assertEquals(4 * 15.0, PowerModel.cpuWatts(XEON, 104000, 104000), 1e-9); // empty: 4 idle (eq. 1 literally: 3)
        assertEquals(120 + 3 * 15.0, PowerModel.cpuWatts(XEON, 104000, 103000), 1e-9);
        // 40 busy of 104: 20 working cores -> 2 packages at max, the other 2 idle (eq. 1 literally: floor(64/32) = 2)
        assertEquals(2 * 120 + 2 * 15.0, PowerModel.cpuWatts(XEON, 104000, 64000), 1e-9);
        // 1 busy vCPU of 104 whose other half-core is free: the core works, 1 package at max
        assertEquals(120 + 3 * 15.0, PowerModel.cpuWatts(XEON, 104000, 103500), 1e-9);
    }

    @Test
    void anyAllocationPutsAGpuAtTdp() {
        GpuModel g2 = PowerCatalog.gpu("G2");
        assertEquals(
                8 * 30.0, PowerModel.gpuWatts(g2, new int[] {1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000}, 8), 1e-9);
        assertEquals(
                2 * 150 + 6 * 30.0,
                PowerModel.gpuWatts(g2, new int[] {999, 0, 1000, 1000, 1000, 1000, 1000, 1000}, 8),
                1e-9);
    }

    @Test
    void nodeAndDatacenterPowerFollowPlacementsIncrementally() {
        ClusterState c = new ClusterState(
                List.of(node("g2", 96000, 393216, 8, "G2"), node("t4", 104000, 524288, 2, "T4")), null);
        assertEquals(45 + 240 + 60 + 20, c.eopcCpuWatts() + c.eopcGpuWatts(), 1e-9);
        Task share = task(4000, 1024, 1, 500);
        assertEquals(150 + 150 + 7 * 30, c.powerAfter(share, 0, 3), 1e-9);
        c.place(share, c.placementOf(share, 0, 3));
        assertEquals(150 + 360, c.nodeWatts(0), 1e-9);
        assertEquals(c.nodeWatts(0), c.powerAfter(task(0, 0, 1, 500), 0, 3), 1e-9); // same GPU, no CPU: no more watts
        Task two = task(40000, 1024, 2, 1000);
        assertEquals(
                2 * 120 + 2 * 15 + 2 * 70, c.powerAfter(two, 1, -1), 1e-9); // 40 busy vCPU: 2 packages; 64 free: 2 idle
        c.place(two, c.placementOf(two, 1, -1));
        assertEquals(150 + 270, c.eopcCpuWatts(), 1e-9);
        assertEquals(360 + 140, c.eopcGpuWatts(), 1e-9);
        c.release(two, new Placement(1, new int[] {0, 1}));
        c.release(share, new Placement(0, new int[] {3}));
        assertEquals(45 + 240 + 60 + 20, c.eopcCpuWatts() + c.eopcGpuWatts(), 1e-9);
    }
}
