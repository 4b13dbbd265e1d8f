package org.gpusched.streaming.ops;

import io.prometheus.client.CollectorRegistry;
import io.prometheus.client.exporter.HTTPServer;
import java.io.IOException;
import java.lang.reflect.Field;
import java.net.InetSocketAddress;
import java.util.Iterator;
import java.util.Properties;
import org.apache.flink.metrics.MetricConfig;
import org.apache.flink.metrics.prometheus.AbstractPrometheusReporter;
import org.apache.flink.metrics.reporter.MetricReporter;
import org.apache.flink.metrics.reporter.MetricReporterFactory;
import org.apache.flink.util.PortRange;

/**
 * Flink's Prometheus reporter, serving {@code /metrics} on one address ({@value #ARG_HOST}) instead of every interface.
 * Flink's own {@code PrometheusReporter} binds the wildcard address and takes no host; this one keeps all of its metric
 * handling (it extends the same base class) and only opens its HTTP server elsewhere. The base class keeps its
 * registry in a package-private field, read once here by reflection.
 */
public final class BoundPrometheusReporter extends AbstractPrometheusReporter {
    /** The reporter's option naming the address to listen on (an IP address of this machine). */
    public static final String ARG_HOST = "host";
    /** The reporter's option naming the port, or a range whose first free port is taken. */
    public static final String ARG_PORT = "port";

    private final HTTPServer server;

    BoundPrometheusReporter(String host, PortRange ports) {
        CollectorRegistry registry = registry(this);
        HTTPServer started = null;
        IOException last = null;
        for (Iterator<Integer> it = ports.getPortsIterator(); it.hasNext() && started == null; ) {
            int port = it.next();
            try {
                started = new HTTPServer(new InetSocketAddress(host, port), registry, true);
                log.info("Started the Prometheus reporter's HTTP server on {}:{}.", host, port);
            } catch (IOException e) {
                last = e;
            }
        }
        if (started == null)
            throw new IllegalStateException(
                    "no free port for the Prometheus reporter on " + host + " in " + ports
                            + (last == null ? "" : " (" + last.getMessage() + ")"),
                    last);
        server = started;
    }

    /** The port the server listens on. */
    public int port() {
        return server.getPort();
    }

    @Override
    public void close() {
        server.stop();
        super.close();
    }

    private static CollectorRegistry registry(AbstractPrometheusReporter reporter) {
        try {
            Field f = AbstractPrometheusReporter.class.getDeclaredField("registry");
            f.setAccessible(true);
            return (CollectorRegistry) f.get(reporter);
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new IllegalStateException("this Flink's Prometheus reporter keeps no registry to serve", e);
        }
    }

    /** Made by Flink from {@code metrics.reporter.NAME.factory.class}; options {@value #ARG_HOST} and {@value #ARG_PORT}. */
    public static final class Factory implements MetricReporterFactory {
        @Override
        public MetricReporter createMetricReporter(Properties properties) {
            MetricConfig config = (MetricConfig) properties;
            return new BoundPrometheusReporter(
                    config.getString(ARG_HOST, "127.0.0.1"), new PortRange(config.getString(ARG_PORT, "9249")));
        }
    }
}
