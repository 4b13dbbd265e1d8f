package org.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.gpusched.streaming.Topics;
import org.gpusched.streaming.avro.PlacementDecision;
import org.gpusched.streaming.file.AvroJson;
import org.gpusched.streaming.kafka.AvroBinary;
import org.gpusched.streaming.kafka.KafkaSettings;

/**
 * The real services of the end-to-end tests of the built launcher: the scripts users run (bin/kafka-local,
 * bin/flink-local, bin/gpusched with the jar this module just built) as child processes, and the decisions topic read
 * as an outside read_committed consumer would.
 */
final class LocalServices {
    static final Path ROOT = Path.of("../..").toAbsolutePath().normalize();
    static final Path JAR = Path.of("target", "gpusched.jar").toAbsolutePath();
    static final Path JOB_JAR = Path.of("target", "gpusched-job.jar").toAbsolutePath();
    static final ObjectMapper JSON = new ObjectMapper();
    private static final String[] DECISION_FIELDS = {
        "policy", "controller", "seq", "time", "job", "action", "node", "type", "gpus", "previousNode"
    };

    private LocalServices() {}

    /** Runs a bin/ script to its end (GPUSCHED_JAR set to the built jar) and returns its output; fails on a non-zero exit. */
    static String script(String name, Map<String, String> env, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(
                List.of("bash", ROOT.resolve("bin").resolve(name).toString()));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().put("GPUSCHED_JAR", JAR.toString());
        pb.environment().putAll(env);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(180, TimeUnit.SECONDS), "bin/" + name + " " + String.join(" ", args) + " finished");
        assertEquals(0, p.exitValue(), "bin/" + name + " " + String.join(" ", args) + ":\n" + out);
        return out;
    }

    /** bin/gpusched in a child JVM, its output to log. */
    static Process launch(List<String> args, Path log, Path tmp) throws IOException {
        List<String> cmd =
                new ArrayList<>(List.of("bash", ROOT.resolve("bin/gpusched").toString()));
        cmd.addAll(args);
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
        pb.environment().put("GPUSCHED_JAR", JAR.toString());
        pb.environment().put("GPUSCHED_JAVA_OPTS", "-Xmx768m");
        pb.environment().put("GPUSCHED_TMP", tmp.toString());
        return pb.start();
    }

    interface Check {
        boolean holds() throws Exception;
    }

    /**
     * Waits until check holds; fails with the log when the process exits first or time runs out. The finding is said
     * before the log and again after it, where a build's tail shows it.
     */
    static void waitFor(Check check, Duration timeout, String what, Process process, Path log) throws Exception {
        long start = System.nanoTime();
        long deadline = start + timeout.toNanos();
        while (!check.holds()) {
            String finding = null;
            if (process != null && !process.isAlive()) finding = "exited (" + process.exitValue() + ") before " + what;
            else if (System.nanoTime() > deadline) finding = "timed out waiting for " + what;
            if (finding != null) {
                finding += String.format(" (%.0f s)", (System.nanoTime() - start) / 1e9);
                throw new AssertionError(finding + "; the log " + log + ":\n" + Files.readString(log) + "\n" + finding);
            }
            Thread.sleep(500);
        }
    }

    /** The decisions committed on the decisions topic (read_committed), as comparable keys. */
    static List<String> decisions(KafkaSettings kafka) throws Exception {
        Properties p = kafka.clientConfig();
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        AvroBinary<PlacementDecision> avro = new AvroBinary<>(PlacementDecision.class);
        List<String> keys = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(p)) {
            TopicPartition tp = new TopicPartition(Topics.DECISIONS.topic(kafka.topicPrefix()), 0);
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            long end = consumer.endOffsets(List.of(tp)).get(tp); // read_committed: the last stable offset
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (consumer.position(tp) < end && System.nanoTime() < deadline) {
                for (var r : consumer.poll(Duration.ofMillis(200)))
                    keys.add(key(JSON.readTree(AvroJson.toLine(avro.decode(r.value())))));
            }
        }
        return keys;
    }

    /**
     * The file replay's decisions of a trace (what an uninterrupted run decides), and a trace line submitted after every
     * one of them: an unbounded run decides up to its watermark, which stays just before the newest submission, so
     * with that line published last it decides them all, and never handles the line itself.
     */
    record Reference(List<String> decisions, String sentinel) {
        static Reference of(Path trace, Path out, List<String> options) throws Exception {
            List<String> replay =
                    new ArrayList<>(List.of("replay", "--trace", trace.toString(), "--out", out.toString()));
            replay.addAll(options);
            var ref = WorkloadCommandsTest.gpusched(replay.toArray(String[]::new));
            assertEquals(0, ref.exit(), ref.err());
            List<String> decisions = new ArrayList<>();
            double last = 0;
            for (String line : Files.readAllLines(out.resolve("decisions.jsonl"))) {
                JsonNode d = JSON.readTree(line);
                decisions.add(key(d));
                last = Math.max(last, d.get("time").asDouble());
            }
            List<String> lines = Files.readAllLines(trace);
            ObjectNode sentinel = (ObjectNode) JSON.readTree(lines.get(lines.size() - 1));
            sentinel.put("id", "after-the-trace")
                    .put("submit", Math.ceil(last) + 3600)
                    .put("due", Math.ceil(last) + 7200);
            return new Reference(List.copyOf(decisions), sentinel.toString());
        }
    }

    /** The decision fields both the topic and decisions.jsonl carry, as one comparable string. */
    static String key(JsonNode d) {
        StringBuilder k = new StringBuilder();
        for (String f : DECISION_FIELDS) {
            JsonNode v = d.path(f);
            k.append(v.isNumber() ? Double.toString(v.asDouble()) : v.isNull() || v.isMissingNode() ? "" : v.asText())
                    .append('|');
        }
        return k.toString();
    }

    static List<String> sorted(List<String> keys) {
        List<String> s = new ArrayList<>(keys);
        s.sort(null);
        return s;
    }

    /** A port P such that P .. P+count-1 are all free on 127.0.0.1 (Kafka: client and controller; Flink: REST, RPC, blob). */
    static int freePorts(int count) throws IOException {
        InetAddress loopback = InetAddress.getByName("127.0.0.1");
        for (int attempt = 0; attempt < 50; attempt++) {
            int p;
            try (ServerSocket s = new ServerSocket(0, 1, loopback)) {
                p = s.getLocalPort();
            }
            if (p + count > 65535) continue;
            List<ServerSocket> held = new ArrayList<>();
            try {
                for (int i = 0; i < count; i++) held.add(new ServerSocket(p + i, 1, loopback));
                return p;
            } catch (IOException taken) {
                // try another range
            } finally {
                for (ServerSocket s : held) s.close();
            }
        }
        throw new IOException("no " + count + " free consecutive ports on 127.0.0.1");
    }
}
