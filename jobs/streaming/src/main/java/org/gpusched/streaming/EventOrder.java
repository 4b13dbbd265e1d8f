package org.gpusched.streaming;

import java.util.Comparator;
import org.gpusched.streaming.state.ControllerEvent;

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
}
