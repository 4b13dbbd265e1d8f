package org.gpusched.analytics;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.gpusched.streaming.Topics;
import org.gpusched.streaming.avro.PlacementDecision;
import org.gpusched.streaming.avro.SchedulingMetrics;
import org.gpusched.streaming.kafka.AvroBinary;
import org.gpusched.streaming.kafka.KafkaSettings;

/**
 * Feeds a {@link LiveView} from the decisions and scheduling-metrics topics, read committed from the start, with no
 * consumer group: {@link #catchUp} reads up to the end offsets of the call, {@link #poll} whatever arrived. Values in
 * either wire format; a value that does not decode is counted and skipped.
 */
public final class TopicFollower implements AutoCloseable {
    private final KafkaConsumer<byte[], byte[]> consumer;
    private final LiveView view;
    private final Map<String, Topics> topics = new HashMap<>();
    private final AvroBinary<PlacementDecision> decisions = new AvroBinary<>(PlacementDecision.class);
    private final AvroBinary<SchedulingMetrics> metrics = new AvroBinary<>(SchedulingMetrics.class);
    private long records;
    private long undecodable;

    public TopicFollower(KafkaSettings kafka, LiveView view) {
        this.view = view;
        Properties p = kafka.clientConfig();
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.remove(ConsumerConfig.GROUP_ID_CONFIG);
        p.putIfAbsent(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "20000");
        consumer = new KafkaConsumer<>(p);
        List<TopicPartition> partitions = new ArrayList<>();
        for (Topics t : List.of(Topics.DECISIONS, Topics.SCHEDULING_METRICS)) {
            String name = t.topic(kafka.topicPrefix());
            topics.put(name, t);
            List<PartitionInfo> infos = consumer.partitionsFor(name);
            if (infos == null || infos.isEmpty())
                throw new IllegalArgumentException("topic " + name + " does not exist");
            for (PartitionInfo i : infos) partitions.add(new TopicPartition(name, i.partition()));
        }
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
    }

    /** Reads every committed record up to the end offsets of now. */
    public void catchUp(Duration stallLimit) throws IOException {
        Map<TopicPartition, Long> end = consumer.endOffsets(consumer.assignment());
        long lastProgress = System.nanoTime();
        while (end.entrySet().stream().anyMatch(e -> consumer.position(e.getKey()) < e.getValue())) {
            if (poll(Duration.ofMillis(200)) > 0) lastProgress = System.nanoTime();
            else if (System.nanoTime() - lastProgress > stallLimit.toNanos())
                throw new IOException("no record for " + stallLimit.toSeconds() + " s before the end offsets " + end
                        + " (an open transaction holds read_committed back?)");
        }
    }

    /** Feeds the view what arrives within {@code timeout}; returns how many records. */
    public int poll(Duration timeout) {
        int n = 0;
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(timeout)) {
            n++;
            records++;
            byte[] value = r.value() == null ? new byte[0] : r.value();
            try {
                if (topics.get(r.topic()) == Topics.DECISIONS) view.accept(decisions.decode(value));
                else view.accept(metrics.decode(value));
            } catch (IOException e) {
                undecodable++;
            }
        }
        return n;
    }

    public long records() {
        return records;
    }

    public long undecodable() {
        return undecodable;
    }

    @Override
    public void close() {
        consumer.close();
    }
}
