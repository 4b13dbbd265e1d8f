package org.gpusched.placement.policy;

import org.gpusched.placement.model.ClusterState;
import org.gpusched.placement.model.Task;

/**
 * The FGD simulator's BestFitScore: over CPU and GPU only, the free resources left after placement as shares of the
 * largest node spec (128 vCPUs, 8 GPUs), weighted 0.5 each; score = int64(100 x (1 - that)). Its min-max
 * normalisation (NormalizeScore) maps scores of at most 100 apart one-to-one and in order, so it changes no choice and
 * is left out. A share goes on the tightest GPU (GPU selection "best").
 */
public final class BestFitScorePolicy extends SimulatorScorePolicy {
    static final double MAX_SPEC_CPU_MILLI = 128_000;
    static final double MAX_SPEC_GPU_MILLI = 8_000;

    @Override
    public String name() {
        return "bestfit";
    }

    @Override
    protected long score(Task task, ClusterState cluster, int node) {
        double left = (cluster.cpuFree(node) - task.cpuMilli()) / MAX_SPEC_CPU_MILLI * 0.5
                + (cluster.gpuFreeTotal(node) - task.gpuMilliTotal()) / MAX_SPEC_GPU_MILLI * 0.5;
        return (long) ((1.0 - left) * 100);
    }
}
