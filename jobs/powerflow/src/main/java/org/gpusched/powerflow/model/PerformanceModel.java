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

    /** The step time once instead of three times (here and twice inside the energy): the same values, a third of the work. */
    @Override
    public void evaluate(Configuration c, double[] out) {
        double step = time.stepTime(c);
        out[0] = step;
        out[1] = Math.max(energy.energyPerIteration(time, c, step), 0.1 * c.gpus() * step);
    }

    @Override
    public double power(Configuration c) {
        return energyPerIteration(c) / stepTime(c);
    }
}
