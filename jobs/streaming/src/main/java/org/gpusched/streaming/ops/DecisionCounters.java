package org.gpusched.streaming.ops;

import java.util.EnumMap;
import java.util.HashMap;
import java.util.Map;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;
import org.gpusched.streaming.ControllerKey;
import org.gpusched.streaming.avro.DecisionAction;
import org.gpusched.streaming.avro.PlacementDecision;

/**
 * Counts a controller's decisions by action ({@code controller=policy#controller}, {@code action=START|...}) and keeps
 * the event time of its last decision. No Flink state: chained to the controllers, counters restart with the job.
 */
public final class DecisionCounters extends ProcessFunction<PlacementDecision, Void> {
    private static final long serialVersionUID = 1L;

    private transient Map<String, View> views;

    @Override
    public void open(OpenContext context) {
        views = new HashMap<>();
    }

    @Override
    public void processElement(PlacementDecision d, Context ctx, Collector<Void> out) {
        String key = ControllerKey.of(d.getPolicy(), d.getController());
        views.computeIfAbsent(key, k -> new View(getRuntimeContext().getMetricGroup().addGroup("controller", k))).count(d);
    }

    static final class View {
        private final Map<DecisionAction, Counter> byAction = new EnumMap<>(DecisionAction.class);
        private volatile double lastDecisionTime;

        View(MetricGroup group) {
            for (DecisionAction a : DecisionAction.values()) byAction.put(a, group.addGroup("action", a.name()).counter("decisions"));
            group.gauge("lastDecisionTimeSeconds", () -> lastDecisionTime);
        }

        void count(PlacementDecision d) {
            byAction.get(d.getAction()).inc();
            lastDecisionTime = d.getTime();
        }
    }
}
