package org.gpusched.powerflow.policy;

import org.gpusched.powerflow.model.EnergyModel;
import org.gpusched.powerflow.model.PerformanceModel;
import org.gpusched.powerflow.model.ThroughputModel;

/** Hand-made models for policy tests: step time = (k / f) x bs + sync, power per GPU = watts x f. */
final class Models {
    private Models() {}

    static PerformanceModel of(double kGrad, double syncSeconds, double wattsAtMax) {
        double[] t = new double[ThroughputModel.SIZE];
        t[ThroughputModel.K_GRAD] = kGrad;
        t[ThroughputModel.THETA_SYNC_LOCAL] = syncSeconds;
        t[ThroughputModel.THETA_SYNC_NODE] = syncSeconds;
        t[ThroughputModel.G2] = 0;
        double[] e = new double[EnergyModel.SIZE];
        e[EnergyModel.C_STATIC_HIGH] = wattsAtMax;
        return new PerformanceModel(new ThroughputModel(t), new EnergyModel(e, 0));
    }

    /**
     * Step time = (k / f) x bs (one GPU), power per GPU = watts x f^3: T x E = watts x (k bs)^2 x f, so the lowest limit
     * is the most energy efficient and every clock raise costs power.
     */
    static PerformanceModel cubic(double kGrad, double wattsAtMax) {
        double[] t = new double[ThroughputModel.SIZE];
        t[ThroughputModel.K_GRAD] = kGrad;
        t[ThroughputModel.G2] = 0;
        double[] e = new double[EnergyModel.SIZE];
        e[EnergyModel.A_HIGH_GRAD] = wattsAtMax;
        // kappa x (log(bs + 1 + theta) + beta) with beta = 1 - log(65): the batch factor is 1 at bs = 64
        e[EnergyModel.BETA_HIGH] = 1 - Math.log(65);
        return new PerformanceModel(new ThroughputModel(t), new EnergyModel(e, 0));
    }

    static JobView job(long id, double remaining, PerformanceModel m, int maxGpus) {
        return new JobView(id, id, "w", 64, 1, remaining, 0, maxGpus, m, Assignment.WAITING);
    }
}
