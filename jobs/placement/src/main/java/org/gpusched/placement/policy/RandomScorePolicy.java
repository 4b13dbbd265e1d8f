package org.gpusched.placement.policy;

import java.util.Arrays;
import org.gpusched.core.random.RandomState;
import org.gpusched.placement.model.ClusterState;
import org.gpusched.placement.model.Placement;
import org.gpusched.placement.model.Task;

/**
 * The FGD simulator's RandomScore with GPU selection "random": a node drawn uniformly among the feasible ones, and for a
 * share a GPU drawn uniformly among the node's GPUs that hold it.
 */
public final class RandomScorePolicy implements PlacementPolicy {
    private int[] feasible = new int[2048];

    @Override
    public String name() {
        return "random";
    }

    @Override
    public Placement choose(Task task, ClusterState cluster, RandomState random) {
        int count = 0;
        for (int node : cluster.candidates(task)) {
            if (!cluster.fits(task, node)) continue;
            if (count == feasible.length) feasible = Arrays.copyOf(feasible, count * 2);
            feasible[count++] = node;
        }
        if (count == 0) return null;
        int node = feasible[random.nextInt(count)];
        int gpu = -1;
        if (task.kind() == Task.GpuKind.SHARED) {
            int fitting = 0;
            for (int g = 0; g < cluster.gpuCount(node); g++)
                if (cluster.gpuFree(node, g) >= task.gpuMilliPerGpu() && random.nextInt(++fitting) == 0) gpu = g;
        }
        return cluster.placementOf(task, node, gpu);
    }
}
