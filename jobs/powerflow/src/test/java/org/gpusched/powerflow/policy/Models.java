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

    static JobView job(long id, double remaining, PerformanceModel m, int maxGpus) {
        return new JobView(id, id, "w", 64, 1, remaining, 0, maxGpus, m, Assignment.WAITING);
    }
}
