package org.gpusched.powerflow.model;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;

/**
 * An informed prior on how a job scales out, for the terms of eqs. 3-5 and 12-14 that a one-GPU profile leaves
 * unidentified (the local batch and the synchronization), given to the fit as pseudo-observations at the
 * configurations the job has not run at.
 *
 * <ul>
 * <li><b>Batch</b>: on {@code n} GPUs each computes a local batch of {@code B / n}. The workload's measured batch
 * sweep ({@link BatchSweep}, the Zeus measurements) says how step time and power change from {@code B} to {@code B /
 * n} at each limit; the job's own profile at {@code B} sets the level: {@code C(n, f) = T_job(B, f) x T_sweep(B / n,
 * f) / T_sweep(B, f)}, and the power likewise.</li>
 * <li><b>Synchronization</b>: a ring all-reduce of the job's gradients, {@code S(n) = 2 (n - 1) / n x gradient MB /
 * bandwidth}, over the node's link ({@code n <= GPUs per node}) or the network, at the cluster's nominal bandwidths.
 * How much of it shows in the step time ({@code kappa}) and what the GPUs draw meanwhile ({@code rho}, a share of
 * their compute power) are learned: {@code kappa} starts at {@value #KAPPA0} (nothing hidden behind the backward pass)
 * and {@code rho} at {@value #RHO0}; once the job has run on several GPUs they are read off its telemetry, per limit
 * (the profiling sweep at a new GPU count measures every limit): {@code kappa = (T_obs - C) / S},
 * {@code rho = (E_obs / n - P_c C) / (P_c kappa S)}.</li>
 * </ul>
 * Prediction: {@code T = C + kappa S}, {@code E = n P_c (C + rho kappa S)}. The pseudo-observations cover every
 * power-of-two GPU count from 2 to the job's cap at every limit, except where the job has its own samples.
 */
public final class ScaleOutPrior implements Serializable {
    private static final long serialVersionUID = 1L;

    /** Share of the nominal all-reduce time that shows in the step time before any multi-GPU sample. */
    public static final double KAPPA0 = 1.0;
    /** GPU power while synchronizing, as a share of the compute power, before any multi-GPU sample. */
    public static final double RHO0 = 0.5;
    /** Weight of a pseudo-observation's residual against a measured one's (1). */
    public static final double WEIGHT = 0.3;

    private final BatchSweep sweep;
    private final double globalBatch, gradientMB, intraNodeGBps, interNodeGBps, maxLimit;
    private final int gpusPerNode, maxGpus;
    private final double[] limits;

    public ScaleOutPrior(
            BatchSweep sweep,
            double globalBatch,
            double gradientMB,
            double intraNodeGBps,
            double interNodeGBps,
            int gpusPerNode,
            double[] limits,
            int maxGpus) {
        this.sweep = sweep;
        this.globalBatch = globalBatch;
        this.gradientMB = gradientMB;
        this.intraNodeGBps = intraNodeGBps;
        this.interNodeGBps = interNodeGBps;
        this.gpusPerNode = gpusPerNode;
        this.limits = limits.clone();
        this.maxLimit = limits[limits.length - 1];
        this.maxGpus = maxGpus;
    }

    /** The nominal ring all-reduce time on {@code n} GPUs (s). */
    public double nominalSync(int n) {
        if (n < 2) return 0;
        double gbps = n <= gpusPerNode ? intraNodeGBps : interNodeGBps;
        return 2.0 * (n - 1) / n * gradientMB / 1000 / gbps;
    }

    /** The prior's step time and energy per iteration at {@code n} GPUs and limit index {@code l}, given the log. */
    public double[] predict(ObservationLog log, int n, int l) {
        double[][] learned = learned(log);
        return predict(log, n, l, learned[0][l], learned[1][l]);
    }

    private double[] predict(ObservationLog log, int n, int l, double kappa, double rho) {
        double[] one = own(log, l);
        double bs = globalBatch / n, limit = limits[l];
        double compute = one[0] * sweep.stepTime(bs, limit) / sweep.stepTime(globalBatch, limit);
        double power = one[1] / one[0] * sweep.power(bs, limit) / sweep.power(globalBatch, limit);
        double sync = kappa * nominalSync(n);
        return new double[] {compute + sync, n * power * (compute + rho * sync)};
    }

    /** The job's own one-GPU step time and energy at limit index {@code l}; the sweep's when it has none there. */
    private double[] own(ObservationLog log, int l) {
        Observation o = log.at(config(1, l));
        if (o != null) return new double[] {o.stepTime(), o.energyPerIteration()};
        double t = sweep.stepTime(globalBatch, limits[l]);
        return new double[] {t, t * sweep.power(globalBatch, limits[l])};
    }

    /** kappa and rho per limit, read off the job's multi-GPU samples (their mean over the limits that have some). */
    double[][] learned(ObservationLog log) {
        int k = limits.length;
        double[] kappa = new double[k], rho = new double[k];
        int[] nk = new int[k], nr = new int[k];
        for (ObservationLog.Entry e : log.entries()) {
            Configuration c = e.config();
            int l = level(c.freq());
            if (c.gpus() < 2 || l < 0 || c.localBatch() * c.gpus() != globalBatch) continue;
            Observation o = e.average();
            double[] base = predict(log, c.gpus(), l, 0, 0);
            double s = nominalSync(c.gpus());
            double kap = Math.max(0, (o.stepTime() - base[0]) / s);
            kappa[l] += kap;
            nk[l]++;
            double pc = base[1] / (c.gpus() * base[0]);
            double hidden = kap * s;
            if (hidden > 1e-3 * base[0]) {
                rho[l] +=
                        Math.max(0, Math.min(1.5, (o.energyPerIteration() / c.gpus() - pc * base[0]) / (pc * hidden)));
                nr[l]++;
            }
        }
        double kMean = mean(kappa, nk, KAPPA0), rMean = mean(rho, nr, RHO0);
        for (int l = 0; l < k; l++) {
            kappa[l] = nk[l] > 0 ? kappa[l] / nk[l] : kMean;
            rho[l] = nr[l] > 0 ? rho[l] / nr[l] : rMean;
        }
        return new double[][] {kappa, rho};
    }

    private static double mean(double[] sum, int[] count, double otherwise) {
        double s = 0;
        int n = 0;
        for (int i = 0; i < sum.length; i++)
            if (count[i] > 0) {
                s += sum[i] / count[i];
                n++;
            }
        return n == 0 ? otherwise : s / n;
    }

    /** The pseudo-observations: every power-of-two GPU count 2..cap at every limit where the job has no sample. */
    public List<Observation> pseudoObservations(ObservationLog log) {
        double[][] learned = learned(log);
        List<Observation> out = new ArrayList<>();
        for (int n = 2; n <= maxGpus; n *= 2)
            for (int l = 0; l < limits.length; l++) {
                Configuration c = config(n, l);
                if (log.at(c) != null) continue;
                double[] p = predict(log, n, l, learned[0][l], learned[1][l]);
                out.add(new Observation(c, p[0], p[1]));
            }
        return out;
    }

    private Configuration config(int n, int l) {
        return Configuration.of(n, gpusPerNode, globalBatch, limits[l] / maxLimit);
    }

    private int level(double freq) {
        for (int l = 0; l < limits.length; l++) if (limits[l] / maxLimit == freq) return l;
        return -1;
    }
}
