package org.gpusched.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import org.gpusched.formats.CsvFormatException;
import org.gpusched.formats.FormatException;
import org.gpusched.streaming.Topics;
import org.gpusched.streaming.kafka.KafkaSettings;
import org.gpusched.streaming.kafka.TraceProducer;
import org.gpusched.streaming.placement.PodProducer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code gpusched produce}: publishes a trace's jobs to the submissions topic, or with --pods a pod list to the pods topic. */
@Command(
        name = "produce",
        mixinStandardHelpOptions = true,
        description = {
            "Publishes a trace (JSON Lines) to the submissions topic as JobSubmitted records (Avro binary, keyed by job id), "
                    + "in file order: as fast as possible, or time-compressed with --speedup. A line that is not a valid job is published "
                    + "verbatim (header gpusched.format=trace-line) so the job rejects it to the rejected topic with the reason, as the file "
                    + "replay does. Progress on stderr, a summary on stdout.",
            "With --pods instead of --trace, publishes an Alibaba pod list (CSV with creation_time and deletion_time, as place-replay "
                    + "reads it) to the pods topic as PodEvent records (keyed by pod name), for `gpusched run --nodes`; --speedup then "
                    + "follows creation_time. A bad row is published to the rejected topic (file:line, the row, the reason and the column, "
                    + "as place-replay's rejected.jsonl); rows never scheduled in the trace (empty scheduled_time) are skipped and counted."
        })
public final class ProduceCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    KafkaOptions kafkaOptions;

    @Option(names = "--trace", paramLabel = "FILE", description = "Trace file (JSON Lines, one job a line).")
    Path trace;

    @Option(
            names = "--pods",
            paramLabel = "FILE",
            description = "Instead of --trace: an Alibaba pod list CSV, to the pods topic.")
    Path pods;

    @Option(
            names = "--speedup",
            paramLabel = "X",
            defaultValue = "0",
            description =
                    "Trace seconds per wall second (e.g. 3600: one trace hour a second); 0 = as fast as possible (default).")
    double speedup;

    @Mixin
    WireFormatOption wireFormat;

    @Override
    public Integer call() throws Exception {
        KafkaSettings kafka;
        try {
            if (speedup < 0 || Double.isNaN(speedup) || Double.isInfinite(speedup))
                throw new IllegalArgumentException("--speedup must be >= 0, got " + speedup);
            if ((trace == null) == (pods == null))
                throw new IllegalArgumentException("give either --trace (a job trace) or --pods (a pod list)");
            kafka = kafkaOptions.settings().withWireFormat(wireFormat.value());
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        CliFiles.requireFile(spec.commandLine(), pods != null ? pods : trace, pods != null ? "--pods" : "--trace");
        if (!BrokerCheck.reachable(
                "produce", kafkaOptions.bootstrap, spec.commandLine().getErr())) return ExitCode.UNAVAILABLE;
        if (pods != null) return publishPods(kafka);
        return publish(trace, Topics.SUBMISSIONS.topic(kafkaOptions.topicPrefix), "jobs", "malformed", progress -> {
            TraceProducer.Summary s = new TraceProducer(kafka, speedup).publish(trace, progress);
            Map<String, String> more = new LinkedHashMap<>();
            more.put(
                    "malformed (verbatim)",
                    String.format(
                            Locale.ROOT,
                            "%,d%s",
                            s.malformed(),
                            s.malformed() > 0 ? "  (the job will reject them)" : ""));
            if (s.unreadable() > 0) {
                more.put(
                        "malformed unreadable",
                        String.format(
                                Locale.ROOT,
                                "%,d  (not UTF-8 or too long, sent cut; first %s)",
                                s.unreadable(),
                                s.firstUnreadable()));
            }
            more.put(
                    "trace submit times",
                    String.format(Locale.ROOT, "%.0f .. %.0f s", s.firstSubmit(), s.lastSubmit()));
            return new Published(s.lines(), s.published(), s.malformed(), s.wallSeconds(), more);
        });
    }

    private Integer publishPods(KafkaSettings kafka) throws InterruptedException {
        String rejectedTopic = Topics.REJECTED.topic(kafkaOptions.topicPrefix);
        return publish(pods, Topics.PODS.topic(kafkaOptions.topicPrefix), "pods", "rejected", progress -> {
            PodProducer.Summary s = new PodProducer(kafka, speedup).publish(pods, progress);
            Map<String, String> more = new LinkedHashMap<>();
            more.put(
                    "never scheduled",
                    String.format(
                            Locale.ROOT,
                            "%,d%s",
                            s.unscheduled(),
                            s.unscheduled() > 0 ? "  (skipped, as place-replay does)" : ""));
            more.put(
                    "rejected",
                    String.format(
                            Locale.ROOT,
                            "%,d%s",
                            s.rejected(),
                            s.rejected() > 0 ? "  (to " + rejectedTopic + " with file:line and reason)" : ""));
            more.put(
                    "trace creation times", String.format(Locale.ROOT, "%d .. %d s", s.minCreation(), s.maxCreation()));
            return new Published(s.lines(), s.published(), s.rejected(), s.wallSeconds(), more);
        });
    }

    /** What a producer did: lines read, records published, bad ones sent aside, and rows of its own for the summary. */
    private record Published(long lines, long published, long bad, double wallSeconds, Map<String, String> more) {}

    /** Publishes a file with its producer. */
    private interface Publisher {
        Published publish(TraceProducer.Progress progress) throws java.io.IOException, InterruptedException;
    }

    /**
     * Runs {@code publisher} with progress on stderr ({@code records} published, {@code bad} ones) and its summary on
     * stdout; a bad file (exit 2) or an unreachable Kafka (exit 4) is a message.
     */
    private int publish(Path file, String topic, String records, String bad, Publisher publisher)
            throws InterruptedException {
        PrintWriter err = spec.commandLine().getErr();
        PrintWriter out = spec.commandLine().getOut();
        err.printf(
                Locale.ROOT,
                "produce: %s -> %s at %s, %s%n",
                file,
                topic,
                kafkaOptions.bootstrap,
                speedup > 0 ? "speedup " + speedup + "x" : "as fast as possible");
        Published p;
        try {
            p = publisher.publish((published, rejected, traceSeconds) -> err.printf(
                    Locale.ROOT,
                    "  %,10d %s published  %,6d %s  trace time %,.0f s%n",
                    published,
                    records,
                    rejected,
                    bad,
                    traceSeconds));
        } catch (FormatException | CsvFormatException e) {
            err.println("gpusched produce: " + e.getMessage());
            return ExitCode.BAD_INPUT;
        } catch (java.io.IOException | org.apache.kafka.common.KafkaException e) {
            err.println("gpusched produce: " + e.getMessage()
                    + " (is a broker running there, with the topics? bin/kafka-local start creates both)");
            return ExitCode.UNAVAILABLE;
        }
        String row = "%-22s %s%n";
        out.printf(Locale.ROOT, row, "topic", topic);
        out.printf(Locale.ROOT, row, "lines read", String.format(Locale.ROOT, "%,d", p.lines()));
        out.printf(Locale.ROOT, row, records + " published", String.format(Locale.ROOT, "%,d", p.published()));
        new java.util.TreeMap<>(p.more()).forEach((label, value) -> out.printf(Locale.ROOT, row, label, value));
        out.printf(
                Locale.ROOT,
                row,
                "wall time",
                String.format(
                        Locale.ROOT,
                        "%.2f s (%,.0f records/s)",
                        p.wallSeconds(),
                        p.wallSeconds() > 0 ? (p.published() + p.bad()) / p.wallSeconds() : 0));
        out.flush();
        return ExitCode.OK;
    }
}
