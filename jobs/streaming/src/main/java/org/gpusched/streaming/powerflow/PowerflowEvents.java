package org.gpusched.streaming.powerflow;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.gpusched.streaming.avro.Telemetry;
import org.gpusched.streaming.state.PowerflowEvent;

/** The order in which events of one time are handled, whatever order they arrived in: (time, kind, job, content). */
final class PowerflowEvents {
    private PowerflowEvents() {}

    static final Comparator<PowerflowEvent> ORDER = Comparator.comparingLong(PowerflowEvent::getTimeMillis)
            .thenComparing(PowerflowEvent::getKind)
            .thenComparing(PowerflowEvent::getJob)
            .thenComparing(e -> e.getTelemetry() == null ? "" : content(e.getTelemetry()))
            .thenComparing(PowerflowEvent::getSource)
            .thenComparing(PowerflowEvent::getPosition);

    /** Events due by {@code time}, sorted; the rest stay in {@code later}. */
    static List<PowerflowEvent> due(Iterable<PowerflowEvent> pending, long time, List<PowerflowEvent> later) {
        List<PowerflowEvent> now = new ArrayList<>();
        if (pending != null) for (PowerflowEvent e : pending) (e.getTimeMillis() <= time ? now : later).add(e);
        now.sort(ORDER);
        return now;
    }

    /** Whether a telemetry sample carries the performance fields (step time and power at a configuration). */
    static boolean isSample(Telemetry t) {
        return t != null && t.getStepSeconds() != null;
    }

    private static String content(Telemetry t) {
        return t.getIterationsDone() + "/" + t.getStepSeconds() + "/" + t.getGpuPowerWatts() + "/" + t.getGpus() + "/"
                + t.getPowerLimitWatts() + "/" + t.getLocalBatch();
    }
}
