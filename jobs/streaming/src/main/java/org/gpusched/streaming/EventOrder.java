package org.gpusched.streaming;

import java.util.ArrayList;
import java.util.Comparator;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.streaming.api.TimerService;
import org.gpusched.streaming.state.ControllerEvent;
import org.gpusched.streaming.state.EventBatch;

/**
 * The processing order of events with the same timestamp: (time, kind, id), kinds in {@code EventKind} declaration
 * order (completions free resources first, then node changes, telemetry, submissions). Position (shorter first, so
 * "f:7" before "f:27") is the last tie-break, only for duplicates, of which the dispatcher keeps the first.
 */
final class EventOrder {
    static final Comparator<ControllerEvent> ORDER = Comparator.comparingLong(ControllerEvent::getTimeMillis)
            .thenComparing(e -> e.getKind().ordinal())
            .thenComparing(ControllerEvent::getId)
            .thenComparingInt(e -> e.getPosition().length())
            .thenComparing(ControllerEvent::getPosition);

    private EventOrder() {}

    /**
     * Holds an event back until the watermark passes its timestamp (an event-time timer at that time), so that all
     * events of one timestamp are handled together, in {@link #ORDER}, whatever order they arrived in.
     */
    static void holdUntilWatermark(ControllerEvent event, MapState<Long, EventBatch> pending, TimerService timers)
            throws Exception {
        long t = event.getTimeMillis();
        EventBatch batch = pending.get(t);
        if (batch == null) batch = new EventBatch(new ArrayList<>());
        batch.getEvents().add(event);
        pending.put(t, batch);
        timers.registerEventTimeTimer(t);
    }
}
