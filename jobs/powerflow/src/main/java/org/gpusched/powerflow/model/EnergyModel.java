package org.gpusched.powerflow.model;

/**
 * GPU energy per iteration, eqs. 6-15 of the PowerFlow paper, over a throughput model:
 *
 * <pre>
 * E_iter   = n * (P_grad * T_grad + P_sync * T_sync + P_static * T_iter)
 * P_grad   = kappa(f) * (log(bs + 1 + |theta|) + beta)     kappa = a f + b (f &lt; f0),  a f^3 + b f^2 + c f + d otherwise
 * P_sync   = a f + b (f &lt; f0),  a f^3 + b f^2 + c f + d otherwise
 * P_static = P_l (f &lt; f0),  c_h * f otherwise
 * </pre>
 * Eq. 12's alpha multiplies kappa's own coefficients and is folded into them (the product had one redundant scale);
 * the {@code + 1} keeps the logarithm defined at bs = 0. f0, the hardware's voltage break point, is fitted by the
 * {@link ModelFitter} among the supported frequency levels.
 */
public final class EnergyModel {
    public static final int A_LOW_GRAD = 0,
            B_LOW_GRAD = 1,
            THETA_LOW = 2,
            BETA_LOW = 3,
            A_HIGH_GRAD = 4,
            B_HIGH_GRAD = 5,
            C_HIGH_GRAD = 6,
            D_HIGH_GRAD = 7,
            THETA_HIGH = 8,
            BETA_HIGH = 9,
            A_LOW_SYNC = 10,
            B_LOW_SYNC = 11,
            A_HIGH_SYNC = 12,
            B_HIGH_SYNC = 13,
            C_HIGH_SYNC = 14,
            D_HIGH_SYNC = 15,
            P_STATIC_LOW = 16,
            C_STATIC_HIGH = 17,
            SIZE = 18;

    private final double[] p;
    private final double breakFreq;

    public EnergyModel(double[] parameters, double breakFreq) {
        if (parameters.length != SIZE) throw new IllegalArgumentException("energy model has " + SIZE + " parameters");
        this.p = parameters.clone();
        this.breakFreq = breakFreq;
    }

    public double[] parameters() {
        return p.clone();
    }

    public double breakFreq() {
        return breakFreq;
    }

    public double gradPower(Configuration c) {
        double f = c.freq(), bs = c.localBatch();
        if (f < breakFreq)
            return (p[A_LOW_GRAD] * f + p[B_LOW_GRAD]) * (Math.log(bs + 1 + Math.abs(p[THETA_LOW])) + p[BETA_LOW]);
        double kappa = ((p[A_HIGH_GRAD] * f + p[B_HIGH_GRAD]) * f + p[C_HIGH_GRAD]) * f + p[D_HIGH_GRAD];
        return kappa * (Math.log(bs + 1 + Math.abs(p[THETA_HIGH])) + p[BETA_HIGH]);
    }

    public double syncPower(Configuration c) {
        double f = c.freq();
        if (f < breakFreq) return p[A_LOW_SYNC] * f + p[B_LOW_SYNC];
        return ((p[A_HIGH_SYNC] * f + p[B_HIGH_SYNC]) * f + p[C_HIGH_SYNC]) * f + p[D_HIGH_SYNC];
    }

    public double staticPower(Configuration c) {
        return c.freq() < breakFreq ? p[P_STATIC_LOW] : p[C_STATIC_HIGH] * c.freq();
    }

    public double energyPerIteration(ThroughputModel time, Configuration c) {
        return energyPerIteration(time, c, time.stepTime(c));
    }

    /** With the step time {@code time.stepTime(c)} already known. */
    public double energyPerIteration(ThroughputModel time, Configuration c, double stepTime) {
        return energyPerIteration(c, time.gradTime(c), time.syncTime(c), stepTime);
    }

    /** With the throughput model's gradient, synchronization and step times at {@code c} already known. */
    public double energyPerIteration(Configuration c, double gradTime, double syncTime, double stepTime) {
        double perGpu = gradPower(c) * gradTime + syncPower(c) * syncTime + staticPower(c) * stepTime;
        return c.gpus() * perGpu;
    }
}
