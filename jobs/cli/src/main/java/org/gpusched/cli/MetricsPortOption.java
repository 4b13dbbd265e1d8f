package org.gpusched.cli;

import java.io.PrintWriter;
import java.util.regex.Pattern;
import org.apache.flink.configuration.Configuration;
import org.gpusched.streaming.EmbeddedFlink;
import org.gpusched.streaming.ops.OperationalMetrics;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code --metrics-port}: Flink's Prometheus reporter on the local run, serving the operational metrics. */
final class MetricsPortOption {
    private static final Pattern PORTS = Pattern.compile("(\\d{1,5})(-(\\d{1,5}))?");

    @Spec(Spec.Target.MIXEE)
    CommandSpec spec;

    @Option(
            names = "--metrics-port",
            paramLabel = "PORT[-PORT]",
            description =
                    "Serve the operational metrics (queue, running jobs, busy GPUs, cost rate, decisions, optimizer "
                            + "latency, rejected records; docs/operations.md) at http://HOST:PORT/metrics with Flink's Prometheus "
                            + "reporter, on the first free port of the range, at the embedded cluster's bind address (127.0.0.1 unless run "
                            + "--bind-address says otherwise). Default: off.")
    String ports;

    /** Fails with a usage error when the option was given and is not a port or a range. */
    void validate() {
        if (ports == null) return;
        var m = PORTS.matcher(ports.trim());
        int low = m.matches() ? Integer.parseInt(m.group(1)) : -1;
        int high = m.matches() && m.group(3) != null ? Integer.parseInt(m.group(3)) : low;
        if (low < 1 || high > 65535 || high < low)
            throw new ParameterException(
                    spec.commandLine(),
                    "--metrics-port must be a port (1-65535) or a range LOW-HIGH, got '" + ports + "'");
    }

    /** {@code flink} with the reporter turned on when the option was given; a message on {@code err} says where. */
    Configuration apply(Configuration flink, PrintWriter err) {
        if (ports == null) return flink;
        validate();
        String host = flink.get(EmbeddedFlink.BIND_ADDRESS);
        err.println("metrics: Prometheus reporter on " + host + ", port " + ports.trim() + " (http://"
                + (host.contains(":") ? "[" + host + "]" : host) + ":PORT/metrics)");
        err.flush();
        return OperationalMetrics.prometheus(flink, ports.trim(), host);
    }
}
