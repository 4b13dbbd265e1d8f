package org.gpusched.streaming.placement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.gpusched.placement.experiment.PolicySpec;
import org.gpusched.placement.io.AlibabaTraceCsv;
import org.gpusched.placement.model.NodeSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The replay end to end on a Flink mini cluster over the hand-checked fixture (see place-replay/README.md). */
class PlacementReplayIT {
    @TempDir
    Path dir;

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final ReplayRun PWR_FGD = new ReplayRun(new PolicySpec("pwr-fgd", 0.1), 42);

    /** Replays {@code pods} with pwr-fgd into {@code out}; returns the rejected rows. */
    private static List<com.fasterxml.jackson.databind.node.ObjectNode> replay(Path pods, Path out) throws Exception {
        ReplayTrace trace = ReplayTrace.scan(pods);
        List<NodeSpec> nodes = AlibabaTraceCsv.readNodes(ReplayPlacementFunctionTest.NODES);
        try (ReplayOutput output = new ReplayOutput(out, nodes)) {
            var rejected = PlacementReplay.run(
                    PlacementConfig.boundedReplay(nodes, trace, List.of(PWR_FGD), 1),
                    pods,
                    out.resolve(".parts"),
                    output::accept);
            output.finish(ReplayOutput.runInfo().put("policy", "pwr-fgd"), trace.unscheduled(), rejected);
            return rejected;
        }
    }

    private static String decisions(Path run) throws Exception {
        StringBuilder seen = new StringBuilder();
        for (String line : Files.readAllLines(run.resolve("decisions.jsonl"))) {
            JsonNode d = JSON.readTree(line);
            seen.append(d.get("time").asLong())
                    .append(' ')
                    .append(d.get("action").asText())
                    .append(' ')
                    .append(d.get("task").asText())
                    .append(' ')
                    .append(d.get("node").isNull() ? "-" : d.get("node").asText())
                    .append(' ')
                    .append(d.get("gpus").size())
                    .append('x')
                    .append(d.get("gpuMilli").asInt())
                    .append('\n');
        }
        return seen.toString();
    }

    @Test
    void replaysTheFixtureAndWritesDecisionsMetricsAndSummary() throws Exception {
        assertEquals(List.of(), replay(ReplayPlacementFunctionTest.PODS, dir));
        ObjectMapper json = JSON;
        String seen = decisions(dir);
        assertEquals("""
                0 PLACE p0 node-a 1x1000
                10 PLACE p1 node-a 1x500
                20 FAIL p2 - 0x1000
                40 PLACE p3 node-a 0x0
                50 RELEASE p1 node-a 1x500
                50 PLACE p5 node-a 1x500
                60 RELEASE p5 node-a 1x500
                100 RELEASE p0 node-a 1x1000
                100 RELEASE p3 node-a 0x0
                """, seen);

        List<String> metrics = Files.readAllLines(dir.resolve("metrics.csv"));
        assertEquals(ReplayOutput.METRICS_HEADER, metrics.get(0));
        assertEquals(10, metrics.size());
        assertEquals(
                "0,PLACE,p0,1,120.0,80.0,200.0,0.500000",
                metrics.get(1).substring(0, metrics.get(1).lastIndexOf(',')));
        assertEquals(
                "100,RELEASE,p3,0,15.0,20.0,35.0,0.000000",
                metrics.get(9).substring(0, metrics.get(9).lastIndexOf(',')));

        JsonNode m = json.readTree(dir.resolve("metrics.json").toFile());
        assertEquals(4, m.get("placed").asLong());
        assertEquals(1, m.get("failed").asLong());
        assertEquals(4, m.get("released").asLong());
        assertEquals(1, m.get("unscheduledSkipped").asInt());
        assertEquals(100, m.get("durationSeconds").asLong());
        assertEquals(230.0, m.get("meanEopcWatts").asDouble(), 1e-9);
        assertEquals(260.0, m.get("peakEopcWatts").asDouble(), 1e-9);
        assertEquals(23000 / 3.6e6, m.get("energyKWh").asDouble(), 1e-12);
        assertEquals(0, m.get("rejected").asInt());
        assertEquals(0, Files.size(dir.resolve("rejected.jsonl")));
        // allocation 0.5 for [0, 10), 0.75 for [10, 60) (p1 then p5 on the half GPU), 0.5 for [60, 100): (5 + 37.5 +
        // 20) / 100
        assertEquals(0.625, m.get("meanAllocatedGpuFraction").asDouble(), 1e-9);
        assertEquals(0.75, m.get("peakAllocatedGpuFraction").asDouble(), 1e-9);
    }

    @Test
    void badRowsAreRejectedWithLineAndReasonAndTheValidRowsArePlacedExactlyAsWithoutThem() throws Exception {
        Path clean = dir.resolve("clean");
        replay(ReplayPlacementFunctionTest.PODS, clean);

        List<String> lines = new ArrayList<>(Files.readAllLines(ReplayPlacementFunctionTest.PODS));
        // bad rows before, between and after the good ones (file lines 2, 5, 6, 9 and 12 of the seeded file)
        lines.add(1, "\"broken,4000,8192,1,1000,,LS,Succeeded,0,100,0");
        lines.add(4, "q1,2000,4096,2,500,,LS,Succeeded,12,30,12");
        lines.add(5, "q2,2000,4096,1,1000,,LS,Succeeded,15");
        lines.add(8, "q3,many,4096,1,1000,,LS,Succeeded,41,60,41");
        lines.add("q4,1000,1024,0,0,,LS,Succeeded,70,65,70");
        Path seeded = dir.resolve("seeded.csv");
        Files.write(seeded, lines);
        Path run = dir.resolve("seeded");
        List<com.fasterxml.jackson.databind.node.ObjectNode> rejected = replay(seeded, run);

        assertEquals(
                decisions(clean),
                decisions(run),
                "the valid rows are placed exactly as in the file without the bad ones");
        assertEquals(Files.readAllLines(clean.resolve("metrics.csv")), Files.readAllLines(run.resolve("metrics.csv")));
        List<String> written = Files.readAllLines(run.resolve("rejected.jsonl"));
        assertEquals(5, written.size());
        assertEquals(5, rejected.size());
        long[] expectedLines = {2, 5, 6, 9, 12};
        String[] fields = {null, "gpu_milli", null, "cpu_milli", "deletion_time"};
        for (int i = 0; i < 5; i++) {
            JsonNode r = JSON.readTree(written.get(i));
            assertEquals(expectedLines[i], r.get("line").asLong(), written.get(i));
            assertEquals(seeded.toString(), r.get("source").asText());
            assertEquals(lines.get((int) expectedLines[i] - 1), r.get("text").asText(), "the original text");
            if (fields[i] == null) assertTrue(r.get("field").isNull(), written.get(i));
            else {
                assertEquals(fields[i], r.get("field").asText());
                assertTrue(r.get("reason").asText().startsWith("column '" + fields[i] + "': "), written.get(i));
            }
        }
        assertEquals(
                "column 'cpu_milli': not an integer: 'many'",
                JSON.readTree(written.get(3)).get("reason").asText());
        assertEquals(
                "9 fields, the header has 11",
                JSON.readTree(written.get(2)).get("reason").asText());
        assertEquals(
                5,
                JSON.readTree(run.resolve("metrics.json").toFile())
                        .get("rejected")
                        .asInt());
        assertFalse(Files.exists(run.resolve(".parts")), "the part files are cleaned up");
    }
}
