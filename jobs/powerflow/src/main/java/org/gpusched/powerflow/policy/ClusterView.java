package org.gpusched.powerflow.policy;

/**
 * The cluster a policy decides for: GPU count, GPUs per node, the supported power limits (W, ascending; the frequency
 * knob) and P_max, the mean GPU power of a training job at the largest limit.
 */
public record ClusterView(int totalGpus, int gpusPerNode, double[] powerLimits, double maxPower) {
    public double maxLimit() {
        return powerLimits[powerLimits.length - 1];
    }

    public double freq(double powerLimit) {
        return powerLimit / maxLimit();
    }
}
