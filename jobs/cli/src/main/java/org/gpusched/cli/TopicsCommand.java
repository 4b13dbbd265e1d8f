package org.gpusched.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import org.gpusched.streaming.Topics;
import org.gpusched.streaming.kafka.TopicAdmin;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code gpusched topics create|list|describe}: the topic registry ({@link Topics}) against a broker. */
@Command(
        name = "topics",
        mixinStandardHelpOptions = true,
        description = {"The product's topics (the one registry the jobs use) against a Kafka broker."},
        subcommands = {TopicsCommand.Create.class, TopicsCommand.ListTopics.class, TopicsCommand.Describe.class})
public final class TopicsCommand implements Runnable {
    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        throw new ParameterException(spec.commandLine(), "missing subcommand: create, list or describe");
    }

    /** The broker's topics of the registry and their partitions (absent: missing), or null with exit 4 printed. */
    static Map<String, Integer> onBroker(String command, KafkaOptions kafka, PrintWriter err) {
        if (!BrokerCheck.reachable(command, kafka.bootstrap, err)) return null;
        try {
            return TopicAdmin.list(kafka.settings().clientConfig());
        } catch (TimeoutException | ExecutionException e) {
            err.println("gpusched " + command + ": the broker at " + kafka.bootstrap + " did not answer ("
                    + (e.getCause() != null ? e.getCause().getMessage() : e.getMessage()) + ")");
            err.flush();
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    static String partitions(Integer n) {
        return n == null ? "missing" : n + (n == 1 ? " partition" : " partitions");
    }

    @Command(
            name = "create",
            mixinStandardHelpOptions = true,
            description = "Creates the registry's topics that are missing on the broker, then lists them.")
    static final class Create implements java.util.concurrent.Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Mixin
        KafkaOptions kafka;

        @Option(
                names = "--partitions",
                paramLabel = "N",
                defaultValue = "1",
                description = "Partitions of each created topic (default: ${DEFAULT-VALUE}).")
        int partitions;

        @Option(
                names = "--replication",
                paramLabel = "R",
                defaultValue = "1",
                description = "Replication factor of each created topic (default: ${DEFAULT-VALUE}).")
        short replication;

        @Override
        public Integer call() throws Exception {
            if (partitions < 1)
                throw new ParameterException(spec.commandLine(), "--partitions must be >= 1, got " + partitions);
            if (replication < 1)
                throw new ParameterException(spec.commandLine(), "--replication must be >= 1, got " + replication);
            PrintWriter out = spec.commandLine().getOut(),
                    err = spec.commandLine().getErr();
            if (!BrokerCheck.reachable("topics create", kafka.bootstrap, err)) return ExitCode.UNAVAILABLE;
            List<String> created;
            try {
                created = TopicAdmin.createAll(
                        kafka.settings().clientConfig(), kafka.topicPrefix, partitions, replication);
            } catch (TimeoutException | ExecutionException e) {
                err.println("gpusched topics create: "
                        + (e.getCause() != null ? e.getCause().getMessage() : e));
                err.flush();
                return ExitCode.UNAVAILABLE;
            }
            out.println("topics: created " + created.size() + (created.isEmpty() ? "" : " " + created) + ", "
                    + (Topics.all().size() - created.size()) + " already there");
            Map<String, Integer> broker = onBroker("topics create", kafka, err);
            if (broker == null) return ExitCode.UNAVAILABLE;
            for (Topics t : Topics.all()) {
                String name = t.topic(kafka.topicPrefix);
                out.printf(Locale.ROOT, "  %-32s %s%n", name, partitions(broker.get(name)));
            }
            out.flush();
            return ExitCode.OK;
        }
    }

    @Command(
            name = "list",
            mixinStandardHelpOptions = true,
            description =
                    "Each registry topic and its partitions on the broker, or 'missing'; exit 1 when one is missing.")
    static final class ListTopics implements java.util.concurrent.Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Mixin
        KafkaOptions kafka;

        @Override
        public Integer call() {
            PrintWriter out = spec.commandLine().getOut();
            Map<String, Integer> broker =
                    onBroker("topics list", kafka, spec.commandLine().getErr());
            if (broker == null) return ExitCode.UNAVAILABLE;
            List<String> missing = new ArrayList<>();
            for (Topics t : Topics.all()) {
                String name = t.topic(kafka.topicPrefix);
                if (!broker.containsKey(name)) missing.add(name);
                out.printf(Locale.ROOT, "%-32s %s%n", name, partitions(broker.get(name)));
            }
            out.flush();
            if (missing.isEmpty()) return ExitCode.OK;
            spec.commandLine()
                    .getErr()
                    .println("gpusched topics list: " + missing.size() + " missing (gpusched topics create --bootstrap "
                            + kafka.bootstrap
                            + (kafka.topicPrefix.isEmpty() ? "" : " --topic-prefix " + kafka.topicPrefix)
                            + ")");
            spec.commandLine().getErr().flush();
            return ExitCode.FINDINGS;
        }
    }

    @Command(
            name = "describe",
            mixinStandardHelpOptions = true,
            description =
                    "Each registry topic: input or output, scheduling or placement, its Avro record (schemas/) and its partitions on the broker.")
    static final class Describe implements java.util.concurrent.Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Mixin
        KafkaOptions kafka;

        @Override
        public Integer call() {
            PrintWriter out = spec.commandLine().getOut();
            Map<String, Integer> broker =
                    onBroker("topics describe", kafka, spec.commandLine().getErr());
            if (broker == null) return ExitCode.UNAVAILABLE;
            out.printf(Locale.ROOT, "%-32s %-6s %-10s %-20s %s%n", "topic", "dir", "slice", "record", "partitions");
            for (Topics t : Topics.all()) {
                String name = t.topic(kafka.topicPrefix);
                out.printf(
                        Locale.ROOT,
                        "%-32s %-6s %-10s %-20s %s%n",
                        name,
                        t.isInput() && t.isOutput() ? "both" : t.isInput() ? "input" : "output",
                        t.isPlacement() && t.isScheduler() ? "both" : t.isPlacement() ? "placement" : "scheduling",
                        t.recordClass().getSimpleName(),
                        partitions(broker.get(name)));
            }
            out.flush();
            return ExitCode.OK;
        }
    }
}
