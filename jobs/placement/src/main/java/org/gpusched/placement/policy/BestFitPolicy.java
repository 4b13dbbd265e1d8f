package org.gpusched.placement.policy;

import org.gpusched.placement.model.ClusterState;
import org.gpusched.placement.model.NodeSpec;
import org.gpusched.placement.model.Task;

/**
 * bestfit-3d: Best fit (Protean): the node left with the least resources, as the equally weighted sum over CPU, memory and GPU of
 * the free share of each dimension after the placement; a share goes on the tightest GPU.
 * Exact scores, random ties: a variant of this product; the FGD simulator's definition is {@link BestFitScorePolicy}.
 */
public final class BestFitPolicy extends MinScorePolicy {
    public BestFitPolicy() {
        super(false);
    }

    @Override
    public String name() {
        return "bestfit-3d";
    }

    @Override
    protected double score(Task task, ClusterState cluster, int node, int sharedGpu) {
        NodeSpec s = cluster.spec(node);
        double cpu = (double) (cluster.cpuFree(node) - task.cpuMilli()) / Math.max(1, s.cpuMilli());
        double mem = (double) (cluster.memFree(node) - task.memoryMiB()) / Math.max(1, s.memoryMiB());
        double gpu = s.gpuCount() == 0
                ? 0
                : (double) (cluster.gpuFreeTotal(node) - task.gpuMilliTotal()) / (s.gpuCount() * (double) Task.MILLI);
        return cpu + mem + gpu;
    }
}
