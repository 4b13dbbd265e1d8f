package org.gpusched.streaming.ops;

import java.util.HashMap;
import java.util.Map;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;
import org.gpusched.streaming.ControllerKey;
import org.gpusched.streaming.avro.JobMetrics;

/**
 * Counts a controller's finished jobs, its tardy ones and their tardiness cost ({@code controller=policy#controller})
 * from the job metrics. No Flink state: chained to the controllers, counters restart with the job.
 */
public final class JobOutcomeCounters extends ProcessFunction<JobMetrics, Void> {
    private static final long serialVersionUID = 1L;

    private transient Map<String, View> views;

    @Override
    public void open(OpenContext context) {
        views = new HashMap<>();
    }

    @Override
    public void processElement(JobMetrics m, Context ctx, Collector<Void> out) {
        String key = ControllerKey.of(m.getPolicy(), m.getController());
        views.computeIfAbsent(key, k -> new View(getRuntimeContext().getMetricGroup().addGroup("controller", k))).count(m);
    }

    static final class View {
        private final Counter finished;
        private final Counter tardy;
        private volatile double tardinessCost;

        View(MetricGroup group) {
            finished = group.counter("finishedJobs");
            tardy = group.counter("tardyJobs");
            group.gauge("tardinessCostOfFinished", () -> tardinessCost);
        }

        void count(JobMetrics m) {
            finished.inc();
            if (m.getTardinessSeconds() > 0) tardy.inc();
            tardinessCost += m.getTardinessCost();
        }
    }
}
