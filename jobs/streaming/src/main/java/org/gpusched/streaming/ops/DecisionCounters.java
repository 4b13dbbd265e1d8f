package org.gpusched.streaming.ops;

import java.util.EnumMap;
import java.util.Map;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.gpusched.streaming.avro.DecisionAction;
import org.gpusched.streaming.avro.PlacementDecision;

/**
 * Counts a controller's decisions by action ({@code controller=policy#controller}, {@code action=START|...}) and keeps
 * the event time of its last decision. No Flink state: chained to the controllers, counters restart with the job.
 */
public final class DecisionCounters extends PerControllerMetrics<PlacementDecision, DecisionCounters.View> {
    private static final long serialVersionUID = 1L;

    @Override
    String policy(PlacementDecision r) {
        return r.getPolicy();
    }

    @Override
    int controller(PlacementDecision r) {
        return r.getController();
    }

    @Override
    View view(MetricGroup group) {
        return new View(group);
    }

    @Override
    void update(View view, PlacementDecision r) {
        view.count(r);
    }

    static final class View {
        private final Map<DecisionAction, Counter> byAction = new EnumMap<>(DecisionAction.class);
        private volatile double lastDecisionTime;

        View(MetricGroup group) {
            for (DecisionAction a : DecisionAction.values())
                byAction.put(a, group.addGroup("action", a.name()).counter("decisions"));
            group.gauge("lastDecisionTimeSeconds", () -> lastDecisionTime);
        }

        void count(PlacementDecision d) {
            byAction.get(d.getAction()).inc();
            lastDecisionTime = d.getTime();
        }
    }
}
