package org.gpusched.placement.policy;

import org.gpusched.placement.model.ClusterState;
import org.gpusched.placement.model.Task;

/**
 * gpu-packing-tight: GPU packing (MLaaS in the wild): first a GPU already in use (a share on a partly used GPU), then idle GPUs on active
 * nodes, lastly idle nodes, to keep whole nodes free for multi-GPU tasks. Within a tier the node with the least free
 * GPU milli after placement wins.
 * Exact scores, random ties: a variant of this product; the FGD simulator's definition is {@link GpuPackingScorePolicy}.
 */
public final class GpuPackingPolicy extends MinScorePolicy {
    public GpuPackingPolicy() {
        super(false);
    }

    @Override
    public String name() {
        return "gpu-packing-tight";
    }

    @Override
    protected double score(Task task, ClusterState cluster, int node, int sharedGpu) {
        int tier;
        if (sharedGpu >= 0 && cluster.gpuFree(node, sharedGpu) < Task.MILLI) tier = 0;
        else if (cluster.tasksOnNode(node) > 0) tier = 1;
        else tier = 2;
        return tier * 1e7 + (cluster.gpuFreeTotal(node) - task.gpuMilliTotal());
    }
}
