package org.gpusched.cli;

import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import org.gpusched.formats.FormatException;
import org.gpusched.streaming.Topics;
import org.gpusched.streaming.kafka.KafkaSettings;
import org.gpusched.streaming.kafka.TraceProducer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code gpusched produce}: publishes a trace's jobs to the submissions topic. */
@Command(name = "produce", mixinStandardHelpOptions = true,
        description = {"Publishes a trace (JSON Lines) to the submissions topic as JobSubmitted records (Avro binary, keyed by job id), "
                + "in file order: as fast as possible, or time-compressed with --speedup. A line that is not a valid job is published "
                + "verbatim (header gpusched.format=trace-line) so the job rejects it to the rejected topic with the reason, as the file "
                + "replay does. Progress on stderr, a summary on stdout."})
public final class ProduceCommand implements Callable<Integer> {
    @Spec CommandSpec spec;

    @Option(names = "--trace", required = true, paramLabel = "FILE", description = "Trace file (JSON Lines, one job a line).")
    Path trace;

    @Option(names = "--bootstrap", required = true, paramLabel = "HOST:PORT", description = "Kafka bootstrap servers, comma-separated.")
    String bootstrap;

    @Option(names = "--speedup", paramLabel = "X", defaultValue = "0",
            description = "Trace seconds per wall second (e.g. 3600: one trace hour a second); 0 = as fast as possible (default).")
    double speedup;

    @Option(names = "--topic-prefix", paramLabel = "P", defaultValue = "",
            description = "Prefix of the topic names (several deployments on one broker); default none.")
    String topicPrefix;

    @Option(names = "--kafka-property", paramLabel = "KEY=VALUE",
            description = "Extra Kafka client property (security, timeouts), repeatable.")
    Map<String, String> kafkaProperties;

    @Override
    public Integer call() throws Exception {
        KafkaSettings kafka;
        try {
            if (speedup < 0 || Double.isNaN(speedup) || Double.isInfinite(speedup)) throw new IllegalArgumentException("--speedup must be >= 0, got " + speedup);
            kafka = KafkaSettings.of(bootstrap).withTopicPrefix(topicPrefix).withClientProperties(kafkaProperties);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        if (!java.nio.file.Files.isRegularFile(trace)) {
            System.err.println("gpusched produce: " + trace + ": no such trace file");
            return 1;
        }
        String topic = Topics.SUBMISSIONS.topic(topicPrefix);
        System.err.printf(Locale.ROOT, "produce: %s -> %s at %s, %s%n", trace, topic, bootstrap,
                speedup > 0 ? "speedup " + speedup + "x" : "as fast as possible");
        TraceProducer.Summary s;
        try {
            s = new TraceProducer(kafka, speedup).publish(trace, (published, malformed, traceSeconds) ->
                    System.err.printf(Locale.ROOT, "  %,10d jobs published  %,6d malformed  trace time %,.0f s%n", published, malformed, traceSeconds));
        } catch (FormatException e) {
            System.err.println("gpusched produce: " + e.getMessage());
            return 1;
        } catch (java.io.IOException | org.apache.kafka.common.KafkaException e) {
            System.err.println("gpusched produce: " + e.getMessage()
                    + " (is a broker running there, with the topics? bin/kafka-local start creates both)");
            return 1;
        }
        System.out.printf(Locale.ROOT, "%-22s %s%n", "topic", topic);
        System.out.printf(Locale.ROOT, "%-22s %,d%n", "lines read", s.lines());
        System.out.printf(Locale.ROOT, "%-22s %,d%n", "jobs published", s.published());
        System.out.printf(Locale.ROOT, "%-22s %,d%s%n", "malformed (verbatim)", s.malformed(), s.malformed() > 0 ? "  (the job will reject them)" : "");
        System.out.printf(Locale.ROOT, "%-22s %.0f .. %.0f s%n", "trace submit times", s.firstSubmit(), s.lastSubmit());
        System.out.printf(Locale.ROOT, "%-22s %.2f s (%,.0f records/s)%n", "wall time", s.wallSeconds(), s.recordsPerSecond());
        return 0;
    }
}
