package org.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code gpusched compare --pods --nodes}: placement policies in one Flink job, each run equal to a place-replay of that
 * policy and seed alone; and the errors when scheduling and placement are mixed. Fixture: 5 nodes (P100, T4, V100, a
 * CPU node), 40 pods with shares, whole and double GPUs, a T4-only constraint, cut-off and never-scheduled pods, on
 * which the policies decide differently.
 */
class PlacementCompareIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Path PODS = Path.of("src/test/resources/place-compare/pods.csv");
    private static final Path NODES = Path.of("src/test/resources/place-compare/nodes.csv");
    private static final List<String> POLICIES = List.of("fgd", "pwr-fgd", "bestfit", "random");
    private static final List<String> DIRS = List.of("fgd", "pwr-fgd-a0.1", "bestfit", "random");
    private static final List<String> RUN_FILES =
            List.of("decisions.jsonl", "metrics.csv", "metrics.json", "rejected.jsonl");

    @TempDir
    static Path tmp;

    static Path out;
    static WorkloadCommandsTest.Run compare;

    @BeforeAll
    static void compareAllPoliciesInOneJob() {
        out = tmp.resolve("compare");
        compare = WorkloadCommandsTest.gpusched(
                "compare",
                "--pods",
                PODS.toString(),
                "--nodes",
                NODES.toString(),
                "--policies",
                String.join(",", POLICIES),
                "--alpha",
                "0.1",
                "--seeds",
                "1,2",
                "--out",
                out.toString());
    }

    @Test
    void writesARunDirectoryPerPolicyAndSeedTheComparisonAndAReportWithCharts() throws Exception {
        assertEquals(0, compare.exit(), compare.out() + compare.err());
        assertTrue(
                compare.err().contains("8 runs (fgd,pwr-fgd a=0.1,bestfit,random x 2 seeds) in one Flink job"),
                compare.err());
        assertTrue(compare.err().contains("[   304/304]"), "progress over all runs: " + compare.err());
        assertTrue(compare.out().contains("meanEOPC_W") && compare.out().contains("rejected rows: 0"), compare.out());
        for (long seed : new long[] {1, 2})
            for (String d : DIRS)
                for (String f : RUN_FILES)
                    assertTrue(
                            Files.isRegularFile(
                                    out.resolve("seed-" + seed).resolve(d).resolve(f)),
                            seed + "/" + d + "/" + f);

        List<String> csv = Files.readAllLines(out.resolve("comparison.csv"));
        assertEquals(9, csv.size(), "header + one row per run");
        assertTrue(
                csv.get(0)
                        .startsWith(
                                "policy,alpha,seed,replayed,placed,failed,released,rejected,meanEopcWatts,peakEopcWatts,energyKWh"),
                csv.get(0));
        assertTrue(csv.get(1).startsWith("fgd,,1,38,"), csv.get(1));
        assertTrue(csv.get(2).startsWith("\"pwr-fgd a=0.1\",0.1,1,38,"), csv.get(2));
        String html = Files.readString(out.resolve("report.html"));
        assertEquals(4, html.split("<svg", -1).length - 1, "four charts");
        assertTrue(
                html.contains("EOPC over trace time") && html.contains("pwr-fgd a=0.1 seed 2"), "charts name the runs");

        // the policies really decide differently here, so the per-run equality below is not trivially true
        Set<String> distinct = new HashSet<>();
        for (String d : DIRS)
            distinct.add(Files.readString(out.resolve("seed-1").resolve(d).resolve("decisions.jsonl")));
        assertTrue(distinct.size() >= 3, "at least three different placements among " + DIRS);
        // saving vs fgd of the same seed: fgd itself 0, and consistent with the mean EOPCs
        JsonNode fgd = JSON.readTree(out.resolve("seed-2/fgd/metrics.json").toFile());
        JsonNode pf =
                JSON.readTree(out.resolve("seed-2/pwr-fgd-a0.1/metrics.json").toFile());
        double saving = 100
                * (fgd.get("meanEopcWatts").asDouble() - pf.get("meanEopcWatts").asDouble())
                / fgd.get("meanEopcWatts").asDouble();
        String row = csv.stream()
                .filter(l -> l.startsWith("\"pwr-fgd a=0.1\",0.1,2,"))
                .findFirst()
                .orElseThrow();
        assertEquals(saving, Double.parseDouble(row.split(",")[13]), 1e-5, row);
    }

    @Test
    void eachRunEqualsASinglePlaceReplayOfThatPolicyAndSeed() throws Exception {
        assertEquals(0, compare.exit(), compare.out() + compare.err());
        String[][] runs = {
            {"fgd", "2", "fgd"},
            {"pwr-fgd", "2", "pwr-fgd-a0.1"},
            {"bestfit", "2", "bestfit"},
            {"random", "2", "random"},
            {"random", "1", "random"}
        };
        for (String[] r : runs) {
            Path single = tmp.resolve("single-" + r[2] + "-" + r[1]);
            var run = WorkloadCommandsTest.gpusched(
                    "place-replay",
                    "--pods",
                    PODS.toString(),
                    "--nodes",
                    NODES.toString(),
                    "--policy",
                    r[0],
                    "--alpha",
                    "0.1",
                    "--seed",
                    r[1],
                    "--out",
                    single.toString());
            assertEquals(0, run.exit(), run.err());
            Path inCompare = out.resolve("seed-" + r[1]).resolve(r[2]);
            for (String f : List.of("decisions.jsonl", "metrics.csv", "rejected.jsonl"))
                assertEquals(
                        Files.readString(single.resolve(f)),
                        Files.readString(inCompare.resolve(f)),
                        r[2] + " seed " + r[1] + ": " + f);
            ObjectNode a =
                    (ObjectNode) JSON.readTree(single.resolve("metrics.json").toFile());
            ObjectNode b =
                    (ObjectNode) JSON.readTree(inCompare.resolve("metrics.json").toFile());
            a.remove("command");
            b.remove("command");
            assertEquals(a, b, r[2] + " seed " + r[1] + ": metrics.json");
        }
    }

    @Test
    void mixingSchedulingAndPlacementIsAClearOptionError() {
        var fifo = WorkloadCommandsTest.gpusched(
                "compare",
                "--pods",
                PODS.toString(),
                "--nodes",
                NODES.toString(),
                "--policies",
                "fgd,fifo",
                "--out",
                tmp.resolve("x").toString());
        assertEquals(2, fifo.exit());
        assertTrue(fifo.err().contains("fifo: scheduling policies, which need --trace and --cluster"), fifo.err());

        var fgd = WorkloadCommandsTest.gpusched(
                "compare",
                "--trace",
                PODS.toString(),
                "--cluster",
                NODES.toString(),
                "--policies",
                "edf,fgd",
                "--out",
                tmp.resolve("x").toString());
        assertEquals(2, fgd.exit());
        assertTrue(fgd.err().contains("fgd: placement policies, which need --pods and --nodes"), fgd.err());

        var both = WorkloadCommandsTest.gpusched(
                "compare",
                "--trace",
                PODS.toString(),
                "--cluster",
                NODES.toString(),
                "--pods",
                PODS.toString(),
                "--nodes",
                NODES.toString(),
                "--policies",
                "fgd",
                "--out",
                tmp.resolve("x").toString());
        assertEquals(2, both.exit());
        assertTrue(
                both.err().contains("give either --trace and --cluster (scheduling policies) or --pods and --nodes"),
                both.err());

        var iterations = WorkloadCommandsTest.gpusched(
                "compare",
                "--pods",
                PODS.toString(),
                "--nodes",
                NODES.toString(),
                "--policies",
                "fgd",
                "--iterations",
                "5",
                "--out",
                tmp.resolve("x").toString());
        assertEquals(2, iterations.exit());
        assertTrue(iterations.err().contains("--iterations applies to scheduling policies"), iterations.err());

        var alpha = WorkloadCommandsTest.gpusched(
                "compare",
                "--trace",
                PODS.toString(),
                "--cluster",
                NODES.toString(),
                "--policies",
                "edf",
                "--alpha",
                "0.2",
                "--out",
                tmp.resolve("x").toString());
        assertEquals(2, alpha.exit());
        assertTrue(alpha.err().contains("--alpha applies to placement policies"), alpha.err());
        assertFalse(Files.exists(tmp.resolve("x")), "nothing is written on an option error");
    }
}
