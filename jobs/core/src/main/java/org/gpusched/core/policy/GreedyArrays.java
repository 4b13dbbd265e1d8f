package org.gpusched.core.policy;

import java.util.Arrays;

/** Scratch arrays of the greedy engine's parts, reused from call to call and grown only when too small. */
final class GreedyArrays {
    private GreedyArrays() {}

    /** An array of at least {@code size}; the contents are not kept (per-call scratch is rewritten anyway). */
    static int[] grow(int[] a, int size) {
        return a.length >= size ? a : new int[Math.max(size, a.length * 3 / 2)];
    }

    static long[] grow(long[] a, int size) {
        return a.length >= size ? a : new long[Math.max(size, a.length * 3 / 2)];
    }

    static double[] grow(double[] a, int size) {
        return a.length >= size ? a : new double[Math.max(size, a.length * 3 / 2)];
    }

    static boolean[] grow(boolean[] a, int size) {
        return a.length >= size ? a : new boolean[Math.max(size, a.length * 3 / 2)];
    }

    /** Like grow, keeping the contents. */
    static int[] extend(int[] a, int size) {
        return a.length >= size ? a : Arrays.copyOf(a, Math.max(size, a.length * 2));
    }

    static double[] extend(double[] a, int size) {
        return a.length >= size ? a : Arrays.copyOf(a, Math.max(size, a.length * 2));
    }

    /** {@code source[0..length)} copied into {@code target}, grown when needed. */
    static int[] copyInto(int[] target, int[] source, int length) {
        int[] copy = grow(target, length);
        System.arraycopy(source, 0, copy, 0, length);
        return copy;
    }
}
