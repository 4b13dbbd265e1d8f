package org.gpusched.streaming.kafka;

import java.io.Serializable;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;

/**
 * How the job reaches Kafka: brokers, the topic prefix (several deployments on one broker), whether the sources
 * stop at the offsets that are the latest when the job starts (bounded: replays and tests), the consumer group,
 * the sinks' delivery guarantee, extra client properties (security, timeouts) passed to every client as is, and the
 * {@link WireFormat} the job's writers frame Avro values in (readers accept both).
 */
public record KafkaSettings(
        String bootstrap,
        String topicPrefix,
        boolean bounded,
        String groupId,
        boolean exactlyOnce,
        Map<String, String> clientProperties,
        WireFormat wireFormat)
        implements Serializable {

    public static final String DEFAULT_GROUP_ID = "gpusched";

    public KafkaSettings {
        if (bootstrap == null || bootstrap.isBlank())
            throw new IllegalArgumentException("bootstrap servers (HOST:PORT) are required");
        for (String server : bootstrap.split(",")) {
            String s = server.trim();
            int colon = s.lastIndexOf(':');
            if (colon <= 0 || colon == s.length() - 1)
                throw new IllegalArgumentException("bootstrap server '" + s + "' is not HOST:PORT");
            try {
                int port = Integer.parseInt(s.substring(colon + 1));
                if (port < 1 || port > 65535) throw new NumberFormatException();
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("bootstrap server '" + s + "' has no valid port");
            }
        }
        topicPrefix = topicPrefix == null ? "" : topicPrefix;
        groupId = groupId == null || groupId.isBlank() ? DEFAULT_GROUP_ID : groupId;
        clientProperties = clientProperties == null ? Map.of() : Map.copyOf(clientProperties);
        wireFormat = wireFormat == null ? WireFormat.PLAIN : wireFormat;
    }

    public static KafkaSettings of(String bootstrap) {
        return new KafkaSettings(bootstrap, "", false, DEFAULT_GROUP_ID, false, Map.of(), WireFormat.PLAIN);
    }

    public KafkaSettings withBounded(boolean value) {
        return new KafkaSettings(bootstrap, topicPrefix, value, groupId, exactlyOnce, clientProperties, wireFormat);
    }

    public KafkaSettings withTopicPrefix(String value) {
        return new KafkaSettings(bootstrap, value, bounded, groupId, exactlyOnce, clientProperties, wireFormat);
    }

    public KafkaSettings withGroupId(String value) {
        return new KafkaSettings(bootstrap, topicPrefix, bounded, value, exactlyOnce, clientProperties, wireFormat);
    }

    public KafkaSettings withExactlyOnce(boolean value) {
        return new KafkaSettings(bootstrap, topicPrefix, bounded, groupId, value, clientProperties, wireFormat);
    }

    public KafkaSettings withClientProperties(Map<String, String> value) {
        return new KafkaSettings(bootstrap, topicPrefix, bounded, groupId, exactlyOnce, value, wireFormat);
    }

    public KafkaSettings withWireFormat(WireFormat value) {
        return new KafkaSettings(bootstrap, topicPrefix, bounded, groupId, exactlyOnce, clientProperties, value);
    }

    /** Client properties for a plain Kafka client (admin, producer, consumer): bootstrap plus the extras. */
    public Properties clientConfig() {
        Properties p = new Properties();
        p.putAll(clientProperties);
        p.put("bootstrap.servers", bootstrap);
        return p;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof KafkaSettings k
                && k.bootstrap.equals(bootstrap)
                && k.topicPrefix.equals(topicPrefix)
                && k.bounded == bounded
                && k.groupId.equals(groupId)
                && k.exactlyOnce == exactlyOnce
                && k.clientProperties.equals(clientProperties)
                && k.wireFormat == wireFormat;
    }

    @Override
    public int hashCode() {
        return Objects.hash(bootstrap, topicPrefix, bounded, groupId, exactlyOnce, clientProperties, wireFormat);
    }
}
