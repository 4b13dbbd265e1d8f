package org.gpusched.placement.model;

/**
 * The PWR paper's estimated power of a node (eq. 1 and 2; their sum over nodes is eq. 3, the EOPC).
 *
 * <p>CPU (eq. 1) as the authors' PWR plugin computes it (GetEnergyConsumptionNode): the node has ceil(vCPUs / 2) physical
 * cores in ceil(cores / coresPerPackage) packages; a core with any allocated vCPU is working (idle cores =
 * floor(free vCPUs / 2)); ceil(working cores / coresPerPackage) packages draw their max watts, the rest their idle watts.
 * On a node whose vCPU count is a multiple of 2 x coresPerPackage this equals the paper's
 * {@code pmax * ceil(allocated / perPackage) + pidle * floor(free / perPackage)}; on the others (e.g. 104 vCPUs = 52 cores
 * in 4 packages) the literal equation would count only floor(104 / 32) = 3 idle packages on an empty node.
 * GPU (eq. 2): a GPU with any allocation (even a share) draws its TDP, an unallocated one its idle watts.
 */
public final class PowerModel {
    private PowerModel() {}

    public static double cpuWatts(CpuModel cpu, long capacityMilli, long freeMilli) {
        long milliPerCore = 1000L * cpu.vcpusPerCore();
        long cores = (capacityMilli + milliPerCore - 1) / milliPerCore;
        long idleCores = freeMilli / milliPerCore;
        long workingCores = cores - idleCores;
        long packages = (cores + cpu.physicalCores() - 1) / cpu.physicalCores();
        long busyPackages = (workingCores + cpu.physicalCores() - 1) / cpu.physicalCores();
        return cpu.maxWatts() * busyPackages + cpu.idleWatts() * (packages - busyPackages);
    }

    public static double gpuWatts(GpuModel gpu, int[] gpuFreeMilli, int gpuCount) {
        if (gpuCount == 0) return 0;
        int busy = 0;
        for (int g = 0; g < gpuCount; g++) if (gpuFreeMilli[g] < Task.MILLI) busy++;
        return gpu.maxWatts() * busy + gpu.idleWatts() * (gpuCount - busy);
    }
}
