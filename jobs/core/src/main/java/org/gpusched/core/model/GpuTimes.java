package org.gpusched.core.model;

import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Arrays;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;

/**
 * A job's predicted seconds on one node type by GPU count, read-only, in ascending GPU order: two primitive arrays
 * behind the {@link Map} view {@link Job#times} gives. A controller holds a job's model for every job waiting or
 * running, a million at a time on an overloaded trace, and a sorted tree of boxed entries cost about 2 KB a job more.
 */
final class GpuTimes extends AbstractMap<Integer, Double> {
    private final int[] gpus;
    private final double[] seconds;

    private GpuTimes(int[] gpus, double[] seconds) {
        this.gpus = gpus;
        this.seconds = seconds;
    }

    /** The entries of {@code times} (non-null keys and values), sorted by GPU count. */
    static GpuTimes of(Map<Integer, Double> times) {
        int[] g = new int[times.size()];
        int i = 0;
        for (Integer k : times.keySet()) g[i++] = k;
        Arrays.sort(g);
        double[] s = new double[g.length];
        for (int k = 0; k < g.length; k++) s[k] = times.get(g[k]);
        return new GpuTimes(g, s);
    }

    /** Seconds with {@code gpuCount} GPUs, NaN when absent. */
    double seconds(int gpuCount) {
        int at = Arrays.binarySearch(gpus, gpuCount);
        return at < 0 ? Double.NaN : seconds[at];
    }

    @Override
    public int size() {
        return gpus.length;
    }

    @Override
    public boolean containsKey(Object key) {
        return key instanceof Integer g && Arrays.binarySearch(gpus, g) >= 0;
    }

    @Override
    public Double get(Object key) {
        if (!(key instanceof Integer g)) return null;
        int at = Arrays.binarySearch(gpus, g);
        return at < 0 ? null : seconds[at];
    }

    @Override
    public Set<Map.Entry<Integer, Double>> entrySet() {
        return new AbstractSet<>() {
            @Override
            public int size() {
                return gpus.length;
            }

            @Override
            public Iterator<Map.Entry<Integer, Double>> iterator() {
                return new Iterator<>() {
                    private int next;

                    @Override
                    public boolean hasNext() {
                        return next < gpus.length;
                    }

                    @Override
                    public Map.Entry<Integer, Double> next() {
                        if (next >= gpus.length) throw new NoSuchElementException();
                        int k = next++;
                        return new AbstractMap.SimpleImmutableEntry<>(gpus[k], seconds[k]);
                    }
                };
            }
        };
    }
}
