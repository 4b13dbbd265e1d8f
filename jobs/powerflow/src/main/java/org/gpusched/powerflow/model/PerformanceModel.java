package org.gpusched.powerflow.model;

/** A job's fitted throughput and energy models: what the scheduler believes the job does at a configuration. */
public record PerformanceModel(ThroughputModel time, EnergyModel energy) implements JobModel {
    @Override
    public double stepTime(Configuration c) {
        return time.stepTime(c);
    }

    /** Joules per iteration over all the job's GPUs; never below a tenth of a watt-second per GPU-second. */
    @Override
    public double energyPerIteration(Configuration c) {
        return Math.max(energy.energyPerIteration(time, c), 0.1 * c.gpus() * time.stepTime(c));
    }

    @Override
    public double power(Configuration c) {
        return energyPerIteration(c) / stepTime(c);
    }
}
