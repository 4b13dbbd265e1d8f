package org.gpusched.cli;

import static org.gpusched.cli.LocalServices.JOB_JAR;
import static org.gpusched.cli.LocalServices.JSON;
import static org.gpusched.cli.LocalServices.decisions;
import static org.gpusched.cli.LocalServices.freePorts;
import static org.gpusched.cli.LocalServices.script;
import static org.gpusched.cli.LocalServices.sorted;
import static org.gpusched.cli.LocalServices.waitFor;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.gpusched.cli.LocalServices.Reference;
import org.gpusched.streaming.kafka.KafkaSettings;
import org.gpusched.streaming.kafka.TraceProducer;
import org.gpusched.workloads.BenchmarkWorkload;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * gpusched on a real Flink session cluster: bin/flink-local's JobManager and two TaskManagers of one slot each
 * (separate JVMs), the job jar (gpusched-job.jar, without Flink) submitted with {@code flink run}, a real broker. The
 * trace is published over about 40 s while the checkpointed job schedules it; the TaskManager running the job is
 * killed with kill -9 mid-trace and a new one is started. The decisions committed on the topic (read_committed) must
 * be the file replay's, none twice; the outage (kill to the next committed decision) is printed.
 *
 * <p>Takes about three minutes and starts five JVMs, so it runs only in the profile {@code cluster-it}:
 * {@code mvn -B -ntp -pl jobs/cli -am verify -Pcluster-it -Dit.test=FlinkClusterFailoverIT
 * -Dfailsafe.failIfNoSpecifiedTests=false -Dtest=NONE -Dsurefire.failIfNoSpecifiedTests=false}.
 */
@EnabledIfSystemProperty(named = "gpusched.cluster-it", matches = "true")
class FlinkClusterFailoverIT {
    private static final Path WORK =
            Path.of("target", "cluster-it-" + ProcessHandle.current().pid()).toAbsolutePath();
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static int kafkaPort;
    private static int flinkPort;

    @BeforeAll
    static void startServices() throws Exception {
        Files.createDirectories(WORK);
        kafkaPort = freePorts(2);
        script(
                "kafka-local",
                Map.of(),
                "start",
                "--dir",
                WORK.resolve("kafka").toString(),
                "--port",
                Integer.toString(kafkaPort));
        flinkPort = freePorts(3);
        flinkLocal("start", "--taskmanagers", "2");
    }

    @AfterAll
    static void stopServices() throws Exception {
        try {
            flinkLocal("stop");
        } finally {
            script(
                    "kafka-local",
                    Map.of(),
                    "stop",
                    "--dir",
                    WORK.resolve("kafka").toString(),
                    "--port",
                    Integer.toString(kafkaPort));
        }
    }

    private static String flinkLocal(String command, String... args) throws Exception {
        List<String> all = new ArrayList<>(
                List.of(command, "--dir", WORK.resolve("flink").toString(), "--port", Integer.toString(flinkPort)));
        all.addAll(List.of(args));
        return script(
                "flink-local", Map.of("FLINK_SLOTS", "1", "FLINK_TM_MEMORY", "1280m"), all.toArray(String[]::new));
    }

    @Test
    void killingTheTaskManagerThatRunsTheJobLosesAndDoublesNothing() throws Exception {
        Path cluster = WORK.resolve("cluster.yaml");
        Path trace = WORK.resolve("trace.jsonl");
        BenchmarkWorkload workload = new BenchmarkWorkload(300, 8, 1.5, 13);
        workload.writeCluster(cluster);
        workload.writeTrace(trace);
        List<String> options = List.of(
                "--cluster", cluster.toString(), "--policy", "andreas-rg", "--seed", "13", "--iterations", "30");
        Reference reference = Reference.of(trace, WORK.resolve("reference"), options);
        Path last = WORK.resolve("sentinel.jsonl");
        Files.writeString(last, reference.sentinel() + "\n");

        KafkaSettings kafka = KafkaSettings.of("127.0.0.1:" + kafkaPort);
        List<String> submit = new ArrayList<>(List.of(
                "run",
                "--",
                "-d",
                "-c",
                "org.gpusched.cli.FlinkJob",
                JOB_JAR.toString(),
                "--bootstrap",
                kafka.bootstrap(),
                "--group-id",
                "cluster-it",
                "--checkpoint-interval",
                "1",
                "--checkpoint-dir",
                WORK.resolve("checkpoints").toString(),
                "--idle-timeout",
                "1"));
        submit.addAll(options);
        String submitted =
                flinkLocal(submit.get(0), submit.subList(1, submit.size()).toArray(String[]::new));
        assertTrue(submitted.contains("submitted job"), submitted);

        List<String> lines = Files.readAllLines(trace);
        double span = JSON.readTree(lines.get(lines.size() - 1)).get("submit").asDouble()
                - JSON.readTree(lines.get(0)).get("submit").asDouble();
        CompletableFuture<Void> publishing = CompletableFuture.runAsync(() -> {
            try {
                new TraceProducer(kafka, span / 40).publish(trace, null);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        Path jmLog = WORK.resolve("flink/logs/jobmanager.log");
        waitFor(
                () -> decisions(kafka).size() >= reference.decisions().size() / 10,
                Duration.ofSeconds(120),
                "decisions before the kill",
                null,
                jmLog);

        long pid = busyTaskManagerPid();
        int beforeKill = decisions(kafka).size();
        assertTrue(!publishing.isDone(), "the kill happens mid-trace");
        ProcessHandle busy = ProcessHandle.of(pid).orElseThrow();
        busy.destroyForcibly();
        long killed = System.nanoTime();
        // dead before a new one is counted: add-taskmanager counts the TaskManagers still alive, and a process killed
        // a moment ago may still be tearing down (a zombie no one reaps counts as dead, as the script reads it)
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(30);
        while (busy.isAlive() && !isZombie(pid) && System.nanoTime() < deadline) Thread.sleep(100);
        flinkLocal("add-taskmanager");
        waitFor(
                () -> decisions(kafka).size() > beforeKill,
                Duration.ofSeconds(180),
                "a decision after the kill",
                null,
                jmLog);
        System.out.printf(
                "TaskManager kill -9 with %d of %d decisions committed: the next decision committed %.1f s after the kill%n",
                beforeKill, reference.decisions().size(), (System.nanoTime() - killed) / 1e9);

        publishing.join();
        new TraceProducer(kafka, 0).publish(last, null);
        waitFor(
                () -> decisions(kafka).size() >= reference.decisions().size(),
                Duration.ofSeconds(180),
                "every decision",
                null,
                jmLog);
        Thread.sleep(3000);
        List<String> committed = decisions(kafka);
        assertEquals(committed.size(), new HashSet<>(committed).size(), "no decision twice");
        assertEquals(sorted(reference.decisions()), sorted(committed));
    }

    /** The pid of the TaskManager whose one slot is taken (REST /taskmanagers), found by its id in the logs. */
    private static long busyTaskManagerPid() throws Exception {
        JsonNode tms = JSON.readTree(get("/taskmanagers")).get("taskmanagers");
        String busy = null;
        for (JsonNode tm : tms)
            if (tm.get("freeSlots").asInt() == 0) busy = tm.get("id").asText();
        assertTrue(busy != null, "a TaskManager runs the job: " + tms);
        Path flink = WORK.resolve("flink");
        try (var logs = Files.list(flink.resolve("logs"))) {
            for (Path log : logs.filter(p -> p.getFileName().toString().startsWith("taskmanager-"))
                    .toList()) {
                if (Files.readString(log).contains(busy)) {
                    String name = log.getFileName().toString().replace(".log", ".pid");
                    return Long.parseLong(Files.readString(flink.resolve(name)).trim());
                }
            }
        }
        throw new AssertionError("no TaskManager log names " + busy);
    }

    private static String get(String path) throws IOException, InterruptedException {
        return HTTP.send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + flinkPort + path))
                                .build(),
                        HttpResponse.BodyHandlers.ofString())
                .body();
    }

    private static boolean isZombie(long pid) {
        try {
            return Files.readAllLines(Path.of("/proc/" + pid + "/status")).stream()
                    .anyMatch(l -> l.startsWith("State:") && l.contains("Z"));
        } catch (java.io.IOException gone) {
            return true;
        }
    }
}
