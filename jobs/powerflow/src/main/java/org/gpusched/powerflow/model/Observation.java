package org.gpusched.powerflow.model;

/** What a job reported at one configuration: seconds per iteration and GPU joules per iteration (all its GPUs). */
public record Observation(Configuration config, double stepTime, double energyPerIteration) {
    public Observation {
        if (!(stepTime > 0) || !(energyPerIteration > 0))
            throw new IllegalArgumentException("step time and energy must be > 0");
    }
}
