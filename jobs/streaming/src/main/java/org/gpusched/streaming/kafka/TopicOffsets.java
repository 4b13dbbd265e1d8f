package org.gpusched.streaming.kafka;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;

/**
 * Record counts of topics from their end offsets (summed over partitions), for progress lines and summaries without
 * consuming anything. Offsets count every record written, so a transactional writer's aborted records and markers
 * make them an upper bound; with the at-least-once sinks they are exact. {@code TopicReader} counts what a
 * read_committed reader sees.
 */
public final class TopicOffsets implements AutoCloseable {
    private static final long TIMEOUT_SECONDS = 30;
    private final Admin admin;

    public TopicOffsets(Properties client) {
        Properties p = new Properties();
        p.putAll(client);
        p.putIfAbsent(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
        p.putIfAbsent(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "20000");
        this.admin = Admin.create(p);
    }

    /** The topics among {@code names} that do not exist on the broker. */
    public List<String> missing(List<String> names) throws ExecutionException, InterruptedException, TimeoutException {
        var existing = admin.listTopics().names().get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        return names.stream().filter(n -> !existing.contains(n)).toList();
    }

    /** Topic name -> sum of its partitions' end offsets. */
    public Map<String, Long> endOffsets(List<String> topics)
            throws ExecutionException, InterruptedException, TimeoutException {
        Map<String, Long> sums = new TreeMap<>();
        for (String t : topics) sums.put(t, 0L);
        partitionEnds(topics).forEach((tp, end) -> sums.merge(tp.topic(), end, Long::sum));
        return sums;
    }

    /** Each partition's end offset. */
    public Map<TopicPartition, Long> partitionEnds(List<String> topics)
            throws ExecutionException, InterruptedException, TimeoutException {
        var descriptions = admin.describeTopics(topics).allTopicNames().get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        Map<TopicPartition, OffsetSpec> request = new HashMap<>();
        descriptions.forEach((name, d) ->
                d.partitions().forEach(p -> request.put(new TopicPartition(name, p.partition()), OffsetSpec.latest())));
        Map<TopicPartition, Long> ends = new HashMap<>();
        admin.listOffsets(request)
                .all()
                .get(TIMEOUT_SECONDS, TimeUnit.SECONDS)
                .forEach((tp, info) -> ends.put(tp, info.offset()));
        return ends;
    }

    @Override
    public void close() {
        admin.close();
    }
}
