package org.gpusched.cli;

import static org.gpusched.cli.LocalServices.decisions;
import static org.gpusched.cli.LocalServices.freePorts;
import static org.gpusched.cli.LocalServices.launch;
import static org.gpusched.cli.LocalServices.script;
import static org.gpusched.cli.LocalServices.sorted;
import static org.gpusched.cli.LocalServices.waitFor;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.gpusched.cli.LocalServices.Reference;
import org.gpusched.streaming.Topics;
import org.gpusched.streaming.kafka.KafkaSettings;
import org.gpusched.streaming.kafka.TopicAdmin;
import org.gpusched.streaming.kafka.TraceProducer;
import org.gpusched.workloads.BenchmarkWorkload;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A live (unbounded) {@code gpusched run} survives kill -9 and a broker outage: the launcher (bin/gpusched with the built jar) runs in a
 * child JVM on a real broker (bin/kafka-local) in replay mode with an empty node-events topic, checkpointing to a
 * durable directory with exactly-once sinks; it is killed mid-trace, the rest of the trace is published while it is
 * down, and {@code run --restore latest} resumes it; then the broker is stopped for 5 s under the running job and started
 * again, and the last part of the trace is published. The decisions committed on the topic (read_committed) must be
 * exactly those of the file replay of the whole trace, which an uninterrupted run gives (KafkaReplayIT): none lost,
 * none twice. The last submission read before the kill waits in the dispatcher's buffer (the watermark has not
 * passed it), and its offset is committed: only a restore from the checkpoint, which holds both, decides it.
 */
class LiveRunRestoreIT {
    private static final Path WORK = Path.of(
                    "target", "live-restore-it-" + ProcessHandle.current().pid())
            .toAbsolutePath();
    private static int port;

    @BeforeAll
    static void startBroker() throws Exception {
        port = freePorts(2);
        // The topics are created by the script from the shaded jar alone, as on a machine with the jar and no build
        // tree.
        kafkaLocal("start");
    }

    @AfterAll
    static void stopBroker() throws Exception {
        kafkaLocal("stop");
    }

    private static void kafkaLocal(String command) throws Exception {
        script(
                "kafka-local",
                Map.of(),
                command,
                "--dir",
                WORK.resolve("kafka").toString(),
                "--port",
                Integer.toString(port));
    }

    @Test
    void aLiveRunKilledMidTraceRestoredAndThroughABrokerOutageDecidesAsAnUninterruptedRun() throws Exception {
        Files.createDirectories(WORK);
        Path cluster = WORK.resolve("cluster.yaml");
        Path trace = WORK.resolve("trace.jsonl");
        BenchmarkWorkload workload = new BenchmarkWorkload(60, 6, 1.5, 5);
        workload.writeCluster(cluster);
        workload.writeTrace(trace);
        List<String> options =
                List.of("--cluster", cluster.toString(), "--policy", "andreas-rg", "--seed", "5", "--iterations", "30");

        Reference reference = Reference.of(trace, WORK.resolve("reference"), options);
        List<String> expected = reference.decisions();
        List<String> lines = Files.readAllLines(trace);
        Path first = WORK.resolve("first.jsonl");
        Path second = WORK.resolve("second.jsonl");
        Path third = WORK.resolve("third.jsonl");
        int n = lines.size();
        Files.write(first, lines.subList(0, n / 3));
        Files.write(second, lines.subList(n / 3, 2 * n / 3));
        List<String> rest = new ArrayList<>(lines.subList(2 * n / 3, n));
        rest.add(reference.sentinel());
        Files.write(third, rest);

        KafkaSettings kafka = KafkaSettings.of("127.0.0.1:" + port);
        new TraceProducer(kafka, 0).publish(first, null);

        Path checkpoints = WORK.resolve("checkpoints");
        List<String> run = new ArrayList<>(List.of(
                "run",
                "--bootstrap",
                kafka.bootstrap(),
                "--group-id",
                "restore-it",
                "--checkpoint-interval",
                "0.5",
                "--checkpoint-dir",
                checkpoints.toString(),
                "--idle-timeout",
                "1"));
        run.addAll(options);

        Path firstLog = WORK.resolve("first-run.log");
        Process killed = launch(run, firstLog, WORK.resolve("tmp"));
        try {
            waitFor(
                    () -> decisions(kafka).size() >= 3,
                    Duration.ofSeconds(120),
                    "the first run to commit decisions",
                    killed,
                    firstLog);
        } finally {
            killed.destroyForcibly(); // SIGKILL: no clean shutdown, no final checkpoint
            killed.waitFor(30, TimeUnit.SECONDS);
        }
        long killedAt = System.nanoTime();
        // Counted once the run is dead: a checkpoint may commit more between a count and the kill.
        int beforeKill = decisions(kafka).size();
        assertTrue(beforeKill < expected.size(), "killed mid-trace: " + beforeKill + " of " + expected.size());
        new TraceProducer(kafka, 0).publish(second, null);

        List<String> restoreRun = new ArrayList<>(run);
        restoreRun.addAll(List.of("--restore", "latest"));
        Path restoredLog = WORK.resolve("restored-run.log");
        Process restored = launch(restoreRun, restoredLog, WORK.resolve("tmp"));
        try {
            waitFor(
                    () -> decisions(kafka).size() > beforeKill,
                    Duration.ofSeconds(120),
                    "the restored run to commit a decision",
                    restored,
                    restoredLog);
            System.out.printf(
                    "restore after kill -9: first new decision committed %.1f s after the kill (JVM start, restore, one checkpoint)%n",
                    (System.nanoTime() - killedAt) / 1e9);
            assertTrue(
                    Files.readString(restoredLog).contains("restored from " + checkpoints),
                    "the run says what it resumed from");

            // The broker goes away under the running job and comes back; the rest of the trace follows.
            Thread.sleep(2000);
            int beforeOutage = decisions(kafka).size();
            kafkaLocal("stop");
            Thread.sleep(5000);
            kafkaLocal("start");
            long brokerBack = System.nanoTime();
            new TraceProducer(kafka, 0).publish(third, null);
            waitFor(
                    () -> decisions(kafka).size() > beforeOutage,
                    Duration.ofSeconds(240),
                    "decisions after the broker outage",
                    restored,
                    restoredLog);
            System.out.printf(
                    "broker outage of 5 s: first new decision committed %.1f s after the broker was back%n",
                    (System.nanoTime() - brokerBack) / 1e9);

            waitFor(
                    () -> decisions(kafka).size() >= expected.size(),
                    Duration.ofSeconds(180),
                    "every decision",
                    restored,
                    restoredLog);
            Thread.sleep(3000); // a few more checkpoints: nothing more may come
            List<String> committed = decisions(kafka);
            assertEquals(committed.size(), new HashSet<>(committed).size(), "no decision twice");
            assertEquals(sorted(expected), sorted(committed));
        } finally {
            restored.destroy();
            if (!restored.waitFor(30, TimeUnit.SECONDS)) restored.destroyForcibly();
        }
    }

    /**
     * A bounded run with exactly-once sinks reports the decisions a read_committed reader sees: the topics' offsets
     * would also count the transactions' commit markers.
     */
    @Test
    void aCheckpointedBoundedRunReportsTheCommittedRecordsNotTheOffsets() throws Exception {
        Path examples = LocalServices.ROOT.resolve("examples");
        List<String> options = List.of(
                "--cluster",
                examples.resolve("armida-cluster.yaml").toString(),
                "--policy",
                "andreas-rg",
                "--seed",
                "3");
        Reference reference =
                Reference.of(examples.resolve("armida-trace.jsonl"), WORK.resolve("armida-reference"), options);
        KafkaSettings kafka = KafkaSettings.of("127.0.0.1:" + port).withTopicPrefix("bounded.");
        TopicAdmin.createAll(kafka.clientConfig(), kafka.topicPrefix(), 1, (short) 1);
        new TraceProducer(kafka, 0).publish(examples.resolve("armida-trace.jsonl"), null);
        List<String> run = new ArrayList<>(List.of(
                "run",
                "--bootstrap",
                kafka.bootstrap(),
                "--topic-prefix",
                kafka.topicPrefix(),
                "--bounded",
                "--checkpoint-interval",
                "0.2"));
        run.addAll(options);
        Path log = WORK.resolve("bounded-run.log");
        Process bounded = launch(run, log, WORK.resolve("tmp"));
        assertTrue(bounded.waitFor(180, TimeUnit.SECONDS), "the bounded run ends");
        String out = Files.readString(log);
        assertEquals(0, bounded.exitValue(), out);
        Matcher written = Pattern.compile(
                        Pattern.quote(Topics.DECISIONS.topic(kafka.topicPrefix())) + "\\s+([\\d,]+)\\s+\\(written\\)")
                .matcher(out);
        assertTrue(written.find(), out);
        assertEquals(
                reference.decisions().size(), Long.parseLong(written.group(1).replace(",", "")), out);
        assertEquals(reference.decisions().size(), decisions(kafka).size());
    }
}
