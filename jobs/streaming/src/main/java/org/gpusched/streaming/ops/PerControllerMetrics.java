package org.gpusched.streaming.ops;

import java.util.HashMap;
import java.util.Map;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;
import org.gpusched.streaming.ControllerKey;

/**
 * Metrics kept per controller from one of its output streams: each controller ("policy#controller") gets its own
 * metric group ({@code controller=policy#controller}) and a view of figures its metrics read, made on its first record.
 * No Flink state: chained to the controllers, so each controller's records reach the subtask that runs it.
 *
 * @param <T> the record type
 * @param <V> the view a controller's metrics read
 */
abstract class PerControllerMetrics<T, V> extends ProcessFunction<T, Void> {
    private static final long serialVersionUID = 1L;

    private transient Map<String, V> views;

    @Override
    public void open(OpenContext context) {
        views = new HashMap<>();
    }

    @Override
    public void processElement(T record, Context ctx, Collector<Void> out) {
        String key = ControllerKey.of(policy(record), controller(record));
        update(
                views.computeIfAbsent(
                        key, k -> view(getRuntimeContext().getMetricGroup().addGroup("controller", k))),
                record);
    }

    abstract String policy(T record);

    abstract int controller(T record);

    /** A new controller's view, registering its metrics in the controller's group. */
    abstract V view(MetricGroup controllerGroup);

    abstract void update(V view, T record);
}
