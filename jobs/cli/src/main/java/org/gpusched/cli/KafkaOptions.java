package org.gpusched.cli;

import java.util.Map;
import org.gpusched.streaming.kafka.KafkaSettings;
import picocli.CommandLine.Option;

/** The Kafka options every command that talks to a broker takes (run, produce, consume, topics, top): one definition. */
final class KafkaOptions {
    @Option(
            names = "--bootstrap",
            required = true,
            paramLabel = "HOST:PORT",
            description = "Kafka bootstrap servers, comma-separated.")
    String bootstrap;

    @Option(
            names = "--topic-prefix",
            paramLabel = "P",
            defaultValue = "",
            description = "Prefix of all topic names (several deployments on one broker; default: none).")
    String topicPrefix;

    @Option(
            names = "--kafka-property",
            paramLabel = "KEY=VALUE",
            description = "Extra Kafka client property (security, timeouts, producer batching), repeatable.")
    Map<String, String> kafkaProperties;

    /** The connection settings: bootstrap, prefix and client properties; the caller adds its own. */
    KafkaSettings settings() {
        return KafkaSettings.of(bootstrap).withTopicPrefix(topicPrefix).withClientProperties(kafkaProperties);
    }
}
