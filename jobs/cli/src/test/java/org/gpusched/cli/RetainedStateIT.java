package org.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.gpusched.formats.ClusterYaml;
import org.gpusched.streaming.RestoreMismatchException;
import org.gpusched.streaming.SchedulerConfig;
import org.gpusched.streaming.kafka.KafkaPipeline;
import org.gpusched.streaming.kafka.KafkaSettings;
import org.gpusched.streaming.kafka.TopicAdmin;
import org.gpusched.streaming.kafka.TraceProducer;
import org.gpusched.testkit.LocalKafkaBroker;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A checkpoint records what its job was made with, and {@code run --restore} refuses one made for another job, in one
 * line naming each difference (exit 2), before anything starts; the settings a restore may change are taken with
 * {@code --restore-new-settings}; a checkpoint of the same job restores. The job itself refuses such a checkpoint too
 * (when started another way, as {@code flink run -s} does): it fails at once instead of restarting without end.
 */
class RetainedStateIT {
    private static final Path EXAMPLES =
            Path.of("../../examples").toAbsolutePath().normalize();
    private static final Path TRACE = EXAMPLES.resolve("armida-trace.jsonl");
    private static final Path CLUSTER = EXAMPLES.resolve("armida-cluster.yaml");
    private static LocalKafkaBroker broker;

    @TempDir
    Path tmp;

    @BeforeAll
    static void startBroker() throws Exception {
        broker = LocalKafkaBroker.start("retained-state-it");
    }

    @AfterAll
    static void stopBroker() throws Exception {
        if (broker != null) broker.close();
    }

    /** Topics of their own with the ARMIDA trace published on them. */
    private static KafkaSettings published(String prefix) throws Exception {
        KafkaSettings kafka = KafkaSettings.of(broker.bootstrap()).withTopicPrefix(prefix);
        TopicAdmin.createAll(kafka.clientConfig(), prefix, 1, (short) 1);
        new TraceProducer(kafka, 0).publish(TRACE, null);
        return kafka;
    }

    private List<String> run(String prefix, Path checkpoints, String... more) {
        List<String> args = new ArrayList<>(List.of(
                "run",
                "--bootstrap",
                broker.bootstrap(),
                "--topic-prefix",
                prefix,
                "--idle-timeout",
                "1",
                "--checkpoint-interval",
                "0.5",
                "--checkpoint-dir",
                checkpoints.toString()));
        args.addAll(List.of(more));
        return args;
    }

    /**
     * A live run in its own JVM until a checkpoint newer than {@code after} is complete, then killed with kill -9:
     * the checkpoint then holds a running job's state, as after a crash. Returns the newest checkpoint.
     */
    private Path checkpointedThenKilled(List<String> run, List<String> job, Path checkpoints, Path after, String name)
            throws Exception {
        List<String> args = new ArrayList<>(run);
        args.addAll(job);
        Path log = tmp.resolve(name + ".log");
        Process p = LocalServices.launch(args, log, tmp.resolve("tmp"));
        try {
            LocalServices.waitFor(
                    () -> RetainedState.newest(checkpoints)
                            .filter(c -> after == null || !c.getParent().equals(after.getParent()))
                            .isPresent(),
                    Duration.ofSeconds(120),
                    "a completed checkpoint of " + name,
                    p,
                    log);
        } finally {
            p.destroyForcibly();
            p.waitFor(30, TimeUnit.SECONDS);
        }
        return RetainedState.newest(checkpoints).orElseThrow();
    }

    private static List<String> job(Path cluster, String policy, String seed, String controllers, String iterations) {
        return List.of(
                "--cluster",
                cluster.toString(),
                "--policy",
                policy,
                "--seed",
                seed,
                "--controllers",
                controllers,
                "--iterations",
                iterations);
    }

    private WorkloadCommandsTest.Run gpusched(List<String> run, List<String> job, String... more) {
        List<String> args = new ArrayList<>(run);
        args.addAll(job);
        args.addAll(List.of(more));
        return WorkloadCommandsTest.gpusched(args.toArray(String[]::new));
    }

    private static void assertRefused(WorkloadCommandsTest.Run r, String... differences) {
        assertEquals(ExitCode.BAD_INPUT, r.exit(), r.out() + r.err());
        assertEquals(1, r.err().strip().lines().count(), "one line: " + r.err());
        assertTrue(r.err().startsWith("gpusched run: --restore "), r.err());
        assertTrue(r.err().contains("the checkpoint was made for another job"), r.err());
        for (String d : differences) assertTrue(r.err().contains(d), "names '" + d + "': " + r.err());
        assertFalse(r.err().contains("\tat ") || r.err().contains("Exception"), "no stack trace: " + r.err());
    }

    @Test
    @Timeout(600)
    void aCheckpointOfAnotherJobIsRefusedNamingEachDifferenceOneOfTheSameJobRestores() throws Exception {
        String prefix = "restore.";
        published(prefix);
        Path checkpoints = tmp.resolve("checkpoints");
        List<String> run = run(prefix, checkpoints);
        List<String> made = job(CLUSTER, "andreas-rg", "3", "1", "30");

        Path snapshot = checkpointedThenKilled(run, made, checkpoints, null, "first-run");
        assertTrue(RetainedState.recordedSettings(snapshot).isPresent(), "the checkpoint records its settings");
        List<String> restore = new ArrayList<>(run);
        restore.addAll(List.of("--restore", "latest"));

        assertRefused(
                gpusched(restore, job(CLUSTER, "fifo", "3", "1", "30")),
                "--policy andreas-rg in the checkpoint, fifo now");
        assertRefused(
                gpusched(restore, job(CLUSTER, "andreas-rg", "3", "2", "30")),
                "--controllers 1 in the checkpoint, 2 now");
        assertRefused(
                gpusched(restore, job(CLUSTER, "andreas-rg", "7", "1", "30")), "--seed 3 in the checkpoint, 7 now");
        Path bigger = tmp.resolve("bigger.yaml");
        Files.writeString(
                bigger, Files.readString(CLUSTER).replace("objective:", "  - {id: armida-08, type: T4x1}\nobjective:"));
        assertRefused(
                gpusched(restore, job(bigger, "andreas-rg", "3", "1", "30")),
                "--cluster: nodes armida-08 added since the checkpoint");
        // every difference in the one line
        assertRefused(
                gpusched(restore, job(bigger, "fifo", "7", "2", "5")),
                "--policy andreas-rg in the checkpoint, fifo now",
                "--seed 3 in the checkpoint, 7 now",
                "--controllers 1 in the checkpoint, 2 now",
                "--cluster: nodes armida-08 added",
                "--iterations 30 in the checkpoint, 5 now");
        // a setting a restore may change: refused unless asked for, and never with a fixed one
        assertRefused(
                gpusched(restore, job(CLUSTER, "andreas-rg", "3", "1", "5")),
                "--iterations 30 in the checkpoint, 5 now",
                "give --restore-new-settings");
        assertRefused(
                gpusched(restore, job(CLUSTER, "fifo", "3", "1", "5"), "--restore-new-settings"),
                "--policy andreas-rg in the checkpoint, fifo now");

        // taken when asked for: the restored job checkpoints again (its own guard let it through), with the new value
        List<String> takeNew = new ArrayList<>(restore);
        takeNew.add("--restore-new-settings");
        Path taken = checkpointedThenKilled(
                takeNew, job(CLUSTER, "andreas-rg", "3", "1", "5"), checkpoints, snapshot, "taken");
        assertTrue(
                Files.readString(tmp.resolve("taken.log")).contains("--iterations 30 in the checkpoint, 5 now (taken"));
        assertTrue(RetainedState.recordedSettings(taken).orElseThrow().contains("\"--iterations\":\"5\""));
        // and the same job restores its own checkpoint
        checkpointedThenKilled(restore, job(CLUSTER, "andreas-rg", "3", "1", "5"), checkpoints, taken, "same");
        assertTrue(Files.readString(tmp.resolve("same.log")).contains("restored from " + checkpoints));
    }

    /**
     * The job's own guard, for a restore the command line did not check (a {@code flink run -s}): the job fails at
     * once with the differences, under a restart strategy that would otherwise restart it a thousand times.
     */
    @Test
    @Timeout(300)
    void theJobItselfRefusesACheckpointOfAnotherJobWithoutRestarting() throws Exception {
        String prefix = "guard.";
        KafkaSettings kafka = published(prefix);
        Path checkpoints = tmp.resolve("guard-checkpoints");
        Path snapshot = checkpointedThenKilled(
                run(prefix, checkpoints), job(CLUSTER, "andreas-rg", "3", "1", "30"), checkpoints, null, "guarded");

        SchedulerConfig other = SchedulerConfig.builder()
                .cluster(ClusterYaml.read(CLUSTER))
                .policy("fifo")
                .seed(3)
                .maxIterations(30)
                .checkpointInterval(Duration.ofMillis(500))
                .idleTimeout(Duration.ofSeconds(1))
                .build();
        Configuration conf = new Configuration();
        conf.set(CoreOptions.DEFAULT_PARALLELISM, 1);
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 1000);
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(100));
        conf.set(StateRecoveryOptions.SAVEPOINT_PATH, snapshot.toUri().toString());
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        KafkaPipeline.define(env, kafka.withExactlyOnce(true), other);
        // unbounded: without the guard it would restart (the NPE of the old policy's timers) or run on forever
        Exception e = assertThrows(Exception.class, () -> env.execute("restored into another job"));
        Throwable cause = e;
        while (cause != null && !(cause instanceof RestoreMismatchException)) cause = cause.getCause();
        assertTrue(cause != null, "refused by the guard: " + e);
        assertTrue(cause.getMessage().contains("--policy andreas-rg in the checkpoint, fifo now"), cause.getMessage());
    }

    /**
     * A checkpoint directory removed under a running job is made again by the next checkpoint, and the run goes on.
     * One that cannot be made again (a file in its place) fails every checkpoint and every restart: the run fails
     * after a bounded number of restarts, saying why, instead of restarting without end.
     */
    @Test
    @Timeout(400)
    void aCheckpointDirectoryRemovedIsMadeAgainOneThatCannotBeFailsTheRunSayingWhy() throws Exception {
        published("gone.");
        Path checkpoints = tmp.resolve("gone-checkpoints");
        List<String> args = new ArrayList<>(run("gone.", checkpoints));
        args.addAll(job(CLUSTER, "andreas-rg", "3", "1", "30"));
        Path log = tmp.resolve("gone.log");
        Process p = LocalServices.launch(args, log, tmp.resolve("tmp"));
        try {
            LocalServices.waitFor(
                    () -> RetainedState.newest(checkpoints).isPresent(),
                    Duration.ofSeconds(120),
                    "a completed checkpoint",
                    p,
                    log);
            removeUnderTheRunningJob(checkpoints, null);
            LocalServices.waitFor(
                    () -> RetainedState.newest(checkpoints).isPresent(),
                    Duration.ofSeconds(60),
                    "a checkpoint in the directory made again",
                    p,
                    log);
            removeUnderTheRunningJob(checkpoints, "a file where the checkpoints were");
            long blocked = System.nanoTime();
            assertTrue(p.waitFor(300, TimeUnit.SECONDS), "the run ends:\n" + Files.readString(log));
            String out = Files.readString(log);
            System.out.printf(
                    "checkpoint directory replaced by a file: the run failed %.1f s later (exit %d)%n",
                    (System.nanoTime() - blocked) / 1e9, p.exitValue());
            assertEquals(ExitCode.BAD_INPUT, p.exitValue(), out);
            List<String> said =
                    out.lines().filter(l -> l.startsWith("gpusched run:")).toList();
            assertEquals(1, said.size(), out);
            assertTrue(
                    said.get(0)
                            .startsWith(
                                    "gpusched run: --checkpoint-dir " + checkpoints + ": is a file, not a directory;"
                                            + " the job cannot write its checkpoints and stopped after "
                                            + RunCommand.MAX_FAILURES
                                            + " failures"),
                    said.get(0));
        } finally {
            p.destroyForcibly();
        }
    }

    /**
     * Removes {@code dir} while the run checkpoints into it, and puts a file with {@code replacement} in its place when
     * given. The job may write a checkpoint's files while the tree is deleted (the delete then finds a directory not
     * empty) or make the directory again before the file is written: both are tried again, for at most 30 s.
     */
    private static void removeUnderTheRunningJob(Path dir, String replacement) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            try {
                org.apache.flink.util.FileUtils.deleteDirectory(dir.toFile());
                if (replacement != null) Files.writeString(dir, replacement);
                return;
            } catch (java.io.IOException raced) {
                if (System.nanoTime() > deadline) throw raced;
                Thread.sleep(50);
            }
        }
    }
}
