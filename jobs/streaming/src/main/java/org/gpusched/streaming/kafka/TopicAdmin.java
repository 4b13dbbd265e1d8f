package org.gpusched.streaming.kafka;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.errors.TopicExistsException;
import org.gpusched.streaming.Topics;

/**
 * Creates the job's topics ({@link Topics}, the one registry) on a broker, idempotently: topics that exist are left
 * as they are. Used by {@code gpusched topics} (and so {@code bin/kafka-local} and the docker-compose topic step), the
 * Kafka ITs and the benchmark.
 */
public final class TopicAdmin {
    private static final long TIMEOUT_SECONDS = 60;

    private TopicAdmin() {}

    /** Creates the missing topics of the registry; returns the names it created. */
    public static List<String> createAll(Properties client, String prefix, int partitions, short replication)
            throws InterruptedException, ExecutionException, TimeoutException {
        List<String> names = new ArrayList<>();
        for (Topics t : Topics.all()) names.add(t.topic(prefix));
        return create(client, names, partitions, replication);
    }

    /** Creates the named topics that do not exist; returns the names it created. */
    public static List<String> create(Properties client, List<String> names, int partitions, short replication)
            throws InterruptedException, ExecutionException, TimeoutException {
        try (Admin admin = Admin.create(adminConfig(client))) {
            Set<String> existing = admin.listTopics().names().get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            List<NewTopic> missing = new ArrayList<>();
            for (String name : names) {
                if (!existing.contains(name)) missing.add(new NewTopic(name, partitions, replication));
            }
            List<String> created = new ArrayList<>();
            for (var entry : admin.createTopics(missing).values().entrySet()) {
                try {
                    entry.getValue().get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
                    created.add(entry.getKey());
                } catch (ExecutionException e) {
                    if (!(e.getCause() instanceof TopicExistsException)) throw e;
                }
            }
            return created;
        }
    }

    /** Deletes the named topics that exist (the benchmark's scratch topics). */
    public static void delete(Properties client, List<String> names)
            throws InterruptedException, ExecutionException, TimeoutException {
        try (Admin admin = Admin.create(adminConfig(client))) {
            Set<String> existing = admin.listTopics().names().get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            List<String> present = names.stream().filter(existing::contains).toList();
            if (!present.isEmpty()) admin.deleteTopics(present).all().get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        }
    }

    /** The topics of the broker (sorted), with their partition counts. */
    public static Map<String, Integer> list(Properties client)
            throws InterruptedException, ExecutionException, TimeoutException {
        try (Admin admin = Admin.create(adminConfig(client))) {
            Set<String> names = new TreeSet<>(admin.listTopics().names().get(TIMEOUT_SECONDS, TimeUnit.SECONDS));
            Map<String, Integer> partitions = new java.util.TreeMap<>();
            admin.describeTopics(names)
                    .allTopicNames()
                    .get(TIMEOUT_SECONDS, TimeUnit.SECONDS)
                    .forEach((name, d) -> partitions.put(name, d.partitions().size()));
            return partitions;
        }
    }

    private static Properties adminConfig(Properties client) {
        Properties p = new Properties();
        p.putAll(client);
        p.putIfAbsent(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "15000");
        p.putIfAbsent(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "30000");
        return p;
    }
}
