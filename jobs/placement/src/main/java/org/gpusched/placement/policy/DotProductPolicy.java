package org.gpusched.placement.policy;

import org.gpusched.placement.model.ClusterState;
import org.gpusched.placement.model.NodeSpec;
import org.gpusched.placement.model.Task;

/**
 * dotprod-3d: Dot product (Tetris, as described by the PWR paper): the node with the smallest dot product between its free
 * resources and the task's demand, both as shares of the node's capacity over CPU, memory and GPU.
 * Exact scores, random ties: a variant of this product; the FGD simulator's definition is {@link DotProductScorePolicy}.
 */
public final class DotProductPolicy extends MinScorePolicy {
    public DotProductPolicy() {
        super(false);
    }

    @Override
    public String name() {
        return "dotprod-3d";
    }

    @Override
    protected double score(Task task, ClusterState cluster, int node, int sharedGpu) {
        NodeSpec s = cluster.spec(node);
        double cpuCap = Math.max(1, s.cpuMilli()), memCap = Math.max(1, s.memoryMiB());
        double dot = (cluster.cpuFree(node) / cpuCap) * (task.cpuMilli() / cpuCap)
                + (cluster.memFree(node) / memCap) * (task.memoryMiB() / memCap);
        if (s.gpuCount() > 0) {
            double gpuCap = s.gpuCount() * (double) Task.MILLI;
            dot += (cluster.gpuFreeTotal(node) / gpuCap) * (task.gpuMilliTotal() / gpuCap);
        }
        return dot;
    }
}
