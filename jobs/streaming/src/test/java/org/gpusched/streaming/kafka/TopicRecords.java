package org.gpusched.streaming.kafka;

import java.util.List;
import org.apache.avro.specific.SpecificRecordBase;
import org.gpusched.streaming.Topics;

/** The test broker's topics as the registry names them, read and written as an outside client would (Kafka ITs). */
public final class TopicRecords {
    private TopicRecords() {}

    /** Every record of a topic (from the start to its current end, read_committed), decoded, in partition order. */
    public static <T extends SpecificRecordBase> List<T> read(KafkaSettings kafka, Topics topic, Class<T> type) {
        AvroBinary<T> avro = new AvroBinary<>(type);
        return org.gpusched.testkit.TopicRecords.read(
                kafka.clientConfig(), topic.topic(kafka.topicPrefix()), avro::decode);
    }

    /** Publishes one value as is (no key, no headers), e.g. bytes some other producer got wrong. */
    public static void publishRaw(KafkaSettings kafka, String topic, byte[] value) throws Exception {
        org.gpusched.testkit.TopicRecords.publishRaw(kafka.clientConfig(), topic, value);
    }
}
