package org.gpusched.core.policy;

/**
 * Tunables of the policies, one immutable record.
 *
 * @param maxIterations     MaxIt of the randomized greedy (ANDREAS: 1000)
 * @param bestFit           greedy assignment to open nodes by best fit (saturation) instead of first fit
 * @param localSearchK      k of the thesis' local search: jobs/nodes considered per neighbourhood
 * @param localSearchKeep   how many of the best randomized solutions the local search starts from
 * @param milpTimeLimitSeconds wall-clock limit of the exact solver
 * @param workConserving    {@code rg-ls} and {@code milp} never leave a job waiting while some node could host it
 *                          ({@link WorkConservation}); false lets them postpone by choice when f_OBJ prefers it
 *                          ({@code milp-relaxed} always does)
 */
public record PolicyConfig(
        int maxIterations,
        boolean bestFit,
        int localSearchK,
        int localSearchKeep,
        double milpTimeLimitSeconds,
        boolean workConserving) {
    public static final PolicyConfig DEFAULTS = new PolicyConfig(1000, true, 10, 5, 30, true);

    public PolicyConfig {
        if (maxIterations < 1) throw new IllegalArgumentException("maxIterations must be >= 1, got " + maxIterations);
        if (localSearchK < 1) throw new IllegalArgumentException("localSearchK must be >= 1, got " + localSearchK);
        if (localSearchKeep < 1)
            throw new IllegalArgumentException("localSearchKeep must be >= 1, got " + localSearchKeep);
        if (!(milpTimeLimitSeconds > 0))
            throw new IllegalArgumentException("milpTimeLimitSeconds must be > 0, got " + milpTimeLimitSeconds);
    }

    /** Work-conserving, as {@link #DEFAULTS}. */
    public PolicyConfig(
            int maxIterations, boolean bestFit, int localSearchK, int localSearchKeep, double milpTimeLimitSeconds) {
        this(maxIterations, bestFit, localSearchK, localSearchKeep, milpTimeLimitSeconds, true);
    }

    public PolicyConfig withMaxIterations(int it) {
        return new PolicyConfig(it, bestFit, localSearchK, localSearchKeep, milpTimeLimitSeconds, workConserving);
    }

    public PolicyConfig withWorkConserving(boolean conserving) {
        return new PolicyConfig(
                maxIterations, bestFit, localSearchK, localSearchKeep, milpTimeLimitSeconds, conserving);
    }
}
