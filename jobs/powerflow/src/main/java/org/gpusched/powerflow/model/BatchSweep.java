package org.gpusched.powerflow.model;

import java.io.Serializable;

/**
 * One workload's measured single-GPU sweep: step time (s) and average GPU power (W) at each measured batch size and
 * power limit (the Zeus V100 measurements), read between measured points linearly in the batch size and in the limit.
 * Beyond the largest measured batch the step time grows in proportion and the power stays; below the smallest, both
 * stay at the smallest's.
 *
 * <p>Two readers: the simulator's ground truth (what one GPU really does) and the models' prior on how a job's step
 * time and power change with its local batch when it scales out ({@link ScaleOutPrior}).
 */
public final class BatchSweep implements Serializable {
    private static final long serialVersionUID = 1L;

    private final double[] batches, limits;
    private final double[][] stepTime, power;

    /** {@code stepTime[b][l]} and {@code power[b][l]} at {@code batches[b]} (ascending) and {@code limits[l]}. */
    public BatchSweep(double[] batches, double[] limits, double[][] stepTime, double[][] power) {
        if (batches.length == 0 || limits.length == 0) throw new IllegalArgumentException("empty sweep");
        this.batches = batches.clone();
        this.limits = limits.clone();
        this.stepTime = stepTime;
        this.power = power;
    }

    public double[] batches() {
        return batches.clone();
    }

    public double smallestBatch() {
        return batches[0];
    }

    public double stepTime(double batch, double limit) {
        double t = interpolate(stepTime, batch, limit);
        double largest = batches[batches.length - 1];
        return batch > largest ? t * batch / largest : t;
    }

    public double power(double batch, double limit) {
        return interpolate(power, batch, limit);
    }

    private double interpolate(double[][] v, double bs, double limit) {
        int b = segment(batches, bs), l = segment(limits, limit);
        double wb = weight(batches, b, bs), wl = weight(limits, l, limit);
        int b1 = Math.min(b + 1, batches.length - 1), l1 = Math.min(l + 1, limits.length - 1);
        double lo = v[b][l] * (1 - wl) + v[b][l1] * wl;
        double hi = v[b1][l] * (1 - wl) + v[b1][l1] * wl;
        return lo * (1 - wb) + hi * wb;
    }

    private static int segment(double[] xs, double x) {
        int i = 0;
        while (i + 1 < xs.length - 1 && x >= xs[i + 1]) i++;
        return xs.length == 1 ? 0 : i;
    }

    private static double weight(double[] xs, int i, double x) {
        if (xs.length == 1) return 0;
        double w = (x - xs[i]) / (xs[i + 1] - xs[i]);
        return Math.max(0, Math.min(1, w));
    }
}
