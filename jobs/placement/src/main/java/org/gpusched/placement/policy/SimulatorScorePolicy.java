package org.gpusched.placement.policy;

import org.gpusched.core.random.RandomState;
import org.gpusched.placement.model.ClusterState;
import org.gpusched.placement.model.Placement;
import org.gpusched.placement.model.Task;

/**
 * A score plugin of the FGD simulator (hkust-adsl/kubernetes-scheduler-simulator) as its scheduler runs it: every
 * feasible node gets an integer score (the plugin's int64, usually truncated from a float), the highest wins, and among
 * equal scores the node with the smallest name, i.e. the smallest {@link ClusterState#tieRank} (the simulator's
 * selectHost). Coarse integer scores make ties frequent, so the name order decides much of the packing. The GPU of a
 * share is chosen after the node, by {@link #gpuFor} (the simulator's GPU selection method; best fit by default).
 */
public abstract class SimulatorScorePolicy implements PlacementPolicy {
    /** The plugin's integer score of placing the task on the node (higher is better); the node fits the task. */
    protected abstract long score(Task task, ClusterState cluster, int node);

    /** The GPU a share takes on the chosen node: best fit (least free milli that holds it, first on equal free). */
    protected int gpuFor(Task task, ClusterState cluster, int node, RandomState random) {
        return cluster.tightestGpu(task, node);
    }

    @Override
    public Placement choose(Task task, ClusterState cluster, RandomState random) {
        int bestNode = -1;
        long best = Long.MIN_VALUE;
        for (int node : cluster.candidates(task)) {
            if (!cluster.fits(task, node)) continue;
            long s = score(task, cluster, node);
            if (s > best || (s == best && cluster.tieRank(node) < cluster.tieRank(bestNode))) {
                best = s;
                bestNode = node;
            }
        }
        if (bestNode < 0) return null;
        int gpu = task.kind() == Task.GpuKind.SHARED ? gpuFor(task, cluster, bestNode, random) : -1;
        return cluster.placementOf(task, bestNode, gpu);
    }
}
