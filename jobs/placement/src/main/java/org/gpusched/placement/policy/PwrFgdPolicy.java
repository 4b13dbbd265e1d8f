package org.gpusched.placement.policy;

import java.util.Arrays;
import org.gpusched.core.random.RandomState;
import org.gpusched.placement.model.ClusterState;
import org.gpusched.placement.model.Placement;
import org.gpusched.placement.model.Task;

/**
 * alpha * PWR + (1 - alpha) * FGD (eq. 5 as the PWR paper runs it: a linear combination of the two Kubernetes score
 * plugins' scores, highest wins). Following the authors' plugins: PWR's score is the power saving -delta_P min-max
 * normalised to [0, 100] over all candidates of the decision; FGD's is 100 * sigmoid(-delta_F / 1 GPU). Scores are kept
 * as doubles by default; with {@code pluginIntegerScores} they are truncated to integers as the Go plugins do
 * (PWR's raw score is int64(P_before - P_after), min-max normalised with integer division; FGD's is
 * int64(100 * sigmoid)), which turns small differences into ties. Ties are broken at random (reservoir sampling, as
 * the Kubernetes scheduler picks among equal top scores). alpha = 0 orders candidates as {@link FgdPolicy} does and
 * alpha = 1 as {@link PwrPolicy}; with integer scores those two are the plugin-faithful FGD and PWR.
 *
 * <p>One pass computes delta_P and delta_F for every feasible (node, GPU) candidate into reusable arrays, a second pass
 * normalises and picks, so the decision is O(candidates) with no allocation once the arrays have grown.
 */
public final class PwrFgdPolicy implements PlacementPolicy {
    private final double alpha;
    private final boolean pluginIntegerScores;
    private int[] nodes = new int[2048];
    private int[] gpus = new int[2048];
    private double[] dPower = new double[2048];
    private double[] dFrag = new double[2048];

    public PwrFgdPolicy(double alpha) { this(alpha, false); }

    public PwrFgdPolicy(double alpha, boolean pluginIntegerScores) {
        if (!(alpha >= 0 && alpha <= 1)) throw new IllegalArgumentException("alpha must be in [0, 1], got " + alpha);
        this.alpha = alpha;
        this.pluginIntegerScores = pluginIntegerScores;
    }

    public double alpha() { return alpha; }

    @Override public String name() { return "pwr-fgd"; }

    @Override
    public Placement choose(Task task, ClusterState cluster, RandomState random) {
        int count = 0;
        boolean shared = task.kind() == Task.GpuKind.SHARED;
        for (int node : cluster.candidates(task)) {
            if (!cluster.fits(task, node)) continue;
            if (!shared) {
                count = add(count, task, cluster, node, -1);
                continue;
            }
            int n = cluster.gpuCount(node);
            for (int g = 0; g < n; g++) {
                int free = cluster.gpuFree(node, g);
                if (free >= task.gpuMilliPerGpu() && !MinScorePolicy.seenEarlier(cluster, node, g, free))
                    count = add(count, task, cluster, node, g);
            }
        }
        if (count == 0) return null;
        double minP = Double.POSITIVE_INFINITY, maxP = Double.NEGATIVE_INFINITY;
        for (int i = 0; i < count; i++) {
            if (pluginIntegerScores) dPower[i] = (long) dPower[i]; // Go's int64(old - new) truncates toward zero
            minP = Math.min(minP, dPower[i]);
            maxP = Math.max(maxP, dPower[i]);
        }
        double best = Double.NEGATIVE_INFINITY;
        int bestIndex = -1, ties = 0;
        for (int i = 0; i < count; i++) {
            double pwr = maxP == minP ? 100 : 100 * (maxP - dPower[i]) / (maxP - minP);
            double fgd = 100 / (1 + Math.exp(dFrag[i] / Task.MILLI));
            if (pluginIntegerScores) {
                pwr = maxP == minP ? 100 : Math.floor(pwr + 1e-9);
                fgd = (long) fgd;
            }
            double s = alpha * pwr + (1 - alpha) * fgd;
            if (s > best) { best = s; bestIndex = i; ties = 1; }
            else if (s == best && random.nextInt(++ties) == 0) bestIndex = i;
        }
        return cluster.placementOf(task, nodes[bestIndex], gpus[bestIndex]);
    }

    private int add(int count, Task task, ClusterState cluster, int node, int gpu) {
        if (count == nodes.length) {
            int size = count * 2;
            nodes = Arrays.copyOf(nodes, size);
            gpus = Arrays.copyOf(gpus, size);
            dPower = Arrays.copyOf(dPower, size);
            dFrag = Arrays.copyOf(dFrag, size);
        }
        nodes[count] = node;
        gpus[count] = gpu;
        dPower[count] = cluster.powerAfter(task, node, gpu) - cluster.nodeWatts(node);
        dFrag[count] = cluster.fragmentationAfter(task, node, gpu) - cluster.nodeFragmentationMilli(node);
        return count + 1;
    }
}
