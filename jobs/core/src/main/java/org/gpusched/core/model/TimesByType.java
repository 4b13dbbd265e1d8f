package org.gpusched.core.model;

import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Arrays;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Set;

/**
 * A job's predicted seconds by node type (in the order given), then by GPU count (ascending), read-only: the {@link
 * Map} view {@link Job#times} gives, held as four flat arrays. A controller holds a job's model for every job waiting
 * or running, a million at a time on an overloaded trace, and the young collections copy each of them once at least:
 * a map of per-type maps held about 40 objects for a job of nine types, this holds five.
 */
final class TimesByType extends AbstractMap<String, Map<Integer, Double>> {
    private final String[] types;
    /** Type t's entries are [from[t], from[t + 1]) of {@link #gpus} and {@link #seconds}. */
    private final int[] from;

    private final int[] gpus;
    private final double[] seconds;

    private TimesByType(String[] types, int[] from, int[] gpus, double[] seconds) {
        this.types = types;
        this.from = from;
        this.gpus = gpus;
        this.seconds = seconds;
    }

    /** The entries of {@code times}, whose keys and values are not null; a type without times is left out. */
    static TimesByType of(Map<String, Map<Integer, Double>> times) {
        int typeCount = 0, total = 0;
        for (Map<Integer, Double> perGpus : times.values()) {
            if (perGpus.isEmpty()) continue;
            typeCount++;
            total += perGpus.size();
        }
        String[] types = new String[typeCount];
        int[] from = new int[typeCount + 1];
        int[] gpus = new int[total];
        double[] seconds = new double[total];
        int t = 0, at = 0;
        for (Map.Entry<String, Map<Integer, Double>> byType : times.entrySet()) {
            Map<Integer, Double> perGpus = byType.getValue();
            if (perGpus.isEmpty()) continue;
            types[t] = byType.getKey();
            from[t++] = at;
            int start = at;
            for (Integer g : perGpus.keySet()) gpus[at++] = g;
            Arrays.sort(gpus, start, at);
            for (int i = start; i < at; i++) seconds[i] = perGpus.get(gpus[i]);
        }
        from[typeCount] = at;
        return new TimesByType(types, from, gpus, seconds);
    }

    /** Seconds on {@code type} with {@code gpuCount} GPUs, NaN when absent. */
    double seconds(String type, int gpuCount) {
        int t = indexOf(type);
        if (t < 0) return Double.NaN;
        int at = Arrays.binarySearch(gpus, from[t], from[t + 1], gpuCount);
        return at < 0 ? Double.NaN : seconds[at];
    }

    private int indexOf(Object type) {
        // type names are mostly the very strings the job was built with
        for (int t = 0; t < types.length; t++) if (types[t] == type) return t;
        for (int t = 0; t < types.length; t++) if (Objects.equals(types[t], type)) return t;
        return -1;
    }

    private GpuTimes perGpus(int t) {
        return new GpuTimes(gpus, seconds, from[t], from[t + 1]);
    }

    @Override
    public int size() {
        return types.length;
    }

    @Override
    public boolean containsKey(Object type) {
        return indexOf(type) >= 0;
    }

    @Override
    public Map<Integer, Double> get(Object type) {
        int t = indexOf(type);
        return t < 0 ? null : perGpus(t);
    }

    @Override
    public Set<Map.Entry<String, Map<Integer, Double>>> entrySet() {
        return new AbstractSet<>() {
            @Override
            public int size() {
                return types.length;
            }

            @Override
            public Iterator<Map.Entry<String, Map<Integer, Double>>> iterator() {
                return new Iterator<>() {
                    private int next;

                    @Override
                    public boolean hasNext() {
                        return next < types.length;
                    }

                    @Override
                    public Map.Entry<String, Map<Integer, Double>> next() {
                        if (next >= types.length) throw new NoSuchElementException();
                        int t = next++;
                        return new AbstractMap.SimpleImmutableEntry<>(types[t], perGpus(t));
                    }
                };
            }
        };
    }
}
