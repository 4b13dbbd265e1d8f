package org.gpusched.powerflow.model;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.hipparchus.exception.MathIllegalStateException;
import org.hipparchus.linear.Array2DRowRealMatrix;
import org.hipparchus.linear.ArrayRealVector;
import org.hipparchus.linear.RealMatrix;
import org.hipparchus.linear.RealVector;
import org.hipparchus.optim.nonlinear.vector.leastsquares.LeastSquaresBuilder;
import org.hipparchus.optim.nonlinear.vector.leastsquares.LeastSquaresOptimizer;
import org.hipparchus.optim.nonlinear.vector.leastsquares.LevenbergMarquardtOptimizer;
import org.hipparchus.util.Pair;

/**
 * Fits a job's {@link PerformanceModel} to its observations by nonlinear least squares (Hipparchus'
 * Levenberg-Marquardt), in two stages as the models are layered: the throughput model on step times, then the energy
 * model on energies per iteration with the fitted times inside it. Residuals are relative errors, so the fit minimizes
 * what the MAPE measures. Every parameter also carries a weak pull toward its data-derived starting value: it keeps the
 * problem well posed when the observations do not determine a parameter (the sync terms before a job ever ran on two
 * GPUs), without moving what the data determine. The energy model's break frequency f0 is chosen among the supported
 * levels by least residual (fresh fits only; refits keep it).
 */
public final class ModelFitter {
    private static final double PRIOR_WEIGHT = 1e-3;
    private static final int MAX_EVALUATIONS = 4000;
    /**
     * Relative change of the cost and the parameters at which Levenberg-Marquardt stops: 1e-6 rather than Hipparchus'
     * 1e-10, which left about a fifth of the fresh starts running into the evaluation cap for no gain that the
     * models' few-percent errors would show (ScaleOutAccuracy and ModelFitMapeTest measure the same or better).
     */
    private static final double TOLERANCE = 1e-6;
    /** Fresh fits start from several splits of the step time between IO and computation and several overlaps. */
    private static final double[] IO_SHARES = {0.1, 0.5};

    private static final double[] EXPONENT_STARTS = {0.5, 1.5};
    /** ... and several splits of the power between static and dynamic. */
    private static final double[] STATIC_SHARES = {0.3, 0.7};

    private ModelFitter() {}

    /** A fresh fit; {@code freqLevels} are the supported knob settings, candidates for f0. */
    public static PerformanceModel fit(List<Observation> obs, double[] freqLevels) {
        return fit(obs, List.of(), freqLevels);
    }

    /**
     * A fresh fit on the job's observations and a prior's pseudo-observations ({@link ScaleOutPrior}), the latter
     * weighted {@link ScaleOutPrior#WEIGHT} against a measured one.
     */
    public static PerformanceModel fit(List<Observation> obs, List<Observation> pseudo, double[] freqLevels) {
        requireData(obs);
        Rows rows = new Rows(obs, pseudo);
        ThroughputModel time = null;
        double timeCost = Double.POSITIVE_INFINITY;
        for (double ioShare : IO_SHARES)
            for (double g : EXPONENT_STARTS) {
                Residuals residual = timeResidual(rows);
                ThroughputModel t = new ThroughputModel(solve(rows, initialTime(rows.all, ioShare, g), residual));
                double cost = rows.cost(t.parameters(), residual);
                if (cost < timeCost) {
                    timeCost = cost;
                    time = t;
                }
            }
        EnergyModel best = null;
        double bestCost = Double.POSITIVE_INFINITY;
        double[] candidates = Arrays.copyOf(freqLevels, freqLevels.length + 1);
        candidates[freqLevels.length] = Double.POSITIVE_INFINITY;
        for (double staticShare : STATIC_SHARES) {
            double[] e0 = initialEnergy(rows.all, staticShare);
            for (double f0 : candidates) {
                Residuals residual = energyResidual(rows, time, f0);
                EnergyModel m = new EnergyModel(solve(rows, e0, residual), f0);
                double cost = rows.cost(m.parameters(), residual);
                if (cost < bestCost) {
                    bestCost = cost;
                    best = m;
                }
            }
        }
        return new PerformanceModel(time, best);
    }

    /**
     * A warm-started fit from {@code previous}, with its break frequency; a fresh fit ({@link #fit}) when the warm
     * start does not converge. Levenberg-Marquardt often runs out of evaluations from a warm start (the weak prior rows
     * pull toward the previous parameters while new data pull away), and keeping the previous model would ignore the
     * new data.
     */
    public static PerformanceModel refit(PerformanceModel previous, List<Observation> obs, double[] freqLevels) {
        return refit(previous, obs, List.of(), freqLevels, MAX_EVALUATIONS);
    }

    /** {@link #refit(PerformanceModel, List, double[])} with a prior's pseudo-observations, as {@link #fit} takes them. */
    public static PerformanceModel refit(
            PerformanceModel previous, List<Observation> obs, List<Observation> pseudo, double[] freqLevels) {
        return refit(previous, obs, pseudo, freqLevels, MAX_EVALUATIONS);
    }

    /** {@link #refit(PerformanceModel, List, double[])} with the warm start's evaluations capped at {@code warmCap}. */
    static PerformanceModel refit(PerformanceModel previous, List<Observation> obs, double[] freqLevels, int warmCap) {
        return refit(previous, obs, List.of(), freqLevels, warmCap);
    }

    private static PerformanceModel refit(
            PerformanceModel previous,
            List<Observation> obs,
            List<Observation> pseudo,
            double[] freqLevels,
            int warmCap) {
        requireData(obs);
        Rows rows = new Rows(obs, pseudo);
        double[] t = converged(rows, previous.time().parameters(), timeResidual(rows), warmCap);
        if (t == null) return fit(obs, pseudo, freqLevels);
        ThroughputModel time = new ThroughputModel(t);
        double f0 = previous.energy().breakFreq();
        double[] e = converged(rows, previous.energy().parameters(), energyResidual(rows, time, f0), warmCap);
        if (e == null) return fit(obs, pseudo, freqLevels);
        return new PerformanceModel(time, new EnergyModel(e, f0));
    }

    private static void requireData(List<Observation> obs) {
        if (obs.isEmpty()) throw new IllegalArgumentException("no observations to fit");
    }

    static ThroughputModel fitTime(List<Observation> obs, double[] start) {
        Rows rows = new Rows(obs, List.of());
        return new ThroughputModel(solve(rows, start, timeResidual(rows)));
    }

    static EnergyModel fitEnergy(List<Observation> obs, ThroughputModel time, double[] start, double f0) {
        Rows rows = new Rows(obs, List.of());
        return new EnergyModel(solve(rows, start, energyResidual(rows, time, f0)), f0);
    }

    /** The rows of a fit: measured observations (weight 1), then pseudo-observations (weight {@link ScaleOutPrior#WEIGHT}). */
    private static final class Rows {
        final List<Observation> all;
        final double[] weights;

        Rows(List<Observation> obs, List<Observation> pseudo) {
            all = new ArrayList<>(obs.size() + pseudo.size());
            all.addAll(obs);
            all.addAll(pseudo);
            weights = new double[all.size()];
            for (int i = 0; i < weights.length; i++) weights[i] = i < obs.size() ? 1 : ScaleOutPrior.WEIGHT;
        }

        double cost(double[] x, Residuals r) {
            double[] v = r.of(x);
            double s = 0;
            for (int i = 0; i < v.length; i++) {
                double w = weights[i] * v[i];
                s += w * w;
            }
            return s;
        }
    }

    /** Every row's relative residual at parameters {@code p} (one model built per evaluation, not per row). */
    @FunctionalInterface
    private interface Residuals {
        double[] of(double[] p);
    }

    private static Residuals timeResidual(Rows rows) {
        int m = rows.all.size();
        return p -> {
            ThroughputModel model = new ThroughputModel(p);
            double[] r = new double[m];
            for (int i = 0; i < m; i++) {
                Observation o = rows.all.get(i);
                r[i] = model.stepTime(o.config()) / o.stepTime() - 1;
            }
            return r;
        };
    }

    /** The energy rows with the (fixed) throughput model's times computed once. */
    private static Residuals energyResidual(Rows rows, ThroughputModel time, double f0) {
        int m = rows.all.size();
        double[] grad = new double[m], sync = new double[m], step = new double[m];
        for (int i = 0; i < m; i++) {
            Configuration c = rows.all.get(i).config();
            grad[i] = time.gradTime(c);
            sync[i] = time.syncTime(c);
            step[i] = time.stepTime(c);
        }
        return p -> {
            EnergyModel model = new EnergyModel(p, f0);
            double[] r = new double[m];
            for (int i = 0; i < m; i++) {
                Observation o = rows.all.get(i);
                r[i] = model.energyPerIteration(o.config(), grad[i], sync[i], step[i]) / o.energyPerIteration() - 1;
            }
            return r;
        };
    }

    /** The solution, or {@code start} when Levenberg-Marquardt does not converge (fresh fits compare several starts). */
    private static double[] solve(Rows rows, double[] start, Residuals residual) {
        double[] x = converged(rows, start, residual, MAX_EVALUATIONS);
        return x == null ? start.clone() : x;
    }

    /**
     * Levenberg-Marquardt on the weighted relative residuals plus the weak prior rows, the Jacobian by forward
     * differences; null when it does not converge within {@code maxEvaluations} or leaves finite numbers.
     */
    private static double[] converged(Rows rows, double[] start, Residuals residual, int maxEvaluations) {
        int m = rows.all.size(), k = start.length;
        double[] prior = start.clone();
        double[] scale = new double[k];
        for (int i = 0; i < k; i++) scale[i] = Math.max(Math.abs(prior[i]), 1e-3 * maxAbs(prior));
        double[] target = new double[m + k];
        var model = (org.hipparchus.optim.nonlinear.vector.leastsquares.MultivariateJacobianFunction) point -> {
            double[] x = point.toArray();
            double[] value = values(x, rows, residual, prior, scale);
            double[][] jac = new double[m + k][k];
            for (int j = 0; j < k; j++) {
                double h = 1e-7 * Math.max(Math.abs(x[j]), scale[j]);
                double keep = x[j];
                x[j] = keep + h;
                double[] moved = values(x, rows, residual, prior, scale);
                x[j] = keep;
                for (int i = 0; i < m + k; i++) jac[i][j] = (moved[i] - value[i]) / h;
            }
            return new Pair<RealVector, RealMatrix>(
                    new ArrayRealVector(value, false), new Array2DRowRealMatrix(jac, false));
        };
        var problem = new LeastSquaresBuilder()
                .start(start)
                .model(model)
                .target(target)
                .maxEvaluations(maxEvaluations)
                .maxIterations(maxEvaluations)
                .lazyEvaluation(false)
                .build();
        try {
            LeastSquaresOptimizer.Optimum optimum = new LevenbergMarquardtOptimizer()
                    .withCostRelativeTolerance(TOLERANCE)
                    .withParameterRelativeTolerance(TOLERANCE)
                    .optimize(problem);
            double[] x = optimum.getPoint().toArray();
            for (double v : x) if (!Double.isFinite(v)) return null;
            return x;
        } catch (MathIllegalStateException notConverged) {
            return null;
        }
    }

    private static double[] values(double[] x, Rows rows, Residuals residual, double[] prior, double[] scale) {
        int m = rows.all.size();
        double[] v = new double[m + x.length];
        double[] r = residual.of(x);
        for (int i = 0; i < m; i++) v[i] = Double.isFinite(r[i]) ? rows.weights[i] * r[i] : 1e6;
        for (int j = 0; j < x.length; j++) v[m + j] = PRIOR_WEIGHT * (x[j] - prior[j]) / scale[j];
        return v;
    }

    private static double maxAbs(double[] a) {
        double m = 0;
        for (double v : a) m = Math.max(m, Math.abs(v));
        return m == 0 ? 1 : m;
    }

    /** Start from a straight line of step time against local batch, {@code ioShare} of it storage IO. */
    static double[] initialTime(List<Observation> obs, double ioShare, double exponent) {
        double sx = 0, sy = 0, sxx = 0, sxy = 0;
        for (Observation o : obs) {
            double x = o.config().localBatch(), y = o.stepTime() * o.config().freq();
            sx += x;
            sy += y;
            sxx += x * x;
            sxy += x * y;
        }
        int m = obs.size();
        double var = sxx - sx * sx / m;
        double slope = var > 0 ? Math.max((sxy - sx * sy / m) / var, 1e-9) : sy / Math.max(sx, 1e-9);
        double intercept = Math.max(sy / m - slope * sx / m, 1e-3 * sy / m);
        double[] p = new double[ThroughputModel.SIZE];
        p[ThroughputModel.A_IO] = ioShare * intercept;
        p[ThroughputModel.B_IO] = ioShare * slope;
        p[ThroughputModel.A_GRAD] = (1 - ioShare) * intercept;
        p[ThroughputModel.B_GRAD] = 0.25 * (1 - ioShare) * slope;
        p[ThroughputModel.K_GRAD] = 0.75 * (1 - ioShare) * slope;
        p[ThroughputModel.G1] = exponent;
        p[ThroughputModel.G2] = 0.5;
        double sync = 0.05 * sy / m;
        p[ThroughputModel.A_SYNC_LOCAL] = 0.5 * sync;
        p[ThroughputModel.B_SYNC_LOCAL] = 0.1 * sync;
        p[ThroughputModel.K_SYNC_LOCAL] = 0.05 * sync;
        p[ThroughputModel.THETA_SYNC_LOCAL] = 0.5 * sync;
        p[ThroughputModel.A_SYNC_NODE] = 2 * sync;
        p[ThroughputModel.B_SYNC_NODE] = 0.4 * sync;
        p[ThroughputModel.K_SYNC_NODE] = 0.2 * sync;
        p[ThroughputModel.THETA_SYNC_NODE] = 2 * sync;
        return p;
    }

    /** Start from the mean power per GPU, {@code staticShare} of it static, the rest gradients, sync at half of it. */
    static double[] initialEnergy(List<Observation> obs, double staticShare) {
        double power = 0, log = 0, freq = 0;
        for (Observation o : obs) {
            Configuration c = o.config();
            power += o.energyPerIteration() / (c.gpus() * o.stepTime());
            log += Math.log(c.localBatch() + 1);
            freq += c.freq();
        }
        int m = obs.size();
        power /= m;
        log /= m;
        freq /= m;
        double[] p = new double[EnergyModel.SIZE];
        p[EnergyModel.A_LOW_GRAD] = (1 - staticShare) * power / (log * freq);
        p[EnergyModel.C_HIGH_GRAD] = (1 - staticShare) * power / (log * freq);
        p[EnergyModel.A_LOW_SYNC] = 0.5 * power / freq;
        p[EnergyModel.C_HIGH_SYNC] = 0.5 * power / freq;
        p[EnergyModel.P_STATIC_LOW] = staticShare * power;
        p[EnergyModel.C_STATIC_HIGH] = staticShare * power / freq;
        return p;
    }
}
