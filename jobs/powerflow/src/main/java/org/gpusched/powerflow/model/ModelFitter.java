package org.gpusched.powerflow.model;

import java.util.Arrays;
import java.util.List;
import java.util.function.ToDoubleBiFunction;
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
    /** Fresh fits start from several splits of the step time between IO and computation and several overlaps. */
    private static final double[] IO_SHARES = {0.1, 0.5};

    private static final double[] EXPONENT_STARTS = {0.5, 1.5};
    /** ... and several splits of the power between static and dynamic. */
    private static final double[] STATIC_SHARES = {0.3, 0.7};

    private ModelFitter() {}

    /** A fresh fit; {@code freqLevels} are the supported knob settings, candidates for f0. */
    public static PerformanceModel fit(List<Observation> obs, double[] freqLevels) {
        requireData(obs);
        ThroughputModel time = null;
        double timeCost = Double.POSITIVE_INFINITY;
        for (double ioShare : IO_SHARES)
            for (double g : EXPONENT_STARTS) {
                ThroughputModel t = fitTime(obs, initialTime(obs, ioShare, g));
                double cost = timeCost(obs, t);
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
            double[] e0 = initialEnergy(obs, staticShare);
            for (double f0 : candidates) {
                EnergyModel m = fitEnergy(obs, time, e0, f0);
                double cost = energyCost(obs, time, m);
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
        return refit(previous, obs, freqLevels, MAX_EVALUATIONS);
    }

    /** {@link #refit(PerformanceModel, List, double[])} with the warm start's evaluations capped at {@code warmCap}. */
    static PerformanceModel refit(PerformanceModel previous, List<Observation> obs, double[] freqLevels, int warmCap) {
        requireData(obs);
        double[] t = converged(obs, previous.time().parameters(), ModelFitter::timeResidual, warmCap);
        if (t == null) return fit(obs, freqLevels);
        ThroughputModel time = new ThroughputModel(t);
        double f0 = previous.energy().breakFreq();
        double[] e = converged(obs, previous.energy().parameters(), energyResidual(time, f0), warmCap);
        if (e == null) return fit(obs, freqLevels);
        return new PerformanceModel(time, new EnergyModel(e, f0));
    }

    private static void requireData(List<Observation> obs) {
        if (obs.isEmpty()) throw new IllegalArgumentException("no observations to fit");
    }

    static ThroughputModel fitTime(List<Observation> obs, double[] start) {
        return new ThroughputModel(solve(obs, start, ModelFitter::timeResidual));
    }

    static EnergyModel fitEnergy(List<Observation> obs, ThroughputModel time, double[] start, double f0) {
        return new EnergyModel(solve(obs, start, energyResidual(time, f0)), f0);
    }

    private static double timeResidual(double[] p, Observation o) {
        return new ThroughputModel(p).stepTime(o.config()) / o.stepTime() - 1;
    }

    private static ToDoubleBiFunction<double[], Observation> energyResidual(ThroughputModel time, double f0) {
        return (p, o) -> new EnergyModel(p, f0).energyPerIteration(time, o.config()) / o.energyPerIteration() - 1;
    }

    private static double timeCost(List<Observation> obs, ThroughputModel m) {
        double s = 0;
        for (Observation o : obs) {
            double r = m.stepTime(o.config()) / o.stepTime() - 1;
            s += r * r;
        }
        return s;
    }

    private static double energyCost(List<Observation> obs, ThroughputModel time, EnergyModel m) {
        double s = 0;
        for (Observation o : obs) {
            double r = m.energyPerIteration(time, o.config()) / o.energyPerIteration() - 1;
            s += r * r;
        }
        return s;
    }

    /** The solution, or {@code start} when Levenberg-Marquardt does not converge (fresh fits compare several starts). */
    private static double[] solve(
            List<Observation> obs, double[] start, ToDoubleBiFunction<double[], Observation> residual) {
        double[] x = converged(obs, start, residual, MAX_EVALUATIONS);
        return x == null ? start.clone() : x;
    }

    /**
     * Levenberg-Marquardt on the relative residuals plus the weak prior rows, the Jacobian by forward differences; null
     * when it does not converge within {@code maxEvaluations} or leaves finite numbers.
     */
    private static double[] converged(
            List<Observation> obs,
            double[] start,
            ToDoubleBiFunction<double[], Observation> residual,
            int maxEvaluations) {
        int m = obs.size(), k = start.length;
        double[] prior = start.clone();
        double[] scale = new double[k];
        for (int i = 0; i < k; i++) scale[i] = Math.max(Math.abs(prior[i]), 1e-3 * maxAbs(prior));
        double[] target = new double[m + k];
        var model = (org.hipparchus.optim.nonlinear.vector.leastsquares.MultivariateJacobianFunction) point -> {
            double[] x = point.toArray();
            double[] value = values(x, obs, residual, prior, scale);
            double[][] jac = new double[m + k][k];
            for (int j = 0; j < k; j++) {
                double h = 1e-7 * Math.max(Math.abs(x[j]), scale[j]);
                double keep = x[j];
                x[j] = keep + h;
                double[] moved = values(x, obs, residual, prior, scale);
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
            LeastSquaresOptimizer.Optimum optimum = new LevenbergMarquardtOptimizer().optimize(problem);
            double[] x = optimum.getPoint().toArray();
            for (double v : x) if (!Double.isFinite(v)) return null;
            return x;
        } catch (MathIllegalStateException notConverged) {
            return null;
        }
    }

    private static double[] values(
            double[] x,
            List<Observation> obs,
            ToDoubleBiFunction<double[], Observation> residual,
            double[] prior,
            double[] scale) {
        int m = obs.size();
        double[] v = new double[m + x.length];
        for (int i = 0; i < m; i++) {
            double r = residual.applyAsDouble(x, obs.get(i));
            v[i] = Double.isFinite(r) ? r : 1e6;
        }
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
