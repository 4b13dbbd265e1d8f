package org.gpusched.streaming.kafka;

import java.nio.charset.StandardCharsets;
import org.apache.avro.specific.SpecificRecordBase;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * Writes one output record as Avro binary in the configured {@link WireFormat} ({@link AvroBinary}) to its topic,
 * keyed so that all records of one job, or of one (policy, controller), land in the same partition in order.
 * One named subclass per topic: Flink cannot extract the type of a lambda serializer (InvalidTypesException).
 */
public abstract class AvroRecordSerializer<T extends SpecificRecordBase> implements KafkaRecordSerializationSchema<T> {
    private static final long serialVersionUID = 1L;

    private final Class<T> type;
    private final String topic;
    private WireFormat format = WireFormat.PLAIN;
    private transient AvroBinary<T> avro;

    protected AvroRecordSerializer(Class<T> type, String topic) {
        this.type = type;
        this.topic = topic;
    }

    /** The Kafka key of the record (partitioning and ordering), UTF-8. */
    protected abstract String key(T record);

    /** Frames values in {@code value} instead of plain binary. */
    public AvroRecordSerializer<T> withFormat(WireFormat value) {
        this.format = value;
        return this;
    }

    public String topic() {
        return topic;
    }

    @Override
    public ProducerRecord<byte[], byte[]> serialize(T record, KafkaSinkContext context, Long timestamp) {
        if (avro == null) avro = new AvroBinary<>(type, format);
        return new ProducerRecord<>(
                topic, null, null, key(record).getBytes(StandardCharsets.UTF_8), avro.encode(record));
    }
}
