package org.gpusched.powerflow.policy;

import java.util.Arrays;
import org.gpusched.powerflow.model.Configuration;
import org.gpusched.powerflow.model.JobModel;

/**
 * One job's model evaluated at power-of-two GPU counts and the cluster's supported limits, each value computed the
 * first time it is asked for and kept while the job's model instance, global batch and the cluster's shape stay the
 * same. Models are pure, so a kept value is exactly what a fresh evaluation would give; {@code memoize = false}
 * evaluates every time (the reference the fast path is tested against).
 */
final class ModelTable {
    private final JobModel model;
    private final double globalBatch;
    private final int gpusPerNode;
    private final double[] limits;
    private final double maxLimit;
    private final boolean memoize;
    /** [log2 gpus][level]: step time and energy per iteration; rows allocated when first used, NaN = not computed. */
    private final double[][] time = new double[31][], energy = new double[31][];

    private final double[] pair = new double[2];
    private int efficientLevel = -1, leastEnergyLevel = -1;

    ModelTable(JobView job, ClusterView cluster, boolean memoize) {
        this.model = job.model();
        this.globalBatch = job.globalBatch();
        this.gpusPerNode = cluster.gpusPerNode();
        this.limits = cluster.powerLimits();
        this.maxLimit = cluster.maxLimit();
        this.memoize = memoize;
    }

    boolean fits(JobView job, ClusterView cluster) {
        return model == job.model()
                && globalBatch == job.globalBatch()
                && gpusPerNode == cluster.gpusPerNode()
                && (limits == cluster.powerLimits() || Arrays.equals(limits, cluster.powerLimits()));
    }

    /** Step time at {@code gpus} (a power of two) and limit level {@code level}. */
    double stepTime(int gpus, int level) {
        if (!memoize) return model.stepTime(config(gpus, level));
        int k = Integer.numberOfTrailingZeros(gpus);
        if (time[k] == null || Double.isNaN(time[k][level])) evaluate(gpus, level);
        return time[k][level];
    }

    /** Energy per iteration at {@code gpus} (a power of two) and limit level {@code level}. */
    double energy(int gpus, int level) {
        if (!memoize) return model.energyPerIteration(config(gpus, level));
        int k = Integer.numberOfTrailingZeros(gpus);
        if (energy[k] == null || Double.isNaN(energy[k][level])) evaluate(gpus, level);
        return energy[k][level];
    }

    /** Both values of a cell in one model evaluation: the cold path (every job new) asks for both of most cells. */
    private void evaluate(int gpus, int level) {
        model.evaluate(config(gpus, level), pair);
        row(time, gpus)[level] = pair[0];
        row(energy, gpus)[level] = pair[1];
    }

    double power(int gpus, int level) {
        return gpus == 0 ? 0 : energy(gpus, level) / stepTime(gpus, level);
    }

    /** The level minimizing step time x energy per iteration on one GPU (eq. 17's most energy-efficient limit). */
    int mostEfficientLevel() {
        if (efficientLevel >= 0 && memoize) return efficientLevel;
        int best = limits.length - 1;
        double bestCost = Double.POSITIVE_INFINITY;
        for (int l = 0; l < limits.length; l++) {
            double cost = stepTime(1, l) * energy(1, l);
            if (cost < bestCost) {
                bestCost = cost;
                best = l;
            }
        }
        return efficientLevel = best;
    }

    /** The level of the least energy per iteration on one GPU (the lower on a tie). */
    int leastEnergyLevel() {
        if (leastEnergyLevel >= 0 && memoize) return leastEnergyLevel;
        int best = limits.length - 1;
        double least = Double.POSITIVE_INFINITY;
        for (int l = 0; l < limits.length; l++) {
            double e = energy(1, l);
            if (e < least) {
                least = e;
                best = l;
            }
        }
        return leastEnergyLevel = best;
    }

    private double[] row(double[][] rows, int gpus) {
        int k = Integer.numberOfTrailingZeros(gpus);
        double[] row = rows[k];
        if (row == null) {
            row = new double[limits.length];
            Arrays.fill(row, Double.NaN);
            rows[k] = row;
        }
        return row;
    }

    private Configuration config(int gpus, int level) {
        return Configuration.of(gpus, gpusPerNode, globalBatch, limits[level] / maxLimit);
    }
}
