package org.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bad lines a hostile user can put in the files of {@code replay}, {@code compare} and {@code --node-events}: each is
 * rejected with file:line, a reason and a field, and the run is written whole with every valid job.
 */
class HostileInputIT {
    private static final Path EXAMPLES =
            Path.of("../../examples").toAbsolutePath().normalize();
    private static final Path TRACE = EXAMPLES.resolve("armida-trace.jsonl");
    private static final String CLUSTER =
            EXAMPLES.resolve("armida-cluster.yaml").toString();
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String JOB =
            "{\"id\":\"X\",\"submit\":100,\"due\":5000,\"weight\":1,\"times\":{\"T4x1\":{\"1\":600}}}";

    @TempDir
    Path tmp;

    private Path trace;
    /** Line number of each bad line written to the trace -> a part of the reason expected for it. */
    private final Map<Integer, String> expected = new LinkedHashMap<>();

    @BeforeEach
    void hostileTrace() throws Exception {
        List<String> good = Files.readAllLines(TRACE);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int line = 0;
        line = write(out, good.get(0), line);
        // A lenient reader would make this a valid job "B\ufffdad".
        String[] around = JOB.replace("X", "B#ad").split("#");
        out.writeBytes(around[0].getBytes(StandardCharsets.UTF_8));
        out.write(0xC3);
        out.writeBytes(around[1].getBytes(StandardCharsets.UTF_8));
        out.write('\n');
        expected.put(++line, "not valid UTF-8 at byte 9");
        line = write(out, "{\"id\":\"L\",\"pad\":\"" + "x".repeat(21_000_000) + "\"}", line);
        expected.put(line, "over the limit of 1,000,000");
        line = write(out, JOB.replace("X", "T1") + JOB.replace("X", "T2"), line);
        expected.put(line, "a line holds one job");
        line = write(out, JOB.replace("X", "T3") + " trailing words", line);
        expected.put(line, "text after the JSON object");
        line = write(out, JOB.replace("X", "D").replace("\"weight\":1", "\"weight\":1,\"weight\":2"), line);
        expected.put(line, "field 'weight' is given twice");
        line = write(out, JOB.replace("X", "G").replace("{\"1\":600}", "{\"1\":600,\"01\":500}"), line);
        expected.put(line, "GPU count 1 is given twice");
        line = write(
                out,
                JOB.replace("X", "S").replace("\"submit\":100,\"due\":5000", "\"submit\":1e17,\"due\":2e17"),
                line);
        expected.put(line, "field 'submit' must be a time in [0, 1.0E10]");
        line = write(out, JOB.replace("X", "E").replace("\"1\":600", "\"1\":1e16"), line);
        expected.put(line, "must be a number of seconds in (0, 1.0E10]");
        line = write(out, JOB.replace("X", "W").replace("\"weight\":1", "\"weight\":1.5e308"), line);
        expected.put(line, "field 'weight' must be a number in [0, 1.0E9]");
        // Two distinct ids, each half of a surrogate pair: as UTF-8 both would be "?X", the second a "duplicate".
        line = write(out, JOB.replace("\"X\"", "\"\\ud800X\""), line);
        expected.put(line, "the id is not Unicode text: \\ud800 at character 1 is half of a surrogate pair");
        line = write(out, JOB.replace("\"X\"", "\"\\ud801X\""), line);
        expected.put(line, "the id is not Unicode text: \\ud801 at character 1 is half of a surrogate pair");
        for (String g : good.subList(1, good.size())) line = write(out, g, line);
        trace = tmp.resolve("hostile.jsonl");
        Files.write(trace, out.toByteArray());
    }

    private static int write(ByteArrayOutputStream out, String line, int number) {
        out.writeBytes(line.getBytes(StandardCharsets.UTF_8));
        out.write('\n');
        return number + 1;
    }

    private void assertRejectedEachBadLine(Path rejectedFile) throws Exception {
        List<String> lines = Files.readAllLines(rejectedFile);
        assertEquals(expected.size(), lines.size(), String.join("\n", lines));
        List<Integer> numbers = new ArrayList<>(expected.keySet());
        for (int i = 0; i < lines.size(); i++) {
            JsonNode r = JSON.readTree(lines.get(i));
            assertEquals(trace + ":" + numbers.get(i), r.get("position").asText());
            String reason = r.get("reason").asText();
            assertTrue(reason.contains(expected.get(numbers.get(i))), numbers.get(i) + ": " + reason);
            assertFalse(
                    r.get("field").isNull() || r.get("field").asText().isBlank(),
                    "every rejection names a field: " + r);
            assertTrue(lines.get(i).length() < 2_000_000, "a rejection keeps a bounded copy of the line");
        }
    }

    @Test
    void replayRejectsEveryBadLineWithFileAndLineAndWritesTheWholeRun() throws Exception {
        Path out = tmp.resolve("run");
        var r = WorkloadCommandsTest.gpusched(
                "replay",
                "--trace",
                trace.toString(),
                "--cluster",
                CLUSTER,
                "--policy",
                "fifo",
                "--out",
                out.toString());
        assertEquals(0, r.exit(), r.err());
        assertFalse(r.err().contains("Input length"), r.err());
        assertRejectedEachBadLine(out.resolve("rejected.jsonl"));
        assertEquals(
                8,
                JSON.readTree(out.resolve("metrics.json").toFile())
                        .get("completedJobs")
                        .asInt());
        assertEquals(8, Files.readAllLines(out.resolve("jobs.jsonl")).size());
        var v = WorkloadCommandsTest.gpusched("validate", out.toString());
        assertEquals(0, v.exit(), v.out() + v.err());
    }

    @Test
    void compareRejectsThemTooInEveryPolicy() throws Exception {
        Path out = tmp.resolve("compare");
        var r = WorkloadCommandsTest.gpusched(
                "compare",
                "--trace",
                trace.toString(),
                "--cluster",
                CLUSTER,
                "--policies",
                "fifo,edf",
                "--out",
                out.toString());
        assertEquals(0, r.exit(), r.err());
        List<Path> rejected;
        try (Stream<Path> files = Files.walk(out)) {
            rejected = files.filter(p -> p.getFileName().toString().equals("rejected.jsonl"))
                    .toList();
        }
        assertEquals(2, rejected.size(), rejected.toString());
        for (Path p : rejected) assertRejectedEachBadLine(p);
    }

    @Test
    void aNodeEventsFileWithBadBytesIsRejectedByLineNotAborted() throws Exception {
        Path events = tmp.resolve("events.jsonl");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes("{\"time\":10,\"node\":\"armida-07\",\"kind\":\"FAILED\"}\n".getBytes(StandardCharsets.UTF_8));
        out.writeBytes(new byte[] {'{', '"', 't', (byte) 0xFF, '"', ':', '1', '}', '\n'});
        Files.write(events, out.toByteArray());
        Path run = tmp.resolve("events-run");
        var r = WorkloadCommandsTest.gpusched(
                "replay",
                "--trace",
                TRACE.toString(),
                "--cluster",
                CLUSTER,
                "--policy",
                "fifo",
                "--node-events",
                events.toString(),
                "--out",
                run.toString());
        assertEquals(0, r.exit(), r.err());
        List<String> rejected = Files.readAllLines(run.resolve("rejected.jsonl"));
        assertEquals(1, rejected.size(), rejected.toString());
        JsonNode bad = JSON.readTree(rejected.get(0));
        assertEquals(events + ":2", bad.get("position").asText());
        assertEquals("not valid UTF-8 at byte 4 (length 1)", bad.get("reason").asText());
        assertEquals("record", bad.get("field").asText());
        assertTrue(Files.exists(run.resolve("metrics.json")));
    }

    @Test
    void aBadClusterFileIsOneLineNamingFileLineKeyAndTheNearestValidKey() throws Exception {
        String yaml = Files.readString(Path.of(CLUSTER));
        Map<String, String> cases = new LinkedHashMap<>();
        cases.put(
                yaml.replace(
                        "hostWatts: 100, pricePerKwh: 0.172, pue: 1.33}}\n  V100x2",
                        "hostWats: 100, pricePerKwh: 0.172, pue: 1.33}}\n  V100x2"),
                ":6: nodeTypes.V100x1.energy: unknown key 'hostWats' (did you mean 'hostWatts'?)");
        cases.put(
                yaml.replace("gpus: 2,", "gpus: -2,"),
                ":7: nodeTypes.V100x2.gpus: must be a whole number in [1, 1024], got -2");
        cases.put(yaml.replace("gpus: 2,", "gpus: 1.5,"), ":7: nodeTypes.V100x2.gpus: must be a whole number");
        cases.put("", ": the cluster file is empty");
        cases.put(
                yaml.replace("gpus: 2,", "gpus: 010,"),
                ":7: nodeTypes.V100x2.gpus: '010' is not a plain decimal number (YAML 1.1 reads it as 8)");
        cases.put(
                yaml.replace("pricePerKwh: 0.172", "pricePerKwh: '0.12'"),
                ":6: nodeTypes.V100x1.energy.pricePerKwh: must be a number, not a quoted text");
        cases.put(yaml.replace("gpuModel: V100, gpus: 2,", "gpus: 2,"), ":7: nodeTypes.V100x2.gpuModel: missing");
        cases.put(
                yaml + "---\nnodes: []\n", ":" + (yaml.lines().count() + 2) + ": a second YAML document (after '---')");
        cases.put(
                "# " + "x".repeat(10_000_000) + "\n" + yaml,
                ":1: the line is 10,000,002 characters, over the limit of 65,536");
        Path cluster = tmp.resolve("cluster.yaml");
        for (var c : cases.entrySet()) {
            Files.writeString(cluster, c.getKey());
            var r = WorkloadCommandsTest.gpusched(
                    "replay",
                    "--trace",
                    TRACE.toString(),
                    "--cluster",
                    cluster.toString(),
                    "--policy",
                    "fifo",
                    "--out",
                    tmp.resolve("never").toString());
            assertEquals(2, r.exit(), r.err());
            assertTrue(r.err().contains(cluster + c.getValue()), r.err());
            assertFalse(r.err().contains("\tat "), "no stack trace: " + r.err());
            assertEquals(1, r.err().strip().lines().count(), "one line: " + r.err());
        }
    }

    @Test
    void aByteOrderMarkBeforeTheFirstJobKeepsItAndARejectedTimeDoesNotStopStreaming() throws Exception {
        List<String> good = Files.readAllLines(TRACE);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(new byte[] {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF});
        int line = 0;
        for (int i = 0; i < good.size(); i++) {
            line = write(out, good.get(i), line);
            if (i == 2) {
                // times the job rejects: past the latest time a trace may give, and for a type this cluster lacks
                line = write(out, JOB.replace("\"submit\":100,\"due\":5000", "\"submit\":1e11,\"due\":2e11"), line);
                line = write(out, JOB.replace("T4x1", "H100x8").replace("\"submit\":100", "\"submit\":1e9"), line);
            }
        }
        Path bom = tmp.resolve("bom.jsonl");
        Files.write(bom, out.toByteArray());
        Path run = tmp.resolve("bom-run");
        var r = WorkloadCommandsTest.gpusched(
                "replay", "--trace", bom.toString(), "--cluster", CLUSTER, "--policy", "fifo", "--out", run.toString());
        assertEquals(0, r.exit(), r.err());
        assertFalse(r.err().contains("is earlier than a line before it"), "the trace streams: " + r.err());
        assertEquals(8, Files.readAllLines(run.resolve("jobs.jsonl")).size(), "the first job is kept");
        List<String> rejected = Files.readAllLines(run.resolve("rejected.jsonl"));
        assertEquals(2, rejected.size(), rejected.toString());
        assertEquals(bom + ":4", JSON.readTree(rejected.get(0)).get("position").asText());
        assertEquals(bom + ":5", JSON.readTree(rejected.get(1)).get("position").asText());
    }

    @Test
    void anIdTakenByAJobThatFinishedLongAgoIsNotCalledActive() throws Exception {
        List<String> good = new ArrayList<>(Files.readAllLines(TRACE));
        JsonNode first = JSON.readTree(good.get(0));
        good.add(JOB.replace("\"X\"", first.get("id").toString())
                .replace("\"submit\":100,\"due\":5000", "\"submit\":9e8,\"due\":9.1e8"));
        Path again = tmp.resolve("again.jsonl");
        Files.write(again, good);
        Path run = tmp.resolve("again-run");
        var r = WorkloadCommandsTest.gpusched(
                "replay",
                "--trace",
                again.toString(),
                "--cluster",
                CLUSTER,
                "--policy",
                "fifo",
                "--out",
                run.toString());
        assertEquals(0, r.exit(), r.err());
        List<String> rejected = Files.readAllLines(run.resolve("rejected.jsonl"));
        assertEquals(1, rejected.size(), rejected.toString());
        String reason = JSON.readTree(rejected.get(0)).get("reason").asText();
        assertFalse(reason.contains("active"), reason);
        assertTrue(reason.contains("duplicate id (a job with this id was submitted before in this replay"), reason);
    }
}
