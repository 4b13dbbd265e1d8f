package org.gpusched.core.random;

/**
 * A seeded generator whose whole state is one long (SplitMix64), so a caller can keep it in Flink state and resume
 * exactly after a restart. Not thread-safe; one per controller.
 */
public final class RandomState {
    private long state;

    public RandomState(long state) {
        this.state = state;
    }

    public long state() {
        return state;
    }

    /** A generator derived from a run seed and a stream index (controller, policy, ...), decorrelated by mixing. */
    public static RandomState derive(long seed, long stream) {
        return new RandomState(mix(seed ^ mix(stream + 0x632BE59BD9B4E019L)));
    }

    private static final long GAMMA = 0x9E3779B97F4A7C15L;

    public long nextLong() {
        state += GAMMA;
        return mix(state);
    }

    /** Advances the state as {@code draws} calls of {@link #nextLong} or {@link #nextDouble} would, in O(1). */
    public void skip(long draws) {
        if (draws < 0) throw new IllegalArgumentException("draws must be >= 0, got " + draws);
        state += draws * GAMMA;
    }

    /** Uniform in [0, 1). */
    public double nextDouble() {
        return (nextLong() >>> 11) * 0x1.0p-53;
    }

    /** Uniform in [0, bound). */
    public int nextInt(int bound) {
        if (bound <= 0) throw new IllegalArgumentException("bound must be positive");
        return (int) Math.floorMod(nextLong(), (long) bound);
    }

    /** Index i drawn with probability weights[i] / sum (weights >= 0, over the first {@code count}). */
    public int nextWeighted(double[] weights, int count) {
        double sum = 0;
        for (int i = 0; i < count; i++) sum += weights[i];
        if (!(sum > 0)) return nextInt(count);
        double x = nextDouble() * sum;
        for (int i = 0; i < count; i++) {
            x -= weights[i];
            if (x < 0) return i;
        }
        return count - 1;
    }

    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
