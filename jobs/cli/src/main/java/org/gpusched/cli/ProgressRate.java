package org.gpusched.cli;

import java.util.ArrayDeque;
import java.util.Locale;

/**
 * The rate of a long run and the time it still needs, for its progress line: "412 jobs/s, ETA 3 min 05 s". The rate is
 * measured over the last {@value #WINDOW_SECONDS} s (an optimizer's calls cost more as the cluster fills, so the rate
 * since the start would promise too early an end), and the ETA is what is left at that rate.
 */
final class ProgressRate {
    static final double WINDOW_SECONDS = 30;

    private record Sample(double seconds, double done) {}

    private final ArrayDeque<Sample> samples = new ArrayDeque<>();

    /**
     * Records that {@code done} of {@code total} units were done {@code seconds} into the run and returns ", R UNIT/s,
     * ETA T" (or ", ETA unknown" while nothing was done in the window; nothing once all is done or before a second).
     */
    String after(double seconds, double done, double total, String unit) {
        samples.addLast(new Sample(seconds, done));
        while (samples.size() > 2 && samples.peekFirst().seconds() < seconds - WINDOW_SECONDS) samples.removeFirst();
        Sample first = samples.peekFirst();
        double span = seconds - first.seconds();
        if (span < 1 || done >= total) return "";
        double rate = (done - first.done()) / span;
        if (!(rate > 0)) return String.format(Locale.ROOT, ", 0 %s/s, ETA unknown", unit);
        return String.format(Locale.ROOT, ", %,.0f %s/s, ETA %s", rate, unit, duration((total - done) / rate));
    }

    /** "45 s", "3 min 05 s", "2 h 07 min". */
    static String duration(double seconds) {
        long s = Math.round(seconds);
        if (s < 60) return s + " s";
        if (s < 3600) return String.format(Locale.ROOT, "%d min %02d s", s / 60, s % 60);
        return String.format(Locale.ROOT, "%d h %02d min", s / 3600, s % 3600 / 60);
    }
}
