package org.gpusched.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.kafka.common.KafkaException;
import org.gpusched.streaming.Topics;
import org.gpusched.streaming.file.AvroJson;
import org.gpusched.streaming.kafka.KafkaSettings;
import org.gpusched.streaming.kafka.TopicReader;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code gpusched consume}: a topic of the product read back as JSON Lines. */
@Command(
        name = "consume",
        mixinStandardHelpOptions = true,
        description = {
            "Prints the records of one of the product's topics as JSON Lines on stdout, from the start of the topic "
                    + "up to its end at the time of the call (then it stops): decisions, metrics.scheduling, "
                    + "metrics.jobs, rejected (each rejected input record with source, position, text, reason and "
                    + "field), jobs.completed, jobs.submitted, nodes.events, telemetry, pods, pod-placements. An empty "
                    + "topic prints nothing on stdout and says so on stderr.",
            "Reads read_committed: records of an aborted transaction and transaction markers are never shown. "
                    + "Joins no consumer group. A record that is not the topic's Avro type is printed as "
                    + "{\"partition\", \"offset\", \"undecodable\": reason}. Field names and meanings: "
                    + "docs/streaming.md (Formats) and schemas/*.avsc."
        })
public final class ConsumeCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    KafkaOptions kafkaOptions;

    @Option(
            names = "--topic",
            required = true,
            paramLabel = "NAME",
            description =
                    "Topic: decisions, metrics.scheduling, metrics.jobs, rejected, jobs.completed, jobs.submitted, nodes.events, telemetry, "
                            + "pods, pod-placements (the full name gpusched.decisions also works).")
    String topic;

    @Option(names = "--max", paramLabel = "N", description = "Print at most N records.")
    Long max;

    @Option(names = "--with-offsets", description = "Wrap each record as {\"partition\", \"offset\", \"value\"}.")
    boolean withOffsets;

    /** The topic named by its full name, its name without "gpusched.", or the operator id (job-metrics). */
    static Topics topicNamed(String name) {
        String n = name.toLowerCase(Locale.ROOT);
        for (Topics t : Topics.values()) {
            if (t.topic().equals(n)
                    || t.topic().equals("gpusched." + n)
                    || t.operatorId().equals(n)) return t;
        }
        return null;
    }

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        Topics t = topicNamed(topic);
        if (t == null) {
            List<String> names = new ArrayList<>();
            for (Topics x : Topics.values()) names.add(x.topic().substring("gpusched.".length()));
            throw new ParameterException(
                    spec.commandLine(), "--topic: unknown topic '" + topic + "', expected one of " + names);
        }
        if (max != null && max < 0) throw new ParameterException(spec.commandLine(), "--max must be >= 0, got " + max);
        KafkaSettings kafka;
        try {
            kafka = kafkaOptions.settings();
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        String name = t.topic(kafkaOptions.topicPrefix);
        if (!BrokerCheck.reachable("consume", kafkaOptions.bootstrap, err)) return ExitCode.UNAVAILABLE;
        long printed;
        try (TopicReader reader = new TopicReader(kafka)) {
            printed = reader.read(name, t.recordClass(), null, max == null ? Long.MAX_VALUE : max, r -> {
                String value = r.value() == null ? null : AvroJson.toLine(r.value());
                if (value == null) {
                    out.println(AvroJson.MAPPER.writeValueAsString(
                            Map.of("partition", r.partition(), "offset", r.offset(), "undecodable", r.undecodable())));
                } else if (withOffsets) {
                    out.println("{\"partition\":" + r.partition() + ",\"offset\":" + r.offset() + ",\"value\":" + value
                            + "}");
                } else {
                    out.println(value);
                }
            });
        } catch (IllegalArgumentException | KafkaException e) {
            // the broker answered: the topic is missing (IllegalArgumentException) or the broker failed the request
            err.println("gpusched consume: " + name + " on " + kafkaOptions.bootstrap + ": " + e.getMessage()
                    + (e instanceof IllegalArgumentException
                            ? "; gpusched topics create --bootstrap " + kafkaOptions.bootstrap + " creates the topics"
                            : ""));
            return ExitCode.UNAVAILABLE;
        }
        out.flush();
        if (printed == 0 && (max == null || max > 0)) {
            err.println("gpusched consume: " + name + " is empty (no committed record)");
            err.flush();
        }
        return ExitCode.OK;
    }
}
