package org.gpusched.placement.policy;

import org.gpusched.placement.model.ClusterState;
import org.gpusched.placement.model.Task;

/**
 * The FGD simulator's GpuClusteringScore. Affinity classes: every share is one class, whole GPUs one class per count.
 * With L = 25 x (8000 - free GPU milli of the node) / 8000 (integer arithmetic): a node hosting only the task's class
 * scores 75 + L, one hosting it among others 50 + L, a node hosting no GPU task 25 + L, any other node L. CPU-only tasks
 * score 0 everywhere (the node name decides). A share goes on the tightest GPU.
 */
public final class GpuClusteringScorePolicy extends SimulatorScorePolicy {
    @Override
    public String name() {
        return "gpu-clustering";
    }

    @Override
    protected long score(Task task, ClusterState cluster, int node) {
        if (task.gpuCount() == 0) return 0;
        long level = 25L * (8_000 - cluster.gpuFreeTotal(node)) / 8_000;
        int affinities = cluster.gpuAffinitiesOnNode(node);
        if (cluster.sameGpuAffinityOnNode(node, task) > 0) return level + (affinities == 1 ? 75 : 50);
        return level + (affinities == 0 ? 25 : 0);
    }
}
