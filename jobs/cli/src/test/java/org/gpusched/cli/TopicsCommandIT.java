package org.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.regex.Pattern;
import org.gpusched.streaming.Topics;
import org.gpusched.testkit.LocalKafkaBroker;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code gpusched topics} against a real broker: list says what is missing (exit 1), create makes exactly the
 * registry's topics and is idempotent, describe names each topic's direction, slice and record; no broker is exit 4.
 */
class TopicsCommandIT {
    private static LocalKafkaBroker broker;

    @BeforeAll
    static void startBroker() throws Exception {
        broker = LocalKafkaBroker.start("cli-topics-it");
    }

    @AfterAll
    static void stopBroker() throws Exception {
        if (broker != null) broker.close();
    }

    @Test
    void createsTheRegistrysTopicsOnceListsAndDescribesThem() {
        String prefix = "topics-it.";
        var before = WorkloadCommandsTest.gpusched(
                "topics", "list", "--bootstrap", broker.bootstrap(), "--topic-prefix", prefix);
        assertEquals(1, before.exit(), before.err());
        assertEquals(
                Topics.all().size(),
                Pattern.compile(" missing$", Pattern.MULTILINE)
                        .matcher(before.out())
                        .results()
                        .count(),
                before.out());
        assertTrue(before.err().contains("gpusched topics create --bootstrap"), before.err());

        var created = WorkloadCommandsTest.gpusched(
                "topics", "create", "--bootstrap", broker.bootstrap(), "--topic-prefix", prefix, "--partitions", "2");
        assertEquals(0, created.exit(), created.err());
        assertTrue(created.out().startsWith("topics: created " + Topics.all().size() + " "), created.out());
        for (Topics t : Topics.all())
            assertTrue(
                    Pattern.compile("\\Q" + t.topic(prefix) + "\\E\\s+2 partitions")
                            .matcher(created.out())
                            .find(),
                    created.out());

        var again = WorkloadCommandsTest.gpusched(
                "topics", "create", "--bootstrap", broker.bootstrap(), "--topic-prefix", prefix);
        assertEquals(0, again.exit(), again.err());
        assertTrue(again.out().startsWith("topics: created 0, " + Topics.all().size() + " already there"), again.out());

        var after = WorkloadCommandsTest.gpusched(
                "topics", "list", "--bootstrap", broker.bootstrap(), "--topic-prefix", prefix);
        assertEquals(0, after.exit(), after.err());
        assertTrue(!after.out().contains("missing"), after.out());
        var other = WorkloadCommandsTest.gpusched("topics", "list", "--bootstrap", broker.bootstrap());
        assertEquals(1, other.exit(), "the unprefixed topics were not created: " + other.out());

        var described = WorkloadCommandsTest.gpusched(
                "topics", "describe", "--bootstrap", broker.bootstrap(), "--topic-prefix", prefix);
        assertEquals(0, described.exit(), described.err());
        assertTrue(
                Pattern.compile("\\Q" + prefix + "gpusched.pods\\E\\s+input\\s+placement\\s+PodEvent\\s+2 partitions")
                        .matcher(described.out())
                        .find(),
                described.out());
        assertTrue(
                Pattern.compile("\\Q" + prefix + "gpusched.jobs.completed\\E\\s+both\\s+scheduling\\s+JobCompleted")
                        .matcher(described.out())
                        .find(),
                described.out());
        assertTrue(
                Pattern.compile("\\Q" + prefix + "gpusched.rejected\\E\\s+output\\s+both\\s+RejectedRecord")
                        .matcher(described.out())
                        .find(),
                described.out());
    }

    @Test
    void consumeSaysWhenATopicIsMissingOrEmpty() {
        String prefix = "consume-it.";
        var missing = WorkloadCommandsTest.gpusched(
                "consume", "--bootstrap", broker.bootstrap(), "--topic-prefix", prefix, "--topic", "rejected");
        assertEquals(ExitCode.UNAVAILABLE, missing.exit(), missing.err());
        assertTrue(
                missing.err().contains(prefix + "gpusched.rejected")
                        && missing.err().contains("gpusched topics create --bootstrap " + broker.bootstrap()),
                missing.err());
        assertEquals(
                0,
                WorkloadCommandsTest.gpusched(
                                "topics", "create", "--bootstrap", broker.bootstrap(), "--topic-prefix", prefix)
                        .exit());
        var empty = WorkloadCommandsTest.gpusched(
                "consume", "--bootstrap", broker.bootstrap(), "--topic-prefix", prefix, "--topic", "rejected");
        assertEquals(0, empty.exit(), empty.err());
        assertEquals("", empty.out());
        assertEquals(
                "gpusched consume: " + prefix + "gpusched.rejected is empty (no committed record)",
                empty.err().strip());
    }

    @Test
    void withoutABrokerItIsExitFourAndBadUsageIsExitTwo() {
        var none = WorkloadCommandsTest.gpusched("topics", "list", "--bootstrap", "127.0.0.1:1");
        assertEquals(ExitCode.UNAVAILABLE, none.exit(), none.err());
        assertTrue(none.err().contains("no Kafka broker at 127.0.0.1:1"), none.err());
        assertEquals(2, WorkloadCommandsTest.gpusched("topics").exit());
        assertEquals(
                2,
                WorkloadCommandsTest.gpusched("topics", "create", "--bootstrap", "127.0.0.1:1", "--partitions", "0")
                        .exit());
        var help = WorkloadCommandsTest.gpusched("topics", "create", "--help");
        assertEquals(0, help.exit());
        assertTrue(help.out().contains("--replication"), help.out());
    }
}
