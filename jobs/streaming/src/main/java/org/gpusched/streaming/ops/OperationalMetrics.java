package org.gpusched.streaming.ops;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MetricOptions;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.gpusched.streaming.ControllerFunction;
import org.gpusched.streaming.avro.PlacementDecision;
import org.gpusched.streaming.avro.RejectedRecord;

/**
 * The scheduler's live state as Flink metrics (docs/operations.md lists them): per controller the queue, running jobs,
 * busy GPUs, cost rate, decisions by action, tardy jobs and optimizer latency, and rejected records per source. The
 * functions are chained to the operators whose output they count, so they add no network hop; any Flink metric
 * reporter exposes them, and {@link #prometheus} configures Flink's Prometheus reporter.
 */
public final class OperationalMetrics {
    /** The reporter's name in Flink's configuration ({@code metrics.reporter.prom.*}). */
    public static final String PROMETHEUS = "prom";

    private OperationalMetrics() {}

    /** Attaches the metric functions to a defined scheduler job's controllers and rejected records. */
    public static void attach(
            SingleOutputStreamOperator<PlacementDecision> controllers, DataStream<RejectedRecord> rejected) {
        controllers
                .getSideOutput(ControllerFunction.SCHEDULING_METRICS)
                .process(new ControllerGauges())
                .uid("ops-controller-gauges")
                .name("metrics: controller gauges");
        controllers.process(new DecisionCounters()).uid("ops-decision-counters").name("metrics: decisions");
        controllers
                .getSideOutput(ControllerFunction.JOB_METRICS)
                .process(new JobOutcomeCounters())
                .uid("ops-job-outcomes")
                .name("metrics: job outcomes");
        rejected.process(new RejectedCounters()).uid("ops-rejected").name("metrics: rejected records");
    }

    /**
     * Turns on the Prometheus reporter, serving every metric at {@code http://HOST:PORT/metrics} on {@code host} only
     * ({@link BoundPrometheusReporter}: Flink's own listens on every interface).
     *
     * @param ports a port or a range such as {@code 9249-9259} (each TaskManager of a cluster takes the next free one)
     * @param host the IP address to listen on: the embedded cluster's bind address
     */
    public static Configuration prometheus(Configuration conf, String ports, String host) {
        conf.set(MetricOptions.REPORTERS_LIST, PROMETHEUS);
        conf.setString(
                "metrics.reporter." + PROMETHEUS + ".factory.class", BoundPrometheusReporter.Factory.class.getName());
        conf.setString("metrics.reporter." + PROMETHEUS + "." + BoundPrometheusReporter.ARG_PORT, ports);
        conf.setString("metrics.reporter." + PROMETHEUS + "." + BoundPrometheusReporter.ARG_HOST, host);
        return conf;
    }
}
