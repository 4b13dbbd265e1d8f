package org.gpusched.powerflow.model;

/**
 * Step time of a data-parallel job, eqs. 1-5 of the PowerFlow paper.
 *
 * <pre>
 * T_IO   = a_IO + b_IO * bs * r
 * T_grad = a_grad + (b_grad + k_grad / f) * bs
 * T_sync = 0 (n = 1);  a/f + (k/f + b) * (n - 2) + theta  with the local (n = r) or the node (n > r) parameters
 * T_iter = ((T_IO^g1 + T_grad^g1)^(g2/g1) + T_sync^g2)^(1/g2),  g1, g2 >= 1
 * </pre>
 * Eq. 4 and 5 are garbled in the paper's text; this is the reading that makes g = 1 the sum and g -> inf the max, as
 * the paper says. Parameters are kept unconstrained for the optimizer: linear coefficients enter through |x| and each
 * exponent as 1 + x^2, so every parameter vector is a valid model.
 */
public final class ThroughputModel {
    public static final int A_IO = 0,
            B_IO = 1,
            A_GRAD = 2,
            B_GRAD = 3,
            K_GRAD = 4,
            G1 = 5,
            G2 = 6,
            A_SYNC_LOCAL = 7,
            B_SYNC_LOCAL = 8,
            K_SYNC_LOCAL = 9,
            THETA_SYNC_LOCAL = 10,
            A_SYNC_NODE = 11,
            B_SYNC_NODE = 12,
            K_SYNC_NODE = 13,
            THETA_SYNC_NODE = 14,
            SIZE = 15;

    private final double[] p;

    public ThroughputModel(double[] parameters) {
        if (parameters.length != SIZE)
            throw new IllegalArgumentException("throughput model has " + SIZE + " parameters");
        this.p = parameters.clone();
    }

    public double[] parameters() {
        return p.clone();
    }

    public double ioTime(Configuration c) {
        return Math.abs(p[A_IO]) + Math.abs(p[B_IO]) * c.localBatch() * c.gpusPerNode();
    }

    public double gradTime(Configuration c) {
        return Math.abs(p[A_GRAD]) + (Math.abs(p[B_GRAD]) + Math.abs(p[K_GRAD]) / c.freq()) * c.localBatch();
    }

    public double syncTime(Configuration c) {
        if (c.gpus() == 1) return 0;
        int o = c.singleNode() ? A_SYNC_LOCAL : A_SYNC_NODE;
        double f = c.freq();
        return Math.abs(p[o]) / f + (Math.abs(p[o + 2]) / f + Math.abs(p[o + 1])) * (c.gpus() - 2) + Math.abs(p[o + 3]);
    }

    public double stepTime(Configuration c) {
        double g1 = 1 + p[G1] * p[G1], g2 = 1 + p[G2] * p[G2];
        double compute = norm(ioTime(c), gradTime(c), g1);
        double sync = syncTime(c);
        return sync == 0 ? compute : norm(compute, sync, g2);
    }

    /** (x^g + y^g)^(1/g), scaled by the larger term so that large exponents do not overflow. */
    static double norm(double x, double y, double g) {
        double m = Math.max(x, y);
        if (m == 0) return 0;
        return m * Math.pow(Math.pow(x / m, g) + Math.pow(y / m, g), 1 / g);
    }
}
