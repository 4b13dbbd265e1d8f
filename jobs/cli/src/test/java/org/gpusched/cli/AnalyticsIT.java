package org.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.lang.management.ManagementFactory;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.message.BinaryMessageDecoder;
import org.apache.avro.specific.SpecificRecordBase;
import org.apache.flink.types.Row;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.gpusched.analytics.SqlCatalog;
import org.gpusched.analytics.SqlRunner;
import org.gpusched.streaming.Topics;
import org.gpusched.streaming.kafka.KafkaSettings;
import org.gpusched.streaming.kafka.TopicAdmin;
import org.gpusched.streaming.kafka.TopicReader;
import org.gpusched.testkit.LocalKafkaBroker;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Downstream analytics on a real broker after a bounded run written in the single-object wire format (two policies,
 * two controllers, one bad trace line): the topics decode with Avro's own BinaryMessageDecoder and the .avsc files
 * alone; every shipped SQL query, run by Flink's real planner over the topics, agrees with the run directory
 * (metrics.json, decisions.jsonl, jobs.jsonl); {@code gpusched sql} and {@code gpusched top} print them.
 */
class AnalyticsIT {
    private static final Path ROOT = Path.of("../..").toAbsolutePath().normalize();
    private static final Path EXAMPLES = ROOT.resolve("examples");
    private static final String PREFIX = "an.";
    private static final List<String> POLICIES = List.of("andreas-rg", "edf");
    private static final ObjectMapper JSON = new ObjectMapper();
    private static LocalKafkaBroker broker;
    private static Path tmp;
    private static Path runDir;

    @BeforeAll
    static void replayOnKafka() throws Exception {
        broker = LocalKafkaBroker.start("analytics-it");
        tmp = Files.createTempDirectory(Path.of("target"), "analytics-it");
        KafkaSettings kafka = KafkaSettings.of(broker.bootstrap()).withTopicPrefix(PREFIX);
        TopicAdmin.createAll(kafka.clientConfig(), PREFIX, 1, (short) 1);
        Path trace = tmp.resolve("trace.jsonl");
        List<String> lines = new ArrayList<>(Files.readAllLines(EXAMPLES.resolve("armida-trace.jsonl")));
        lines.add(2, "{\"id\": \"broken\", \"submit\": 3,");
        Files.write(trace, lines);
        var produced = WorkloadCommandsTest.gpusched(
                "produce",
                "--trace",
                trace.toString(),
                "--bootstrap",
                broker.bootstrap(),
                "--topic-prefix",
                PREFIX,
                "--wire-format",
                "single-object");
        assertEquals(0, produced.exit(), produced.err());
        runDir = tmp.resolve("run");
        var run = WorkloadCommandsTest.gpusched(
                "run",
                "--bootstrap",
                broker.bootstrap(),
                "--topic-prefix",
                PREFIX,
                "--cluster",
                EXAMPLES.resolve("armida-cluster.yaml").toString(),
                "--policy",
                String.join(",", POLICIES),
                "--controllers",
                "2",
                "--seed",
                "3",
                "--bounded",
                "--wire-format",
                "single-object",
                "--out",
                runDir.toString());
        assertEquals(0, run.exit(), run.err());
    }

    @AfterAll
    static void stopBroker() throws Exception {
        if (broker != null) broker.close();
    }

    private static JsonNode metrics(String policy) throws Exception {
        return JSON.readTree(runDir.resolve(policy).resolve("metrics.json").toFile());
    }

    private static List<JsonNode> jsonLines(Path file) throws Exception {
        List<JsonNode> out = new ArrayList<>();
        for (String l : Files.readAllLines(file)) if (!l.isBlank()) out.add(JSON.readTree(l));
        return out;
    }

    private static List<JsonNode> decisions(String policy) throws Exception {
        return jsonLines(runDir.resolve(policy).resolve("decisions.jsonl"));
    }

    private static List<byte[]> values(Topics topic) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrap());
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        List<byte[]> out = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p)) {
            TopicPartition tp = new TopicPartition(topic.topic(PREFIX), 0);
            c.assign(List.of(tp));
            c.seekToBeginning(List.of(tp));
            long end = c.endOffsets(List.of(tp)).get(tp);
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (c.position(tp) < end && System.nanoTime() < deadline)
                for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) out.add(r.value());
        }
        return out;
    }

    @Test
    void theTopicsAreSingleObjectEncodedAndDecodeWithAvroAlone() throws Exception {
        Schema schema = new Schema.Parser()
                .parse(ROOT.resolve("schemas/PlacementDecision.avsc").toFile());
        BinaryMessageDecoder<GenericRecord> avro = new BinaryMessageDecoder<>(GenericData.get(), schema);
        List<String> fromTopic = new ArrayList<>();
        for (byte[] v : values(Topics.DECISIONS)) {
            assertArrayEquals(new byte[] {(byte) 0xC3, 0x01}, Arrays.copyOf(v, 2), "single-object marker");
            GenericRecord d = avro.decode(v);
            fromTopic.add(d.get("policy") + " " + d.get("controller") + " " + d.get("seq") + " " + d.get("job") + " "
                    + d.get("action") + " " + d.get("time") + " " + d.get("node") + " " + d.get("gpus"));
        }
        List<String> fromDir = new ArrayList<>();
        for (String policy : POLICIES)
            for (JsonNode d : decisions(policy))
                fromDir.add(d.get("policy").asText() + " " + d.get("controller").asInt() + " "
                        + d.get("seq").asLong() + " " + d.get("job").asText() + " "
                        + d.get("action").asText() + " "
                        + d.get("time").asDouble() + " "
                        + (d.get("node").isNull() ? null : d.get("node").asText())
                        + " " + d.get("gpus").asInt());
        fromTopic.sort(null);
        fromDir.sort(null);
        assertFalse(fromDir.isEmpty());
        assertEquals(fromDir, fromTopic);

        // the input was single-object too, and the job read it as the file replay reads the trace
        for (byte[] v : values(Topics.SUBMISSIONS))
            if (v.length > 0 && v[0] == (byte) 0xC3)
                new BinaryMessageDecoder<GenericRecord>(
                                GenericData.get(),
                                new Schema.Parser()
                                        .parse(ROOT.resolve("schemas/JobSubmitted.avsc")
                                                .toFile()))
                        .decode(v);
        Path fileOut = tmp.resolve("file-replay");
        var replay = WorkloadCommandsTest.gpusched(
                "replay",
                "--trace",
                EXAMPLES.resolve("armida-trace.jsonl").toString(),
                "--cluster",
                EXAMPLES.resolve("armida-cluster.yaml").toString(),
                "--policy",
                "andreas-rg",
                "--controllers",
                "2",
                "--seed",
                "3",
                "--out",
                fileOut.toString());
        assertEquals(0, replay.exit(), replay.err());
        assertEquals(
                Files.readAllLines(fileOut.resolve("decisions.jsonl")),
                Files.readAllLines(runDir.resolve("andreas-rg").resolve("decisions.jsonl")));
    }

    private static Map<String, List<Row>> byPolicy(SqlRunner.Result r, String column) {
        int i = r.columns().indexOf(column);
        Map<String, List<Row>> out = new TreeMap<>();
        for (Row row : r.rows())
            out.computeIfAbsent(String.valueOf(row.getField(i)), k -> new ArrayList<>())
                    .add(row);
        return out;
    }

    private static double num(SqlRunner.Result r, Row row, String column) {
        Object v = row.getField(r.columns().indexOf(column));
        return ((Number) v).doubleValue();
    }

    /** GPU-hours per node type from decisions.jsonl: a START/RESIZE/MIGRATE holds gpus until the job's next decision. */
    private static Map<String, Double> gpuHoursByType(String policy) throws Exception {
        Map<String, List<JsonNode>> byJob = new HashMap<>();
        for (JsonNode d : decisions(policy))
            byJob.computeIfAbsent(d.get("job").asText(), k -> new ArrayList<>()).add(d);
        Map<String, Double> hours = new TreeMap<>();
        for (List<JsonNode> ds : byJob.values()) {
            ds.sort(Comparator.comparingLong(d -> d.get("seq").asLong()));
            for (int i = 0; i + 1 < ds.size(); i++) {
                JsonNode d = ds.get(i);
                String action = d.get("action").asText();
                if (!action.equals("START") && !action.equals("RESIZE") && !action.equals("MIGRATE")) continue;
                double seconds =
                        ds.get(i + 1).get("time").asDouble() - d.get("time").asDouble();
                hours.merge(d.get("type").asText(), d.get("gpus").asInt() * seconds / 3600, Double::sum);
            }
        }
        return hours;
    }

    @Test
    void everyShippedSchedulingQueryAgreesWithTheRunDirectory() throws Exception {
        try (SqlRunner sql = new SqlRunner(new SqlCatalog.Target(broker.bootstrap(), PREFIX, false))) {
            SqlRunner.Result tardiness = sql.query(SqlCatalog.query("tardiness_by_policy"));
            Map<String, List<Row>> t = byPolicy(tardiness, "policy");
            assertEquals(new TreeSet<>(POLICIES), t.keySet());
            for (String policy : POLICIES) {
                JsonNode m = metrics(policy);
                Row row = t.get(policy).get(0);
                assertEquals(m.get("completedJobs").asDouble(), num(tardiness, row, "completed_jobs"), policy);
                assertEquals(m.get("tardyJobs").asDouble(), num(tardiness, row, "tardy_jobs"), policy);
                assertEquals(m.get("tardinessCost").asDouble(), num(tardiness, row, "tardiness_cost"), 1e-9, policy);
                assertEquals(m.get("meanJctSeconds").asDouble(), num(tardiness, row, "mean_jct_seconds"), 1e-9, policy);
            }

            SqlRunner.Result cost = sql.query(SqlCatalog.query("cost_per_hour"));
            Map<String, List<Row>> c = byPolicy(cost, "policy");
            for (String policy : POLICIES) {
                Map<Integer, Double> lastExecution = new HashMap<>();
                double costInHours = 0;
                for (Row row : c.get(policy)) {
                    lastExecution.put(
                            ((Number) row.getField(cost.columns().indexOf("controller"))).intValue(),
                            num(cost, row, "execution_cost"));
                    costInHours += num(cost, row, "cost_in_hour");
                }
                double execution = lastExecution.values().stream()
                        .mapToDouble(Double::doubleValue)
                        .sum();
                JsonNode m = metrics(policy);
                assertTrue(m.get("executionCost").asDouble() > 0, policy);
                assertEquals(m.get("executionCost").asDouble(), execution, 1e-6, policy);
                assertEquals(m.get("totalCost").asDouble(), costInHours, 1e-6, policy);
            }

            SqlRunner.Result types = sql.query(SqlCatalog.query("gpu_hours_per_node_type"));
            SqlRunner.Result use = sql.query(SqlCatalog.query("utilisation"));
            Map<String, List<Row>> ty = byPolicy(types, "policy"), u = byPolicy(use, "policy");
            for (String policy : POLICIES) {
                Map<String, Double> expected = gpuHoursByType(policy);
                Map<String, Double> actual = new TreeMap<>();
                for (Row row : ty.get(policy))
                    actual.put(
                            String.valueOf(row.getField(types.columns().indexOf("type"))),
                            num(types, row, "gpu_hours"));
                assertEquals(expected.keySet(), actual.keySet(), policy);
                expected.forEach((type, h) -> assertEquals(h, actual.get(type), 1e-9, policy + " " + type));
                double total = expected.values().stream()
                        .mapToDouble(Double::doubleValue)
                        .sum();
                double busy = u.get(policy).stream()
                        .mapToDouble(row -> num(use, row, "busy_gpu_hours"))
                        .sum();
                assertTrue(total > 0);
                assertEquals(total, busy, 1e-6, policy + ": busy GPU-hours over time = GPU-hours of the placements");
            }

            SqlRunner.Result latency = sql.query(SqlCatalog.query("optimizer_latency"));
            Map<String, List<Row>> l = byPolicy(latency, "policy");
            for (String policy : POLICIES) {
                JsonNode m = metrics(policy);
                Row row = l.get(policy).get(0);
                assertEquals(m.get("optimizerMedianMs").asDouble(), num(latency, row, "p50_ms"), 1e-12, policy);
                assertEquals(m.get("optimizerP99Ms").asDouble(), num(latency, row, "p99_ms"), 1e-12, policy);
            }

            SqlRunner.Result rejected = sql.query(SqlCatalog.query("rejected_by_reason"));
            double records = rejected.rows().stream()
                    .mapToDouble(row -> num(rejected, row, "records"))
                    .sum();
            assertEquals(metrics("edf").get("rejected").asDouble(), records);
            assertEquals(1, records, "the broken line");
        }
    }

    private record TopRow(int queue, int running, int gpus, double totalCost, long completed) {}

    /** The controllers' rows of a top frame, summed per policy. */
    private static Map<String, TopRow> topRows(String frame) {
        Map<String, TopRow> rows = new LinkedHashMap<>();
        for (String line : frame.split("\n")) {
            if (line.startsWith("latest decisions")) break;
            String[] f = line.trim().split("\\s+");
            if (f.length != 10 || !POLICIES.contains(f[0])) continue;
            TopRow r = new TopRow(
                    Integer.parseInt(f[3]),
                    Integer.parseInt(f[4]),
                    Integer.parseInt(f[5]),
                    Double.parseDouble(f[7]),
                    Long.parseLong(f[8]));
            rows.merge(
                    f[0],
                    r,
                    (a, b) -> new TopRow(
                            a.queue + b.queue,
                            a.running + b.running,
                            a.gpus + b.gpus,
                            a.totalCost + b.totalCost,
                            a.completed + b.completed));
        }
        return rows;
    }

    @Test
    void topShowsTheClusterAsItWasAtEachDecisionAndTheLatestDecisions() throws Exception {
        List<JsonNode> jobs = jsonLines(runDir.resolve("andreas-rg").resolve("jobs.jsonl"));
        for (String policy : POLICIES) {
            List<JsonNode> ds = decisions(policy);
            TreeSet<Double> times = new TreeSet<>();
            for (JsonNode d : ds) times.add(d.get("time").asDouble());
            for (double at : times) {
                // from the run directory: each job's last decision at or before `at`
                Map<String, JsonNode> last = new HashMap<>();
                for (JsonNode d : ds)
                    if (d.get("time").asDouble() <= at) last.put(d.get("job").asText(), d);
                int running = 0, gpus = 0, done = 0;
                for (JsonNode d : last.values()) {
                    String a = d.get("action").asText();
                    if (a.equals("COMPLETE")) done++;
                    else if (!a.equals("PREEMPT")) {
                        running++;
                        gpus += d.get("gpus").asInt();
                    }
                }
                long submitted = jobs.stream()
                        .filter(j -> j.get("submit").asDouble() <= at)
                        .count();
                var top = WorkloadCommandsTest.gpusched(
                        "top",
                        "--bootstrap",
                        broker.bootstrap(),
                        "--topic-prefix",
                        PREFIX,
                        "--once",
                        "--at",
                        Double.toString(at));
                assertEquals(0, top.exit(), top.err());
                TopRow row = topRows(top.out()).get(policy);
                String where = policy + " at " + at + ":\n" + top.out();
                assertEquals(running, row.running(), where);
                assertEquals(gpus, row.gpus(), where);
                assertEquals(submitted - running - done, row.queue(), where);
                assertEquals(done, row.completed(), where);
            }
        }

        // the whole run: totals of metrics.json, and the latest decisions in time order
        var frames = WorkloadCommandsTest.gpusched(
                "top",
                "--bootstrap",
                broker.bootstrap(),
                "--topic-prefix",
                PREFIX,
                "--frames",
                "2",
                "--interval",
                "1",
                "--decisions",
                "4");
        assertEquals(0, frames.exit(), frames.err());
        String[] printed = frames.out().split("(?m)^(?=gpusched top )");
        assertEquals(2, printed.length, frames.out());
        Map<String, TopRow> end = topRows(printed[1]);
        for (String policy : POLICIES) {
            JsonNode m = metrics(policy);
            assertEquals(m.get("completedJobs").asLong(), end.get(policy).completed(), policy);
            assertEquals(m.get("totalCost").asDouble(), end.get(policy).totalCost(), 0.01, policy);
            assertEquals(0, end.get(policy).running());
        }
        List<JsonNode> all = new ArrayList<>();
        for (String policy : POLICIES) all.addAll(decisions(policy));
        all.sort(Comparator.<JsonNode>comparingDouble(d -> d.get("time").asDouble())
                .thenComparing(d -> d.get("policy").asText())
                .thenComparingInt(d -> d.get("controller").asInt())
                .thenComparingLong(d -> d.get("seq").asLong()));
        List<String> expected = new ArrayList<>();
        for (JsonNode d : all.subList(all.size() - 4, all.size()))
            expected.add(d.get("job").asText() + " " + d.get("action").asText());
        List<String> shown = new ArrayList<>();
        boolean inDecisions = false;
        for (String line : printed[1].split("\n")) {
            if (line.startsWith("latest decisions")) inDecisions = true;
            else if (inDecisions && !line.trim().startsWith("TIME_S")) {
                String[] f = line.trim().split("\\s+");
                shown.add(f[3] + " " + f[4]);
            }
        }
        assertEquals(expected, shown);
    }

    @Test
    void theSqlCommandRunsAShippedQueryAndAFile() throws Exception {
        var list = WorkloadCommandsTest.gpusched("sql", "--list");
        assertEquals(0, list.exit(), list.err());
        for (String q : SqlCatalog.QUERIES) assertTrue(list.out().contains(q), list.out());

        var shipped = WorkloadCommandsTest.gpusched(
                "sql",
                "--bootstrap",
                broker.bootstrap(),
                "--topic-prefix",
                PREFIX,
                "--query",
                "tardiness_by_policy",
                "--format",
                "tsv");
        assertEquals(0, shipped.exit(), shipped.err());
        String[] lines = shipped.out().strip().split("\n");
        assertTrue(lines[0].startsWith("policy\tcompleted_jobs\ttardy_jobs"), shipped.out());
        assertEquals(1 + POLICIES.size(), lines.length, shipped.out());
        assertEquals(
                metrics("edf").get("completedJobs").asLong(), Long.parseLong(lines[2].split("\t")[1]), shipped.out());

        Path file = tmp.resolve("count.sql");
        Files.writeString(
                file, "-- decisions per policy\nSELECT policy, COUNT(*) AS n FROM decisions\nGROUP BY policy;\n");
        var own = WorkloadCommandsTest.gpusched(
                "sql",
                "--bootstrap",
                broker.bootstrap(),
                "--topic-prefix",
                PREFIX,
                "--file",
                file.toString(),
                "--format",
                "tsv");
        assertEquals(0, own.exit(), own.err());
        for (String policy : POLICIES)
            assertTrue(
                    own.out().contains(policy + "\t" + decisions(policy).size()),
                    policy + " " + decisions(policy).size() + ": " + own.out());

        var unknown =
                WorkloadCommandsTest.gpusched("sql", "--bootstrap", broker.bootstrap(), "--query", "no_such_query");
        assertEquals(ExitCode.BAD_INPUT, unknown.exit());
        assertTrue(unknown.err().contains("tardiness_by_policy"), unknown.err());
        Files.writeString(file, "SELECT nonsense FROM decisions;\n");
        var bad = WorkloadCommandsTest.gpusched(
                "sql", "--bootstrap", broker.bootstrap(), "--topic-prefix", PREFIX, "--file", file.toString());
        assertEquals(ExitCode.BAD_INPUT, bad.exit(), bad.out() + bad.err());
        assertTrue(bad.err().startsWith("gpusched sql: ") && bad.err().strip().split("\n").length == 1, bad.err());
    }

    /** The launcher in a JVM of its own, output to a file (as RunDirectoryIT launches it). */
    private static Process launch(Path log, String... args) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        for (String a : ManagementFactory.getRuntimeMXBean().getInputArguments())
            if (!a.startsWith("-Xmx") && !a.startsWith("-javaagent") && !a.startsWith("-agentlib")) cmd.add(a);
        cmd.addAll(List.of("-Xmx1g", "-cp", System.getProperty("java.class.path"), GpuSched.class.getName()));
        cmd.addAll(List.of(args));
        return new ProcessBuilder(cmd)
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
    }

    private static final Pattern SERIES =
            Pattern.compile("^flink_taskmanager_job_task_operator_((?:controller|source)_\\w+)\\{(.*)}\\s+(\\S+)$");

    /** Sum of the product's series named {@code name} whose labels contain {@code label}; NaN when none. */
    private static double sum(String body, String name, String label) {
        double total = Double.NaN;
        for (String line : body.split("\n")) {
            Matcher m = SERIES.matcher(line.trim());
            if (!m.matches() || !m.group(1).equals(name) || !m.group(2).contains(label)) continue;
            total = (Double.isNaN(total) ? 0 : total) + Double.parseDouble(m.group(3));
        }
        return total;
    }

    private static long count(Topics topic, String prefix, Predicate<SpecificRecordBase> which) throws Exception {
        long[] n = {0};
        try (TopicReader reader = new TopicReader(KafkaSettings.of(broker.bootstrap()))) {
            reader.read(topic.topic(prefix), topic.recordClass(), null, Long.MAX_VALUE, r -> {
                if (r.value() != null && which.test(r.value())) n[0]++;
            });
        }
        return n[0];
    }

    @Test
    void aLiveRunServesPrometheusMetricsAndAnswersSqlAndTopWhileItRuns() throws Exception {
        String prefix = "live.";
        TopicAdmin.createAll(KafkaSettings.of(broker.bootstrap()).clientConfig(), prefix, 1, (short) 1);
        Path trace = tmp.resolve("live-trace.jsonl");
        List<String> lines = new ArrayList<>(Files.readAllLines(EXAMPLES.resolve("armida-trace.jsonl")));
        lines.add(1, "not json");
        Files.write(trace, lines);
        var produced = WorkloadCommandsTest.gpusched(
                "produce", "--trace", trace.toString(), "--bootstrap", broker.bootstrap(), "--topic-prefix", prefix);
        assertEquals(0, produced.exit(), produced.err());
        int port;
        try (ServerSocket free = new ServerSocket(0)) {
            port = free.getLocalPort();
        }
        Path log = tmp.resolve("live-run.log");
        Process run = launch(
                log,
                "run",
                "--bootstrap",
                broker.bootstrap(),
                "--topic-prefix",
                prefix,
                "--cluster",
                EXAMPLES.resolve("armida-cluster.yaml").toString(),
                "--policy",
                "andreas-rg",
                "--seed",
                "3",
                "--idle-timeout",
                "1",
                "--wire-format",
                "single-object",
                "--metrics-port",
                Integer.toString(port));
        try {
            HttpClient http = HttpClient.newHttpClient();
            long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
            String body = "";
            long starts = -1;
            while (System.nanoTime() < deadline) {
                Thread.sleep(1000);
                assertTrue(run.isAlive(), () -> "run ended: " + readLog(log));
                try {
                    body = http.send(
                                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
                                            .build(),
                                    HttpResponse.BodyHandlers.ofString())
                            .body();
                } catch (java.io.IOException notYet) {
                    continue;
                }
                double scraped = sum(body, "controller_action_decisions", "action=\"START\"");
                if (Double.isNaN(scraped)) continue;
                long fromTopic = count(
                        Topics.DECISIONS,
                        prefix,
                        r -> ((org.gpusched.streaming.avro.PlacementDecision) r)
                                .getAction()
                                .name()
                                .equals("START"));
                if (fromTopic > 0 && scraped == fromTopic && sum(body, "source_rejectedRecords", "") == 1) {
                    starts = fromTopic;
                    break;
                }
            }
            assertTrue(starts > 0, "the scraped START decisions never matched the topic; last scrape:\n" + body);

            // the same running scheduler, queried: sql and top see what it has written so far
            long finished = count(Topics.JOB_METRICS, prefix, r -> true);
            var sql = WorkloadCommandsTest.gpusched(
                    "sql",
                    "--bootstrap",
                    broker.bootstrap(),
                    "--topic-prefix",
                    prefix,
                    "--query",
                    "tardiness_by_policy",
                    "--format",
                    "tsv");
            assertEquals(0, sql.exit(), sql.err());
            if (finished > 0)
                assertTrue(sql.out().contains("andreas-rg\t" + finished + "\t"), finished + ": " + sql.out());
            var top = WorkloadCommandsTest.gpusched(
                    "top", "--bootstrap", broker.bootstrap(), "--topic-prefix", prefix, "--once");
            assertEquals(0, top.exit(), top.err());
            assertTrue(top.out().contains("andreas-rg"), top.out());
            assertTrue(run.isAlive(), "the run goes on");
        } finally {
            run.destroy();
            if (!run.waitFor(30, TimeUnit.SECONDS)) run.destroyForcibly();
        }
    }

    private static String readLog(Path log) {
        try {
            return Files.readString(log);
        } catch (java.io.IOException e) {
            return e.toString();
        }
    }
}
