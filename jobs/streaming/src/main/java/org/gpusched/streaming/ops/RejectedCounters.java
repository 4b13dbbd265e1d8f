package org.gpusched.streaming.ops;

import java.util.HashMap;
import java.util.Map;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;
import org.gpusched.streaming.avro.RejectedRecord;

/**
 * Counts rejected input records per source (a topic or file, {@code source=...}); the records themselves, with their
 * reasons, go to the rejected topic. No Flink state: counters restart with the job.
 */
public final class RejectedCounters extends ProcessFunction<RejectedRecord, Void> {
    private static final long serialVersionUID = 1L;

    private transient Map<String, Counter> bySource;

    @Override
    public void open(OpenContext context) {
        bySource = new HashMap<>();
    }

    @Override
    public void processElement(RejectedRecord r, Context ctx, Collector<Void> out) {
        bySource.computeIfAbsent(
                        r.getSource(),
                        s -> getRuntimeContext()
                                .getMetricGroup()
                                .addGroup("source", s)
                                .counter("rejectedRecords"))
                .inc();
    }
}
