package org.gpusched.formats;

import java.util.Map;
import org.gpusched.core.model.Job;

/**
 * One line of a trace: the job the scheduler uses, plus the optional fields the trace carries (application,
 * epochs, batch size, actualFactor, ...) kept verbatim so a run directory can echo them.
 */
public record TraceJob(Job job, Map<String, Object> extras) {
    public TraceJob {
        extras = extras == null ? Map.of() : Map.copyOf(extras);
    }

    /** Real duration / predicted duration when noise made them differ (replay noise), 1 otherwise. */
    public double actualFactor() {
        Object f = extras.get("actualFactor");
        return f instanceof Number n ? n.doubleValue() : 1.0;
    }
}
