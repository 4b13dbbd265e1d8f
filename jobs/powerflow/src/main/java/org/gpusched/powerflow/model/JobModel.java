package org.gpusched.powerflow.model;

/**
 * What a policy may ask of a job's performance: step time and energy per iteration at a configuration. The fitted
 * {@link PerformanceModel} is the one policies normally see; the simulator's ground-truth scheduling (the paper's
 * "pre-profiled performance", Figure 9) hands them the truth through this same interface. Implementations are pure:
 * the same configuration always gives the same values, so a policy may cache them per model instance.
 */
public interface JobModel {
    double stepTime(Configuration c);

    /** Joules per iteration over all the job's GPUs. */
    double energyPerIteration(Configuration c);

    /**
     * Step time and energy per iteration at {@code c} into {@code out[0]} and {@code out[1]}: exactly the values of
     * {@link #stepTime} and {@link #energyPerIteration}; an implementation may share the work of the two.
     */
    default void evaluate(Configuration c, double[] out) {
        out[0] = stepTime(c);
        out[1] = energyPerIteration(c);
    }

    /** Average power of the job's GPUs together, in watts. */
    default double power(Configuration c) {
        return energyPerIteration(c) / stepTime(c);
    }
}
