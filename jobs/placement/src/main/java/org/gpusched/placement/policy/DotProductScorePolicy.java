package org.gpusched.placement.policy;

import org.gpusched.placement.model.ClusterState;
import org.gpusched.placement.model.Task;

/**
 * The FGD simulator's DotProductScore as its experiments run it (dimension method "merge", normalisation "max", GPU
 * selection "best"): the node's free (CPU, total GPU milli) and the task's (CPU, total GPU milli), both divided by the
 * largest node spec (128 vCPUs, 8 GPUs), dot product halved; score = int64(100 x (1 - dot)), so the smallest dot
 * product wins. A share goes on the tightest GPU.
 */
public final class DotProductScorePolicy extends SimulatorScorePolicy {
    @Override
    public String name() {
        return "dotprod";
    }

    @Override
    protected long score(Task task, ClusterState cluster, int node) {
        double cpu = BestFitScorePolicy.MAX_SPEC_CPU_MILLI, gpu = BestFitScorePolicy.MAX_SPEC_GPU_MILLI;
        double dot = (cluster.cpuFree(node) / cpu) * (task.cpuMilli() / cpu)
                + (cluster.gpuFreeTotal(node) / gpu) * (task.gpuMilliTotal() / gpu);
        return (long) (100 * (1 - dot / 2));
    }
}
