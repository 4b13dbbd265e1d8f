package org.gpusched.streaming.placement;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.gpusched.placement.experiment.PolicySpec;
import org.gpusched.placement.io.AlibabaTraceCsv;
import org.gpusched.placement.model.NodeSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The replay end to end on a Flink mini cluster over the hand-checked fixture (see place-replay/README.md). */
class PlacementReplayIT {
    @TempDir Path dir;

    @Test
    void replaysTheFixtureAndWritesDecisionsMetricsAndSummary() throws Exception {
        ReplayTrace trace = ReplayTrace.read(ReplayPlacementFunctionTest.PODS);
        List<NodeSpec> nodes = AlibabaTraceCsv.readNodes(ReplayPlacementFunctionTest.NODES);
        try (ReplayOutput out = new ReplayOutput(dir, nodes, trace.tasks())) {
            PlacementReplay.run(new PlacementReplay.Config(nodes, trace, new PolicySpec("pwr-fgd", 0.1), 42), out::accept);
            out.finish(ReplayOutput.runInfo().put("policy", "pwr-fgd"), trace.unscheduled());
        }
        ObjectMapper json = new ObjectMapper();
        List<String> decisions = Files.readAllLines(dir.resolve("decisions.jsonl"));
        StringBuilder seen = new StringBuilder();
        for (String line : decisions) {
            JsonNode d = json.readTree(line);
            seen.append(d.get("time").asLong()).append(' ').append(d.get("action").asText()).append(' ').append(d.get("task").asText())
                    .append(' ').append(d.get("node").isNull() ? "-" : d.get("node").asText()).append(' ')
                    .append(d.get("gpus").size()).append('x').append(d.get("gpuMilli").asInt()).append('\n');
        }
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
                """, seen.toString());

        List<String> metrics = Files.readAllLines(dir.resolve("metrics.csv"));
        assertEquals(ReplayOutput.METRICS_HEADER, metrics.get(0));
        assertEquals(10, metrics.size());
        assertEquals("0,PLACE,p0,1,120.0,80.0,200.0,0.500000", metrics.get(1).substring(0, metrics.get(1).lastIndexOf(',')));
        assertEquals("100,RELEASE,p3,0,15.0,20.0,35.0,0.000000", metrics.get(9).substring(0, metrics.get(9).lastIndexOf(',')));

        JsonNode m = json.readTree(dir.resolve("metrics.json").toFile());
        assertEquals(4, m.get("placed").asLong());
        assertEquals(1, m.get("failed").asLong());
        assertEquals(4, m.get("released").asLong());
        assertEquals(1, m.get("unscheduledSkipped").asInt());
        assertEquals(100, m.get("durationSeconds").asLong());
        assertEquals(230.0, m.get("meanEopcWatts").asDouble(), 1e-9);
        assertEquals(260.0, m.get("peakEopcWatts").asDouble(), 1e-9);
        assertEquals(23000 / 3.6e6, m.get("energyKWh").asDouble(), 1e-12);
    }
}
