package org.gpusched.core.model;

/** Where a job runs: node index, the node's type index at that time, and the number of dedicated GPUs. */
public record Placement(int node, int type, int gpus) {
    public Placement {
        if (node < 0 || type < 0 || gpus < 1)
            throw new IllegalArgumentException("placement: node " + node + ", type " + type + ", gpus " + gpus);
    }
}
