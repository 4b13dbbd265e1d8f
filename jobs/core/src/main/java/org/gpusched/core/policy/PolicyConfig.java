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
 * @param threads           threads that run the randomized iterations of one {@code andreas-rg} (and {@code rg-ls})
 *                          call, the caller's included; decisions do not depend on it (every iteration has its own
 *                          random stream and the best is chosen by f_OBJ, then by iteration)
 * @param iterationsWithoutGain a randomized greedy call stops once this many iterations in a row have built nothing
 *                          better than its best so far (checked every {@value GreedyEngine#GAIN_CHECK} iterations);
 *                          0 runs all {@code maxIterations}, as the paper does
 */
public record PolicyConfig(
        int maxIterations,
        boolean bestFit,
        int localSearchK,
        int localSearchKeep,
        double milpTimeLimitSeconds,
        boolean workConserving,
        int threads,
        int iterationsWithoutGain) {
    /** The default of {@link #threads}: every processor the JVM sees. */
    public static final int DEFAULT_THREADS = Runtime.getRuntime().availableProcessors();

    public static final PolicyConfig DEFAULTS = new PolicyConfig(1000, true, 10, 5, 30, true, DEFAULT_THREADS, 0);

    public PolicyConfig {
        if (maxIterations < 1) throw new IllegalArgumentException("maxIterations must be >= 1, got " + maxIterations);
        if (localSearchK < 1) throw new IllegalArgumentException("localSearchK must be >= 1, got " + localSearchK);
        if (localSearchKeep < 1)
            throw new IllegalArgumentException("localSearchKeep must be >= 1, got " + localSearchKeep);
        if (!(milpTimeLimitSeconds > 0))
            throw new IllegalArgumentException("milpTimeLimitSeconds must be > 0, got " + milpTimeLimitSeconds);
        if (threads < 1) throw new IllegalArgumentException("threads must be >= 1, got " + threads);
        if (iterationsWithoutGain < 0)
            throw new IllegalArgumentException("iterationsWithoutGain must be >= 0, got " + iterationsWithoutGain);
    }

    /** Running every iteration ({@code iterationsWithoutGain} 0). */
    public PolicyConfig(
            int maxIterations,
            boolean bestFit,
            int localSearchK,
            int localSearchKeep,
            double milpTimeLimitSeconds,
            boolean workConserving,
            int threads) {
        this(maxIterations, bestFit, localSearchK, localSearchKeep, milpTimeLimitSeconds, workConserving, threads, 0);
    }

    /** With {@link #DEFAULT_THREADS}. */
    public PolicyConfig(
            int maxIterations,
            boolean bestFit,
            int localSearchK,
            int localSearchKeep,
            double milpTimeLimitSeconds,
            boolean workConserving) {
        this(
                maxIterations,
                bestFit,
                localSearchK,
                localSearchKeep,
                milpTimeLimitSeconds,
                workConserving,
                DEFAULT_THREADS);
    }

    /** Work-conserving, as {@link #DEFAULTS}. */
    public PolicyConfig(
            int maxIterations, boolean bestFit, int localSearchK, int localSearchKeep, double milpTimeLimitSeconds) {
        this(maxIterations, bestFit, localSearchK, localSearchKeep, milpTimeLimitSeconds, true);
    }

    public PolicyConfig withMaxIterations(int it) {
        return new PolicyConfig(
                it,
                bestFit,
                localSearchK,
                localSearchKeep,
                milpTimeLimitSeconds,
                workConserving,
                threads,
                iterationsWithoutGain);
    }

    public PolicyConfig withWorkConserving(boolean conserving) {
        return new PolicyConfig(
                maxIterations,
                bestFit,
                localSearchK,
                localSearchKeep,
                milpTimeLimitSeconds,
                conserving,
                threads,
                iterationsWithoutGain);
    }

    public PolicyConfig withThreads(int count) {
        return new PolicyConfig(
                maxIterations,
                bestFit,
                localSearchK,
                localSearchKeep,
                milpTimeLimitSeconds,
                workConserving,
                count,
                iterationsWithoutGain);
    }

    public PolicyConfig withIterationsWithoutGain(int count) {
        return new PolicyConfig(
                maxIterations,
                bestFit,
                localSearchK,
                localSearchKeep,
                milpTimeLimitSeconds,
                workConserving,
                threads,
                count);
    }
}
