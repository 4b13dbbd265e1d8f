package org.gpusched.placement.policy;

import java.util.Arrays;
import org.gpusched.core.random.RandomState;
import org.gpusched.placement.model.ClusterState;
import org.gpusched.placement.model.Placement;
import org.gpusched.placement.model.Task;

/**
 * alpha * PWR + (1 - alpha) * FGD (eq. 5 as the PWR paper runs it: a linear combination of the two Kubernetes score
 * plugins' scores, highest wins). Following the authors' plugins: PWR's score is the power saving -delta_P min-max
 * normalised to [0, 100] over all candidates of the decision; FGD's is 100 * sigmoid(-delta_F / 1 GPU).
 *
 * <p>With {@code pluginScores} (the default of fgd, pwr and pwr-fgd) the scores are integers as the Go plugins compute
 * them (PWR's raw score is int64(P_before - P_after), min-max normalised with integer division; FGD's is
 * int64(100 * sigmoid)), combined with integer weights alpha and 1 - alpha (in 1/10000), and equal totals go to the
 * node of smallest {@link ClusterState#tieRank} (the simulator's smallest node name), on one node to the first GPU:
 * small differences become ties that the name order decides, which packs far tighter than random ties. Without it
 * (the "-exact" policies) scores are exact doubles and ties are broken at random (reservoir sampling, as the stock
 * Kubernetes scheduler does). alpha = 0 orders candidates as FGD, alpha = 1 as PWR.
 *
 * <p>One pass computes delta_P and delta_F for every feasible (node, GPU) candidate into reusable arrays, a second pass
 * normalises and picks, so the decision is O(candidates) with no allocation once the arrays have grown.
 */
public final class PwrFgdPolicy implements PlacementPolicy {
    private static final long WEIGHT_SCALE = 10_000;
    private final String name;
    private final double alpha;
    private final boolean pluginScores;
    private int[] nodes = new int[2048];
    private int[] gpus = new int[2048];
    private double[] dPower = new double[2048];
    private double[] dFrag = new double[2048];

    public PwrFgdPolicy(double alpha) {
        this("pwr-fgd-exact", alpha, false);
    }

    public PwrFgdPolicy(String name, double alpha, boolean pluginScores) {
        if (!(alpha >= 0 && alpha <= 1)) throw new IllegalArgumentException("alpha must be in [0, 1], got " + alpha);
        this.name = name;
        this.alpha = alpha;
        this.pluginScores = pluginScores;
    }

    public double alpha() {
        return alpha;
    }

    @Override
    public String name() {
        return name;
    }

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
            if (pluginScores) dPower[i] = (long) dPower[i]; // Go's int64(old - new) truncates toward zero
            minP = Math.min(minP, dPower[i]);
            maxP = Math.max(maxP, dPower[i]);
        }
        long pwrWeight = Math.round(alpha * WEIGHT_SCALE), fgdWeight = WEIGHT_SCALE - pwrWeight;
        double best = Double.NEGATIVE_INFINITY;
        int bestIndex = -1, ties = 0;
        for (int i = 0; i < count; i++) {
            double pwr = maxP == minP ? 100 : 100 * (maxP - dPower[i]) / (maxP - minP);
            double fgd = 1.0 / (1.0 + Math.exp(dFrag[i] / Task.MILLI)) * 100; // the plugin's sigmoid(-dF / 1000) * 100
            if (pluginScores) {
                long pwrScore = maxP == minP ? 100 : (long) Math.floor(pwr + 1e-9);
                double s = pwrWeight * pwrScore + fgdWeight * (long) fgd; // exact: integers below 2^53
                if (s > best || (s == best && cluster.tieRank(nodes[i]) < cluster.tieRank(nodes[bestIndex]))) {
                    best = s;
                    bestIndex = i;
                }
                continue;
            }
            double s = alpha * pwr + (1 - alpha) * fgd;
            if (s > best) {
                best = s;
                bestIndex = i;
                ties = 1;
            } else if (s == best && random.nextInt(++ties) == 0) bestIndex = i;
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
        dFrag[count] =
                alpha == 1 ? 0 : cluster.fragmentationAfter(task, node, gpu) - cluster.nodeFragmentationMilli(node);
        return count + 1;
    }
}
