package org.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.gpusched.audit.AuditReport;
import org.gpusched.audit.RunAuditor;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code gpusched compare} end to end on a small generated instance: every output written, consistent and audited. */
class CompareCommandIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final List<String> POLICIES = List.of("fifo", "edf", "priority", "andreas-rg");
    private static final List<String> RUN_FILES =
            List.of("run.json", "jobs.jsonl", "decisions.jsonl", "metrics.json", "rejected.jsonl");

    @TempDir
    static Path tmp;

    static Path trace;
    static Path cluster;

    @BeforeAll
    static void generate() {
        Path dir = tmp.resolve("instance");
        WorkloadCommandsTest.generate(
                "--scenario",
                "andreas",
                "--shape",
                "small",
                "--nodes",
                "4",
                "--jobs",
                "24",
                "--seed",
                "5",
                "--out",
                dir.toString());
        trace = dir.resolve("trace.jsonl");
        cluster = dir.resolve("cluster.yaml");
    }

    @Test
    void comparesEveryPolicyAndSeedWritesRunDirectoriesCsvReportAndACleanAudit() throws Exception {
        Path out = tmp.resolve("compare");
        var r = WorkloadCommandsTest.gpusched(
                "compare",
                "--trace",
                trace.toString(),
                "--cluster",
                cluster.toString(),
                "--policies",
                String.join(",", POLICIES),
                "--seeds",
                "1,2",
                "--noise",
                "0.1",
                "--iterations",
                "200",
                "--out",
                out.toString());
        assertEquals(0, r.exit(), r.out() + r.err());
        assertTrue(r.err().contains("96/96 (job, policy) pairs finished"), "progress on stderr: " + r.err());
        assertTrue(
                r.out().contains("total cost")
                        && r.out().contains("saving vs best queue policy")
                        && r.out().contains("lower bound"),
                "summary table: " + r.out());
        assertEquals(
                8,
                r.out().lines().filter(l -> l.trim().endsWith("clean")).count(),
                "one clean audit line per run: " + r.out());

        // one run directory per (seed, policy), in the replay format, each accepted by the independent auditor
        Map<String, JsonNode> metrics = new HashMap<>();
        for (long seed : new long[] {1, 2}) {
            for (String policy : POLICIES) {
                Path dir = out.resolve("seed-" + seed).resolve(policy);
                for (String f : RUN_FILES) assertTrue(Files.isRegularFile(dir.resolve(f)), dir + "/" + f);
                JsonNode run = JSON.readTree(dir.resolve("run.json").toFile());
                assertEquals(policy, run.get("policy").asText());
                assertEquals(seed, run.get("seed").asLong());
                assertEquals(0.1, run.get("noise").asDouble(), 1e-12);
                assertEquals(200, run.get("maxIterations").asInt());
                JsonNode m = JSON.readTree(dir.resolve("metrics.json").toFile());
                assertEquals(24, m.get("completedJobs").asInt(), dir.toString());
                List<String> decisions = Files.readAllLines(dir.resolve("decisions.jsonl"));
                assertTrue(
                        decisions.stream().allMatch(l -> l.contains("\"policy\":\"" + policy + "\"")),
                        "only the policy's own decisions in " + dir);
                AuditReport audit = RunAuditor.audit(dir);
                assertTrue(audit.ok(), dir + ": " + audit.format());
                metrics.put(policy + "/" + seed, m);
            }
            assertFalse(Files.exists(out.resolve("seed-" + seed).resolve(".parts")), "part files cleaned up");
        }

        // the noise is drawn from the seed: with 10% noise both seeds see different real durations
        assertTrue(
                metrics.get("fifo/1").get("makespanSeconds").asDouble()
                        != metrics.get("fifo/2").get("makespanSeconds").asDouble(),
                "different seeds, different noise");

        // comparison.csv: one row per run, equal to the run's metrics.json, reduction vs the best of fifo/edf/priority
        List<String> csv = Files.readAllLines(out.resolve("comparison.csv"));
        assertEquals(9, csv.size(), String.join("\n", csv));
        List<String> header = List.of(csv.get(0).replace("\"", "").split(","));
        for (String col : List.of(
                "policy",
                "seed",
                "totalCost",
                "executionCost",
                "tardinessCost",
                "tardyJobs",
                "meanJctSeconds",
                "makespanSeconds",
                "optimizerMedianMs",
                "optimizerP99Ms",
                "reductionVsBestBaselinePercent")) {
            assertTrue(header.contains(col), "column " + col + " in " + header);
        }
        for (long seed : new long[] {1, 2}) {
            double best = Double.MAX_VALUE;
            for (String b : List.of("fifo", "edf", "priority"))
                best = Math.min(
                        best, metrics.get(b + "/" + seed).get("totalCost").asDouble());
            for (String line : csv.subList(1, csv.size())) {
                String[] f = line.split(",");
                if (Long.parseLong(f[header.indexOf("seed")]) != seed) continue;
                JsonNode m = metrics.get(f[header.indexOf("policy")] + "/" + seed);
                double total = Double.parseDouble(f[header.indexOf("totalCost")]);
                assertEquals(m.get("totalCost").asDouble(), total, 1e-5, line);
                assertEquals(
                        m.get("tardyJobs").asDouble(), Double.parseDouble(f[header.indexOf("tardyJobs")]), 0, line);
                assertEquals(
                        m.get("makespanSeconds").asDouble(),
                        Double.parseDouble(f[header.indexOf("makespanSeconds")]),
                        1e-3,
                        line);
                // the instance's lower bound, the same for every policy of a seed (the noise scales the real times)
                Path dir = out.resolve("seed-" + seed).resolve(f[header.indexOf("policy")]);
                double bound = Double.parseDouble(f[header.indexOf("lowerBound")]);
                assertEquals(RunLowerBound.of(dir), bound, 1e-5, line);
                assertEquals(
                        RunLowerBound.of(out.resolve("seed-" + seed).resolve("fifo")), RunLowerBound.of(dir), 1e-9);
                assertTrue(bound > 0 && bound <= total, line);
                assertEquals(
                        100 * (total - bound) / bound,
                        Double.parseDouble(f[header.indexOf("overBoundPercent")]),
                        1e-3,
                        line);
                double expected = best == 0 ? Double.NaN : 100 * (best - total) / best;
                String red = f[header.indexOf("reductionVsBestBaselinePercent")];
                if (!Double.isNaN(expected)) assertEquals(expected, Double.parseDouble(red), 1e-3, line);
            }
        }

        String html = Files.readString(out.resolve("report.html"));
        assertTrue(html.contains("<svg") && html.contains("andreas-rg"), "report.html with charts");
        String audit = Files.readString(out.resolve("audit.txt"));
        assertEquals(8, audit.lines().filter(l -> l.startsWith("== ")).count(), audit);
    }

    @Test
    void eachPolicyDecidesAsItWouldAloneOnTheSameEventStream() throws Exception {
        Path out = tmp.resolve("single-seed");
        var r = WorkloadCommandsTest.gpusched(
                "compare",
                "--trace",
                trace.toString(),
                "--cluster",
                cluster.toString(),
                "--policies",
                "edf,andreas-rg",
                "--seeds",
                "7",
                "--noise",
                "0.1",
                "--out",
                out.toString());
        assertEquals(0, r.exit(), r.out() + r.err());
        Path replay = tmp.resolve("replay-rg");
        var single = WorkloadCommandsTest.gpusched(
                "replay",
                "--trace",
                trace.toString(),
                "--cluster",
                cluster.toString(),
                "--policy",
                "andreas-rg",
                "--seed",
                "7",
                "--noise",
                "0.1",
                "--out",
                replay.toString());
        assertEquals(0, single.exit(), single.err());
        // one seed: the run directories sit directly under --out
        assertEquals(
                Files.readAllLines(replay.resolve("decisions.jsonl")),
                Files.readAllLines(out.resolve("andreas-rg").resolve("decisions.jsonl")));
        ObjectNode a = (ObjectNode) JSON.readTree(replay.resolve("metrics.json").toFile());
        ObjectNode b = (ObjectNode)
                JSON.readTree(out.resolve("andreas-rg").resolve("metrics.json").toFile());
        assertEquals(a.get("totalCost").asDouble(), b.get("totalCost").asDouble(), 0);
        assertTrue(Files.isRegularFile(out.resolve("edf").resolve("metrics.json")));
    }

    @Test
    void badInputEndsWithAMessageAndANonZeroExit() throws Exception {
        String t = trace.toString(),
                c = cluster.toString(),
                o = tmp.resolve("bad").toString();
        var unknown = WorkloadCommandsTest.gpusched(
                "compare", "--trace", t, "--cluster", c, "--policies", "fifo,nosuch", "--out", o);
        assertEquals(2, unknown.exit());
        assertTrue(unknown.err().contains("nosuch"), unknown.err());
        assertFalse(unknown.err().contains("\tat "), "no stack trace: " + unknown.err());

        var missing = WorkloadCommandsTest.gpusched(
                "compare",
                "--trace",
                tmp.resolve("none.jsonl").toString(),
                "--cluster",
                c,
                "--policies",
                "fifo",
                "--out",
                o);
        assertEquals(2, missing.exit());
        assertTrue(missing.err().contains("none.jsonl: no such file"), missing.err());

        var twice = WorkloadCommandsTest.gpusched(
                "compare", "--trace", t, "--cluster", c, "--policies", "fifo", "--seeds", "1,1", "--out", o);
        assertEquals(2, twice.exit());
        assertTrue(twice.err().contains("seed twice"), twice.err());

        var controllers = WorkloadCommandsTest.gpusched(
                "compare", "--trace", t, "--cluster", c, "--policies", "fifo", "--controllers", "9", "--out", o);
        assertEquals(2, controllers.exit());
        assertTrue(controllers.err().contains("controllers"), controllers.err());

        Path badCluster = tmp.resolve("bad-cluster.yaml");
        Files.writeString(badCluster, "nodeTypes: [this is not\n");
        var yaml = WorkloadCommandsTest.gpusched(
                "compare", "--trace", t, "--cluster", badCluster.toString(), "--policies", "fifo", "--out", o);
        assertEquals(ExitCode.BAD_INPUT, yaml.exit());
        assertTrue(yaml.err().contains("bad-cluster.yaml"), yaml.err());
        assertFalse(Files.exists(Path.of(o).resolve("comparison.csv")));

        var help = WorkloadCommandsTest.gpusched("compare", "--help");
        assertEquals(0, help.exit());
        assertTrue(
                help.out().contains("--policies")
                        && help.out().contains("--seeds")
                        && help.out().contains("comparison.csv"),
                help.out());
    }
}
