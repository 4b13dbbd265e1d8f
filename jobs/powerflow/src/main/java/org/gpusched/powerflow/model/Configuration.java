package org.gpusched.powerflow.model;

/**
 * One way to run a data-parallel job: {@code gpus} workers with {@code gpusPerNode} of them on each node (r of the
 * paper; equal to {@code gpus} when the job fits on one node), a per-GPU batch {@code localBatch} (global / gpus) and
 * the frequency knob {@code freq}: the GPU power limit divided by the hardware's largest limit, in (0, 1].
 */
public record Configuration(int gpus, int gpusPerNode, double localBatch, double freq) {
    public Configuration {
        if (gpus < 1 || gpusPerNode < 1 || gpusPerNode > gpus)
            throw new IllegalArgumentException("bad GPU counts: n=" + gpus + " r=" + gpusPerNode);
        if (!(localBatch > 0) || !(freq > 0))
            throw new IllegalArgumentException("bad batch " + localBatch + " or freq " + freq);
    }

    /** The configuration of {@code gpus} workers packed on nodes of {@code nodeSize} GPUs, global batch split evenly. */
    public static Configuration of(int gpus, int nodeSize, double globalBatch, double freq) {
        return new Configuration(gpus, Math.min(gpus, nodeSize), globalBatch / gpus, freq);
    }

    public boolean singleNode() {
        return gpus == gpusPerNode;
    }
}
