package org.gpusched.powerflow.model;

import java.util.ArrayList;
import java.util.List;

/**
 * A job's telemetry, averaged per configuration in the order the configurations were first seen: what its model is
 * fitted on. Samples are floored at 1e-9 s and 1e-9 J as they come in, so every average is positive.
 */
public final class ObservationLog {
    /** One configuration's samples: sums of step time (s) and energy per iteration (J), and their count. */
    public record Entry(Configuration config, double stepSecondsSum, double energyJoulesSum, long samples) {
        public Observation average() {
            return new Observation(config, stepSecondsSum / samples, energyJoulesSum / samples);
        }
    }

    private final List<Entry> entries;

    public ObservationLog() {
        this.entries = new ArrayList<>();
    }

    /** A log holding {@code entries} (restored from state), in their order. */
    public ObservationLog(List<Entry> entries) {
        this.entries = new ArrayList<>(entries);
    }

    public void add(Configuration c, double stepSeconds, double energyJoules) {
        double step = Math.max(stepSeconds, 1e-9), energy = Math.max(energyJoules, 1e-9);
        for (int i = 0; i < entries.size(); i++) {
            Entry e = entries.get(i);
            if (e.config.equals(c)) {
                entries.set(i, new Entry(c, e.stepSecondsSum + step, e.energyJoulesSum + energy, e.samples + 1));
                return;
            }
        }
        entries.add(new Entry(c, step, energy, 1));
    }

    /** Whether some sample was taken on {@code gpus} GPUs. */
    public boolean hasGpuCount(int gpus) {
        for (Entry e : entries) if (e.config.gpus() == gpus) return true;
        return false;
    }

    /** The average at {@code c}, or null when no sample was taken there. */
    public Observation at(Configuration c) {
        for (Entry e : entries) if (e.config.equals(c)) return e.average();
        return null;
    }

    public List<Observation> observations() {
        List<Observation> out = new ArrayList<>(entries.size());
        for (Entry e : entries) out.add(e.average());
        return out;
    }

    public List<Entry> entries() {
        return List.copyOf(entries);
    }

    public long samples() {
        long n = 0;
        for (Entry e : entries) n += e.samples;
        return n;
    }

    public int size() {
        return entries.size();
    }
}
