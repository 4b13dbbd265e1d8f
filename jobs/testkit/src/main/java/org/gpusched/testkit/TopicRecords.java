package org.gpusched.testkit;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/** Reading and writing topics of the test broker directly, as an outside client would (Kafka ITs). */
public final class TopicRecords {
    private TopicRecords() {}

    /** How a record's value is read. */
    @FunctionalInterface
    public interface Decoder<T> {
        T decode(byte[] value) throws IOException;
    }

    /**
     * Every record of a topic (from the start to its current end, read_committed), decoded, in partition order;
     * {@code clientConfig}: the broker's client properties.
     */
    public static <T> List<T> read(Properties clientConfig, String topic, Decoder<T> decoder) {
        Properties p = new Properties();
        p.putAll(clientConfig);
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        List<T> records = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(p)) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic).stream()
                    .map(i -> new TopicPartition(i.topic(), i.partition()))
                    .toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (partitions.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))) {
                if (System.nanoTime() > deadline)
                    throw new AssertionError("could not read " + topic + " to its end within 60 s");
                for (var r : consumer.poll(Duration.ofMillis(500))) {
                    try {
                        records.add(decoder.decode(r.value()));
                    } catch (IOException e) {
                        throw new AssertionError("undecodable record on " + topic, e);
                    }
                }
            }
        }
        return records;
    }

    /** Publishes one value as is (no key, no headers), e.g. bytes some other producer got wrong. */
    public static void publishRaw(Properties clientConfig, String topic, byte[] value) throws Exception {
        Properties p = new Properties();
        p.putAll(clientConfig);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
            producer.send(new ProducerRecord<>(topic, value)).get();
        }
    }
}
