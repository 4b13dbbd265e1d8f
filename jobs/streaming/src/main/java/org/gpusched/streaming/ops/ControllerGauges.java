package org.gpusched.streaming.ops;

import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Histogram;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.runtime.metrics.DescriptiveStatisticsHistogram;
import org.gpusched.streaming.avro.SchedulingMetrics;

/**
 * A controller's live state as Flink metrics, from its scheduling metrics: queue length, running jobs, busy GPUs,
 * node cost rate, cost so far, completed jobs, the event time it has reached, reschedulings, and a histogram of the
 * optimizer's wall time per call made (microseconds). Each controller gets its own metric group
 * ({@code controller=policy#controller}), so a Prometheus scrape shows one series per controller.
 *
 * <p>It holds no Flink state: it is chained to the controllers' side output, so each controller's records reach the
 * subtask that runs it, and every gauge is a copy of the last record's field (after a restore the gauges show the
 * next rescheduling's figures).
 */
public final class ControllerGauges extends PerControllerMetrics<SchedulingMetrics, ControllerGauges.View> {
    private static final long serialVersionUID = 1L;

    @Override
    String policy(SchedulingMetrics r) {
        return r.getPolicy();
    }

    @Override
    int controller(SchedulingMetrics r) {
        return r.getController();
    }

    @Override
    View view(MetricGroup group) {
        return new View(group);
    }

    @Override
    void update(View view, SchedulingMetrics r) {
        view.update(r);
    }

    /** Latency samples kept per controller for the histogram's percentiles. */
    static final int LATENCY_WINDOW = 1024;

    static final class View {
        private volatile SchedulingMetrics last;
        private final Counter reschedulings;
        private final Histogram optimizerMicros;

        View(MetricGroup group) {
            group.gauge("queueLength", () -> last == null ? 0 : last.getQueueLength());
            group.gauge("runningJobs", () -> last == null ? 0 : last.getRunning());
            group.gauge("busyGpus", () -> last == null ? 0 : last.getBusyGpus());
            group.gauge("costRatePerHour", () -> last == null ? 0.0 : last.getCostRatePerHour());
            group.gauge(
                    "totalCost",
                    () -> last == null ? 0.0 : last.getAccruedExecutionCost() + last.getAccruedTardinessCost());
            group.gauge("completedJobs", () -> last == null ? 0L : last.getCompletedJobs());
            group.gauge("eventTimeSeconds", () -> last == null ? 0.0 : last.getTime());
            reschedulings = group.counter("reschedulings");
            optimizerMicros = group.histogram("optimizerMicros", new DescriptiveStatisticsHistogram(LATENCY_WINDOW));
        }

        void update(SchedulingMetrics m) {
            last = m;
            reschedulings.inc();
            if (m.getOptimizerNanos() > 0) optimizerMicros.update(m.getOptimizerNanos() / 1_000);
        }
    }
}
