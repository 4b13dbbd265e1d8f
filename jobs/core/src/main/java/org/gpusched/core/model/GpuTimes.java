package org.gpusched.core.model;

import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Arrays;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;

/**
 * A job's predicted seconds on one node type by GPU count, read-only, in ascending GPU order: a view of one type's
 * stretch of the arrays {@link TimesByType} holds, made when asked for.
 */
final class GpuTimes extends AbstractMap<Integer, Double> {
    private final int[] gpus;
    private final double[] seconds;
    /** This type's entries are [from, to) of the arrays. */
    private final int from, to;

    GpuTimes(int[] gpus, double[] seconds, int from, int to) {
        this.gpus = gpus;
        this.seconds = seconds;
        this.from = from;
        this.to = to;
    }

    /** Seconds with {@code gpuCount} GPUs, NaN when absent. */
    double seconds(int gpuCount) {
        int at = Arrays.binarySearch(gpus, from, to, gpuCount);
        return at < 0 ? Double.NaN : seconds[at];
    }

    @Override
    public int size() {
        return to - from;
    }

    @Override
    public boolean containsKey(Object key) {
        return key instanceof Integer g && Arrays.binarySearch(gpus, from, to, g) >= 0;
    }

    @Override
    public Double get(Object key) {
        if (!(key instanceof Integer g)) return null;
        int at = Arrays.binarySearch(gpus, from, to, g);
        return at < 0 ? null : seconds[at];
    }

    @Override
    public Set<Map.Entry<Integer, Double>> entrySet() {
        return new AbstractSet<>() {
            @Override
            public int size() {
                return to - from;
            }

            @Override
            public Iterator<Map.Entry<Integer, Double>> iterator() {
                return new Iterator<>() {
                    private int next = from;

                    @Override
                    public boolean hasNext() {
                        return next < to;
                    }

                    @Override
                    public Map.Entry<Integer, Double> next() {
                        if (next >= to) throw new NoSuchElementException();
                        int k = next++;
                        return new AbstractMap.SimpleImmutableEntry<>(gpus[k], seconds[k]);
                    }
                };
            }
        };
    }
}
