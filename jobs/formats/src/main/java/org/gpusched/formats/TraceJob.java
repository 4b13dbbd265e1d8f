package org.gpusched.formats;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import org.gpusched.core.model.Job;

/**
 * One line of a trace: the job the scheduler uses, plus the optional fields the trace carries (application,
 * epochs, batch size, actualFactor, ...) kept verbatim so a run directory can echo them. The extras keep their order,
 * so that a trace written from the same jobs is the same bytes in every run; an extra that is null is an absent one.
 */
public record TraceJob(Job job, Map<String, Object> extras) {
    public TraceJob {
        Map<String, Object> present = new LinkedHashMap<>();
        if (extras != null)
            extras.forEach((name, value) -> {
                if (value != null) present.put(name, value);
            });
        extras = Collections.unmodifiableMap(present);
    }

    /** Real duration / predicted duration when noise made them differ (replay noise), 1 otherwise. */
    public double actualFactor() {
        Object f = extras.get("actualFactor");
        return f instanceof Number n ? n.doubleValue() : 1.0;
    }
}
