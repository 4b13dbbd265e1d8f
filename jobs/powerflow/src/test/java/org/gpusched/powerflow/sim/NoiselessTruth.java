package org.gpusched.powerflow.sim;

import org.gpusched.powerflow.truth.GroundTruth;
import org.gpusched.powerflow.truth.PowerflowConfig;
import org.gpusched.powerflow.truth.ZeusMeasurements;

/** The bundled ground truth with its telemetry noise off, for simulations whose figures tests work by hand. */
final class NoiselessTruth {
    static final GroundTruth TRUTH = of(PowerflowConfig.defaults());

    private NoiselessTruth() {}

    private static GroundTruth of(PowerflowConfig c) {
        return new GroundTruth(
                new PowerflowConfig(
                        c.gpu(),
                        c.scaling(),
                        new PowerflowConfig.Telemetry(0, c.telemetry().profileSecondsPerLimit()),
                        c.workloads()),
                ZeusMeasurements.v100());
    }
}
