package org.gpusched.placement.policy;

import org.gpusched.core.random.RandomState;
import org.gpusched.placement.model.ClusterState;
import org.gpusched.placement.model.Placement;
import org.gpusched.placement.model.Task;

/**
 * A policy that scores every feasible (node, GPU) candidate and takes the lowest score, breaking exact ties uniformly at
 * random by reservoir sampling (as the Kubernetes scheduler picks among equal top scores), so no node order is
 * favoured. For a GPU share, either every distinct free amount on the node is a candidate (policies that care which
 * GPU, e.g. FGD and PWR) or only the tightest-fitting GPU (best fit, the simulator's default GPU choice).
 */
public abstract class MinScorePolicy implements PlacementPolicy {
    private final boolean everyGpuOption;

    protected MinScorePolicy(boolean everyGpuOption) {
        this.everyGpuOption = everyGpuOption;
    }

    /** Lower is better. {@code sharedGpu} is the GPU for a share, -1 otherwise. */
    protected abstract double score(Task task, ClusterState cluster, int node, int sharedGpu);

    /** Called once per decision before scoring (e.g. to fetch cached values). */
    protected void beginDecision(Task task, ClusterState cluster) {}

    @Override
    public Placement choose(Task task, ClusterState cluster, RandomState random) {
        beginDecision(task, cluster);
        int bestNode = -1, bestGpu = -1, ties = 0;
        double best = Double.POSITIVE_INFINITY;
        boolean shared = task.kind() == Task.GpuKind.SHARED;
        for (int node : cluster.candidates(task)) {
            if (!cluster.fits(task, node)) continue;
            if (!shared) {
                double s = score(task, cluster, node, -1);
                if (s < best) {
                    best = s;
                    bestNode = node;
                    ties = 1;
                } else if (s == best && random.nextInt(++ties) == 0) bestNode = node;
                continue;
            }
            if (!everyGpuOption) {
                int g = cluster.tightestGpu(task, node);
                double s = score(task, cluster, node, g);
                if (s < best) {
                    best = s;
                    bestNode = node;
                    bestGpu = g;
                    ties = 1;
                } else if (s == best && random.nextInt(++ties) == 0) {
                    bestNode = node;
                    bestGpu = g;
                }
                continue;
            }
            int gpus = cluster.gpuCount(node);
            for (int g = 0; g < gpus; g++) {
                int free = cluster.gpuFree(node, g);
                if (free < task.gpuMilliPerGpu() || seenEarlier(cluster, node, g, free)) continue;
                double s = score(task, cluster, node, g);
                if (s < best) {
                    best = s;
                    bestNode = node;
                    bestGpu = g;
                    ties = 1;
                } else if (s == best && random.nextInt(++ties) == 0) {
                    bestNode = node;
                    bestGpu = g;
                }
            }
        }
        return bestNode < 0 ? null : cluster.placementOf(task, bestNode, bestGpu);
    }

    /** GPUs with equal free milli give the same node state once the share is placed: score the first only. */
    static boolean seenEarlier(ClusterState cluster, int node, int gpu, int free) {
        for (int h = 0; h < gpu; h++) if (cluster.gpuFree(node, h) == free) return true;
        return false;
    }
}
