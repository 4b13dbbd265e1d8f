package org.gpusched.streaming;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.gpusched.formats.ClusterYaml;
import org.gpusched.streaming.file.FileJobSources;
import org.gpusched.streaming.file.LocalRun;
import org.gpusched.streaming.file.RunDirectoryWriter;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** End to end: {@link SchedulerJob#define} on a Flink MiniCluster over a trace file with malformed lines. */
class ReplayIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static Path trace;
    private static Path cluster;

    @TempDir
    static Path tmp;

    @BeforeAll
    static void files() throws URISyntaxException {
        trace = Path.of(ReplayIT.class.getResource("/replay/small-trace.jsonl").toURI());
        cluster =
                Path.of(ReplayIT.class.getResource("/replay/small-cluster.yaml").toURI());
    }

    private static SchedulerConfig.Builder config(String policy) {
        return SchedulerConfig.builder()
                .cluster(ClusterYaml.read(cluster))
                .policy(policy)
                .seed(11)
                .maxIterations(200)
                .outOfOrderness(SchedulerConfig.END_OF_INPUT_WATERMARK);
    }

    private static Path replay(SchedulerConfig cfg, String name, int parallelism) throws Exception {
        Path parts = tmp.resolve(name + "-parts");
        LocalRun.run(cfg, new FileJobSources(trace), parts, parallelism, "it " + name, done -> {});
        for (String policy : cfg.policies()) {
            RunDirectoryWriter.write(
                    parts, tmp.resolve(name + "-" + policy), cfg, policy, Map.of("trace", trace.toString()));
        }
        return tmp.resolve(name + "-" + cfg.policies().get(0));
    }

    @Test
    void replayRejectsBadLinesCompletesEveryJobAndIsDeterministic() throws Exception {
        Path first = replay(config("andreas-rg").build(), "rg1", 1);
        Path second = replay(config("andreas-rg").build(), "rg2", 2);

        List<String> rejected = Files.readAllLines(first.resolve("rejected.jsonl"));
        List<String> positions =
                rejected.stream().map(l -> read(l).get("position").asText()).toList();
        String name = trace.toString();
        assertEquals(List.of(name + ":5", name + ":11", name + ":16", name + ":22", name + ":27"), positions);
        assertTrue(read(rejected.get(0)).get("reason").asText().startsWith("not valid JSON"), rejected.get(0));
        assertTrue(read(rejected.get(1)).get("reason").asText().contains("'weight' is missing"), rejected.get(1));
        assertTrue(read(rejected.get(2)).get("reason").asText().contains("before its submission"), rejected.get(2));
        assertTrue(read(rejected.get(3)).get("reason").asText().contains("unknown node type 'A100'"), rejected.get(3));
        assertTrue(read(rejected.get(4)).get("reason").asText().contains("duplicate id"), rejected.get(4));

        JsonNode metrics = JSON.readTree(first.resolve("metrics.json").toFile());
        assertEquals(24, metrics.get("acceptedJobs").asInt());
        assertEquals(24, metrics.get("completedJobs").asInt());
        assertEquals(5, metrics.get("rejected").asInt());
        RunDirectoryCheck.Totals totals = RunDirectoryCheck.check(first);
        assertEquals(24, totals.completed());
        assertEquals(
                totals.executionCost(),
                metrics.get("executionCost").asDouble(),
                1e-6,
                "execution cost recomputed from the decisions");
        assertEquals(
                totals.tardinessCost(),
                metrics.get("tardinessCost").asDouble(),
                1e-9,
                "tardiness cost recomputed from the decisions");
        assertEquals(
                metrics.get("executionCost").asDouble()
                        + metrics.get("tardinessCost").asDouble(),
                metrics.get("totalCost").asDouble(),
                1e-9);
        assertTrue(metrics.get("makespanSeconds").asDouble() > 0
                && metrics.get("meanJctSeconds").asDouble() > 0);

        // same trace and seed: byte-identical decisions, also at another parallelism
        assertEquals(
                Files.readAllLines(first.resolve("decisions.jsonl")),
                Files.readAllLines(second.resolve("decisions.jsonl")));
        assertEquals(Files.readAllLines(first.resolve("jobs.jsonl")), Files.readAllLines(second.resolve("jobs.jsonl")));
    }

    @Test
    void policiesSideBySideMatchSoloRunsAndControllersWithNoiseStayConsistent() throws Exception {
        SchedulerConfig both = config("fifo")
                .policies(List.of("fifo", "andreas-rg"))
                .controllers(2)
                .noise(0.1)
                .build();
        replay(both, "pair", 2);
        Path solo = replay(config("andreas-rg").controllers(2).noise(0.1).build(), "solo", 1);
        Path pairRg = tmp.resolve("pair-andreas-rg");
        Path pairFifo = tmp.resolve("pair-fifo");
        assertEquals(
                Files.readAllLines(solo.resolve("decisions.jsonl")),
                Files.readAllLines(pairRg.resolve("decisions.jsonl")),
                "a policy run next to another makes the same decisions as alone");
        for (Path dir : List.of(pairRg, pairFifo)) {
            RunDirectoryCheck.Totals totals = RunDirectoryCheck.check(dir);
            JsonNode metrics = JSON.readTree(dir.resolve("metrics.json").toFile());
            assertEquals(24, totals.completed(), dir.toString());
            assertEquals(totals.executionCost(), metrics.get("executionCost").asDouble(), 1e-6);
        }
        long noisy = Files.readAllLines(solo.resolve("jobs.jsonl")).stream()
                .filter(l -> read(l).get("actualFactor").asDouble() != 1.0)
                .count();
        assertEquals(24, noisy, "noise 0.1 gives every job its own actualFactor");
        List<Integer> controllers = Files.readAllLines(solo.resolve("decisions.jsonl")).stream()
                .map(l -> read(l).get("controller").asInt())
                .distinct()
                .sorted()
                .toList();
        assertEquals(List.of(0, 1), controllers);
        assertNotEquals(
                Files.readAllLines(pairFifo.resolve("decisions.jsonl")),
                Files.readAllLines(pairRg.resolve("decisions.jsonl")));
    }

    private static JsonNode read(String line) {
        try {
            return JSON.readTree(line);
        } catch (Exception e) {
            throw new AssertionError(line, e);
        }
    }
}
