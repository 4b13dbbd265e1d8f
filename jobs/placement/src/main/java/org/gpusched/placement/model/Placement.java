package org.gpusched.placement.model;

import java.util.Arrays;

/** Where a task goes: a node index and the GPU indices on it it takes (none for CPU-only, one for a share, k for k whole GPUs). */
public record Placement(int node, int[] gpus) {
    public Placement {
        gpus = gpus == null ? new int[0] : gpus.clone();
    }

    @Override
    public int[] gpus() {
        return gpus.clone();
    }

    public int gpu(int i) {
        return gpus[i];
    }

    public int gpuCount() {
        return gpus.length;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Placement p && p.node == node && Arrays.equals(p.gpus, gpus);
    }

    @Override
    public int hashCode() {
        return 31 * node + Arrays.hashCode(gpus);
    }

    @Override
    public String toString() {
        return "node " + node + " gpus " + Arrays.toString(gpus);
    }
}
