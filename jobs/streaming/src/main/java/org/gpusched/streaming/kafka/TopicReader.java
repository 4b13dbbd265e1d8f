package org.gpusched.streaming.kafka;

import java.io.IOException;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.avro.specific.SpecificRecordBase;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.gpusched.streaming.Topics;

/**
 * Reads a topic of the job back as an outside client does, read_committed (a transactional writer's aborted records
 * and its commit markers are skipped, so what is handed on is exactly what the job wrote), from given offsets (or the
 * start) up to the end offsets at the time of the call. No consumer group is joined and no offset committed.
 */
public final class TopicReader implements AutoCloseable {
    /** One record: where it was and its value, decoded, or null with the reason when it is not the topic's record type. */
    public record Read(int partition, long offset, SpecificRecordBase value, String undecodable) {}

    /** Receives the records read. */
    public interface Handler {
        void accept(Read record) throws IOException;
    }

    private static final Duration POLL = Duration.ofMillis(500);
    private static final Duration STALL_LIMIT = Duration.ofSeconds(30);

    private final KafkaConsumer<byte[], byte[]> consumer;

    public TopicReader(KafkaSettings kafka) {
        Properties p = kafka.clientConfig();
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.remove(ConsumerConfig.GROUP_ID_CONFIG);
        p.putIfAbsent(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "20000");
        consumer = new KafkaConsumer<>(p);
    }

    /** Partition -> end offset of a topic now (the next offset to be written). */
    public Map<Integer, Long> endOffsets(String topic) {
        Map<Integer, Long> ends = new HashMap<>();
        consumer.endOffsets(partitions(topic)).forEach((tp, end) -> ends.put(tp.partition(), end));
        return ends;
    }

    /**
     * Hands every committed record of {@code topic} from {@code from} (partition -> offset; absent partitions and a
     * null map: from the start) up to the current end to {@code handler}, at most {@code max} of them, in partition
     * order within each partition. Returns how many were handed on.
     */
    public long read(
            String topic, Class<? extends SpecificRecordBase> type, Map<Integer, Long> from, long max, Handler handler)
            throws IOException {
        List<TopicPartition> partitions = partitions(topic);
        consumer.assign(partitions);
        Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
        for (TopicPartition tp : partitions) {
            Long start = from == null ? null : from.get(tp.partition());
            if (start == null) consumer.seekToBeginning(List.of(tp));
            else consumer.seek(tp, start);
        }
        @SuppressWarnings({"unchecked", "rawtypes"})
        AvroBinary<SpecificRecordBase> avro = new AvroBinary(type);
        long count = 0;
        long lastProgress = System.nanoTime();
        while (count < max && partitions.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))) {
            boolean any = false;
            for (ConsumerRecord<byte[], byte[]> r : consumer.poll(POLL)) {
                any = true;
                if (r.offset() >= end.get(new TopicPartition(r.topic(), r.partition()))) continue;
                if (count >= max) break;
                SpecificRecordBase value = null;
                String why = null;
                try {
                    value = avro.decode(r.value());
                } catch (IOException e) {
                    why = e.getMessage();
                }
                handler.accept(new Read(r.partition(), r.offset(), value, why));
                count++;
            }
            if (any) lastProgress = System.nanoTime();
            else if (System.nanoTime() - lastProgress > STALL_LIMIT.toNanos())
                throw new IOException(topic + ": no record for " + STALL_LIMIT.toSeconds()
                        + " s before the end offsets " + end + " (an open transaction holds read_committed back?)");
        }
        return count;
    }

    /** Records of a job output topic written since {@code from} (see {@link #endOffsets}), committed ones only. */
    public long count(Topics topic, String prefix, Map<Integer, Long> from) throws IOException {
        return read(topic.topic(prefix), topic.recordClass(), from, Long.MAX_VALUE, r -> {});
    }

    private List<TopicPartition> partitions(String topic) {
        var infos = consumer.partitionsFor(topic);
        if (infos == null || infos.isEmpty()) throw new IllegalArgumentException("topic " + topic + " does not exist");
        return infos.stream()
                .map(i -> new TopicPartition(i.topic(), i.partition()))
                .toList();
    }

    @Override
    public void close() {
        consumer.close();
    }
}
