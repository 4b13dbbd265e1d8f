package org.gpusched.placement.model;

/**
 * A node's capacity: CPU in milli-vCPUs, memory in MiB, {@code gpuCount} GPUs of one model (the paper: within a node all
 * GPUs and CPUs are of the same type), and its CPU model. A node with no GPU has {@code gpuCount == 0} and may have a
 * null GPU model.
 */
public record NodeSpec(String name, long cpuMilli, long memoryMiB, int gpuCount, GpuModel gpuModel, CpuModel cpuModel)
        implements java.io.Serializable {
    public NodeSpec {
        if (name == null || name.isBlank()) throw new IllegalArgumentException("node name is empty");
        if (cpuMilli < 0 || memoryMiB < 0 || gpuCount < 0)
            throw new IllegalArgumentException("node " + name + ": negative capacity");
        if (gpuCount > 0 && gpuModel == null)
            throw new IllegalArgumentException("node " + name + ": GPUs without a GPU model");
        if (cpuModel == null) throw new IllegalArgumentException("node " + name + ": no CPU model");
    }

    public String gpuModelName() {
        return gpuModel == null ? "" : gpuModel.name();
    }
}
