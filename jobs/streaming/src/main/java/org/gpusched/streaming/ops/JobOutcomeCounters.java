package org.gpusched.streaming.ops;

import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.gpusched.streaming.avro.JobMetrics;

/**
 * Counts a controller's finished jobs, its tardy ones and their tardiness cost ({@code controller=policy#controller})
 * from the job metrics. No Flink state: chained to the controllers, counters restart with the job.
 */
public final class JobOutcomeCounters extends PerControllerMetrics<JobMetrics, JobOutcomeCounters.View> {
    private static final long serialVersionUID = 1L;

    @Override
    String policy(JobMetrics r) {
        return r.getPolicy();
    }

    @Override
    int controller(JobMetrics r) {
        return r.getController();
    }

    @Override
    View view(MetricGroup group) {
        return new View(group);
    }

    @Override
    void update(View view, JobMetrics r) {
        view.count(r);
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
