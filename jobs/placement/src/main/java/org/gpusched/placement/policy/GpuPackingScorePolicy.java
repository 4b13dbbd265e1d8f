package org.gpusched.placement.policy;

import org.gpusched.placement.model.ClusterState;
import org.gpusched.placement.model.Task;

/**
 * The FGD simulator's GpuPackingScore: a node with every GPU free scores max(33 - free GPUs, free GPUs); a node that
 * would give the task fully free GPUs (its GPUs taken tightest first) scores max(50 - such GPUs, 33); otherwise, the task
 * going on partly used GPUs, 100 - (sum over them of their free percent) / 10, at least 50. CPU-only tasks score 0
 * everywhere (the node name decides). A share goes on the tightest GPU.
 */
public final class GpuPackingScorePolicy extends SimulatorScorePolicy {
    @Override
    public String name() {
        return "gpu-packing";
    }

    @Override
    protected long score(Task task, ClusterState cluster, int node) {
        if (task.gpuCount() == 0) return 0;
        int gpus = cluster.gpuCount(node), fullyFree = cluster.fullFreeGpus(node);
        if (fullyFree == gpus) return Math.max(100 / 3 - fullyFree, fullyFree);
        if (task.kind() == Task.GpuKind.WHOLE) return Math.max(100 / 2 - task.gpuCount(), 100 / 3);
        int g = cluster.tightestGpu(task, node);
        int free = cluster.gpuFree(node, g);
        if (free == Task.MILLI) return Math.max(100 / 2 - 1, 100 / 3);
        return Math.max(100 - (free * 100L / Task.MILLI) / 10, 100 / 2);
    }
}
