package org.gpusched.placement.model;

/**
 * The PWR paper's estimated power of a node (eq. 1 and 2; their sum over nodes is eq. 3, the EOPC).
 *
 * <p>CPU (eq. 1): every CPU package touched by an allocation draws its max watts, every package left whole idle draws its
 * idle watts: {@code pmax * ceil(allocated / perPackage) + pidle * floor(free / perPackage)}, vCPUs counted in milli.
 * GPU (eq. 2): a GPU with any allocation (even a share) draws its TDP, an unallocated one its idle watts.
 */
public final class PowerModel {
    private PowerModel() {}

    public static double cpuWatts(CpuModel cpu, long capacityMilli, long freeMilli) {
        long perPackage = cpu.milliVcpusPerPackage();
        long allocated = capacityMilli - freeMilli;
        long busyPackages = (allocated + perPackage - 1) / perPackage;
        long idlePackages = freeMilli / perPackage;
        return cpu.maxWatts() * busyPackages + cpu.idleWatts() * idlePackages;
    }

    public static double gpuWatts(GpuModel gpu, int[] gpuFreeMilli, int gpuCount) {
        if (gpuCount == 0) return 0;
        int busy = 0;
        for (int g = 0; g < gpuCount; g++) if (gpuFreeMilli[g] < Task.MILLI) busy++;
        return gpu.maxWatts() * busy + gpu.idleWatts() * (gpuCount - busy);
    }
}
