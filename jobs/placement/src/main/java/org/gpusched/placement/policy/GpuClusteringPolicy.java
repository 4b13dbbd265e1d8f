package org.gpusched.placement.policy;

import org.gpusched.placement.model.ClusterState;
import org.gpusched.placement.model.Task;

/**
 * gpu-clustering-demand: GPU clustering (Gandiva's affinity): a GPU task goes preferably to a node already hosting tasks with the same GPU
 * demand, then to a node hosting no task, then anywhere; within a tier the node with most same-demand tasks, then at
 * random. CPU-only tasks have no GPU demand to cluster by and go to a random feasible node.
 * Exact scores, random ties: a variant of this product; the FGD simulator's definition is {@link GpuClusteringScorePolicy}.
 */
public final class GpuClusteringPolicy extends MinScorePolicy {
    public GpuClusteringPolicy() {
        super(false);
    }

    @Override
    public String name() {
        return "gpu-clustering-demand";
    }

    @Override
    protected double score(Task task, ClusterState cluster, int node, int sharedGpu) {
        if (task.gpuCount() == 0) return 0;
        int same = cluster.sameGpuDemandOnNode(node, task);
        if (same > 0) return -same;
        return cluster.tasksOnNode(node) == 0 ? 1 : 2;
    }
}
