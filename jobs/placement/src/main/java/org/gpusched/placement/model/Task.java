package org.gpusched.placement.model;

import java.util.Set;

/**
 * A task's demand vector D_t and constraint set C_t (PWR paper, section II): CPU in milli-vCPUs, memory in MiB and a GPU
 * demand that is either none, a fraction of one GPU ({@code gpuCount == 1}, {@code 0 < gpuMilliPerGpu < 1000}) or whole
 * GPUs ({@code gpuCount >= 1}, {@code gpuMilliPerGpu == 1000}) -- never a share and whole GPUs at once. Empty model sets
 * mean "any model" (conditions 4 and 5).
 */
public record Task(
        String name,
        long cpuMilli,
        long memoryMiB,
        int gpuCount,
        int gpuMilliPerGpu,
        Set<String> gpuModels,
        Set<String> cpuModels)
        implements java.io.Serializable {
    public static final int MILLI = 1000;

    public enum GpuKind {
        NONE,
        SHARED,
        WHOLE
    }

    public Task {
        if (cpuMilli < 0 || memoryMiB < 0)
            throw new IllegalArgumentException("task " + name + ": negative CPU or memory");
        if (gpuCount < 0 || gpuMilliPerGpu < 0 || gpuMilliPerGpu > MILLI)
            throw new IllegalArgumentException("task " + name + ": GPU demand out of range");
        if ((gpuCount == 0) != (gpuMilliPerGpu == 0))
            throw new IllegalArgumentException(
                    "task " + name + ": num_gpu " + gpuCount + " with gpu_milli " + gpuMilliPerGpu);
        if (gpuCount > 1 && gpuMilliPerGpu < MILLI)
            throw new IllegalArgumentException(
                    "task " + name + ": a task either shares one GPU or takes whole GPUs, not " + gpuCount + " x "
                            + gpuMilliPerGpu + " milli");
        gpuModels = gpuModels == null ? Set.of() : Set.copyOf(gpuModels);
        cpuModels = cpuModels == null ? Set.of() : Set.copyOf(cpuModels);
    }

    public static Task of(String name, long cpuMilli, long memoryMiB, int gpuCount, int gpuMilliPerGpu) {
        return new Task(name, cpuMilli, memoryMiB, gpuCount, gpuMilliPerGpu, Set.of(), Set.of());
    }

    /** The same task asking for no memory (condition 2 always holds), as in the FGD simulator's resource model. */
    public Task withoutMemory() {
        return new Task(name, cpuMilli, 0, gpuCount, gpuMilliPerGpu, gpuModels, cpuModels);
    }

    public GpuKind kind() {
        if (gpuCount == 0) return GpuKind.NONE;
        return gpuMilliPerGpu < MILLI ? GpuKind.SHARED : GpuKind.WHOLE;
    }

    /** D_t^GPU in milli-GPUs: the share, or 1000 per whole GPU. */
    public long gpuMilliTotal() {
        return (long) gpuCount * gpuMilliPerGpu;
    }
}
