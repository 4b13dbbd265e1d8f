package org.gpusched.placement.experiment;

import static org.gpusched.placement.model.Nodes.node;
import static org.gpusched.placement.model.Nodes.task;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.gpusched.placement.model.NodeSpec;
import org.gpusched.placement.model.Task;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class InflationExperimentTest {
    private static final List<NodeSpec> NODES = new ArrayList<>();
    private static final List<Task> TRACE = new ArrayList<>();

    static {
        for (int i = 0; i < 6; i++) NODES.add(node("g2-" + i, 96000, 393216, 8, "G2"));
        for (int i = 0; i < 4; i++) NODES.add(node("t4-" + i, 104000, 524288, 2, "T4"));
        int[] milli = {1000, 500, 250, 800, 1000, 1000};
        for (int i = 0; i < 30; i++) {
            int m = milli[i % milli.length];
            TRACE.add(
                    i % 10 == 9
                            ? task(8000, 1024, 4, 1000)
                            : i % 7 == 3 ? task(4000, 1024, 0, 0) : task(2000 + 1000L * (i % 5), 4096, 1, m));
        }
    }

    private static final List<PolicySpec> POLICIES = List.of(
            new PolicySpec("fgd", Double.NaN),
            new PolicySpec("pwr-fgd", 0.1),
            new PolicySpec("pwr", Double.NaN),
            new PolicySpec("bestfit", Double.NaN),
            new PolicySpec("random", Double.NaN));

    private static InflationExperiment.Result run(int threads, List<Long> seeds) {
        return InflationExperiment.run(
                new InflationExperiment.Config(NODES, TRACE, POLICIES, seeds, 1.3, 0.05, threads), r -> {});
    }

    @Test
    void sameSeedsGiveTheSameCurvesWhateverTheThreads() {
        assertEquals(run(1, List.of(1L, 2L)).curve(), run(2, List.of(1L, 2L)).curve());
        assertNotEquals(run(1, List.of(1L)).curve(), run(1, List.of(3L)).curve());
    }

    @Test
    void sequenceIsTheShuffledTraceThenClonesUpToTheLoad() {
        int[] seq = TaskSequence.sample(TRACE, 56_000, 1.3, 9);
        long requested = 0;
        for (int index : seq) requested += TRACE.get(index).gpuMilliTotal();
        // the simulator's stop test adds the clone's milli per GPU, so a 4-GPU clone may overshoot by up to 3 GPUs
        assertTrue(requested <= 1.3 * 56_000 + 3000, "clones stop once the next would exceed the load: " + requested);
        assertTrue(
                requested > 1.3 * 56_000 - 1000,
                "the first clone that would exceed it (by its milli per GPU) stops them");
        int[] head = Arrays.copyOf(seq, TRACE.size());
        Arrays.sort(head);
        for (int i = 0; i < TRACE.size(); i++) assertEquals(i, head[i], "the whole trace comes first, each task once");
        assertNotEquals(List.of(seq[0], seq[1], seq[2]), List.of(0, 1, 2));
        int[] tunedDown = TaskSequence.sample(TRACE, 10_000, 1.0, 9);
        long down = 0;
        for (int index : tunedDown) down += TRACE.get(index).gpuMilliTotal();
        assertTrue(tunedDown.length < TRACE.size() && down <= 10_000, "a trace above the load loses random tasks");
        assertThrows(IllegalArgumentException.class, () -> TaskSequence.sample(List.of(task(1, 1, 0, 0)), 1000, 1, 1));
    }

    @Test
    void curvesCoverTheGridWithConsistentMetrics() {
        InflationExperiment.Result r = run(1, List.of(5L));
        for (InflationRun.Result run : r.runs()) {
            assertTrue(
                    run.curve().size() >= 25 && run.curve().size() <= 26,
                    "0.05 .. 1.25 or 1.30 by 0.05 (clones stop just short of 1.30)");
            CurvePoint first = run.curve().get(0),
                    last = run.curve().get(run.curve().size() - 1);
            assertEquals(1.0, first.grar(), 1e-12, "nothing fails at 5% requested");
            assertTrue(last.grar() < 1 && last.failedTasks() > 0, "130% requested cannot all be placed");
            assertTrue(last.allocatedGpuFraction() <= 1.0 + 1e-12);
            // the grid point is reached by the task that crosses it: actual requests exceed it by at most one task (4
            // of 56 GPUs)
            assertEquals(
                    last.requestedGpuFraction() * last.grar(),
                    last.allocatedGpuFraction(),
                    4 / 56.0 * last.grar() + 1e-9);
            for (int i = 1; i < run.curve().size(); i++)
                assertTrue(
                        run.curve().get(i).eopcWatts() >= run.curve().get(i - 1).eopcWatts(),
                        "tasks never leave: power never drops");
        }
        CurveSummary s = new CurveSummary(r);
        assertEquals(0.0, s.saving(POLICIES.get(0), 0.5), 1e-12);
        assertEquals(POLICIES.size(), s.rows().size());
    }

    @Test
    void writesCurveCsvAndASelfContainedReport(@TempDir Path dir) throws Exception {
        InflationExperiment.Result r = run(1, List.of(5L, 6L));
        ExperimentOutput.writeCurve(r, dir.resolve("curve.csv"));
        List<String> lines = Files.readAllLines(dir.resolve("curve.csv"));
        assertEquals(String.join(",", ExperimentOutput.CURVE_COLUMNS), lines.get(0));
        assertEquals(1 + r.curve().size(), lines.size());
        assertTrue(r.curve().size() >= POLICIES.size() * 2 * 25);
        assertTrue(lines.get(1).startsWith("fgd,,5,0.0500,"), lines.get(1));
        assertTrue(lines.stream().anyMatch(l -> l.startsWith("pwr-fgd,0.1,6,")));
        CurveSummary s = new CurveSummary(r);
        ReportHtml.write(r, s, "t", "gpusched inflate ...", dir.resolve("report.html"));
        String html = Files.readString(dir.resolve("report.html"));
        assertTrue(html.contains("<svg") && html.contains("Power saving") && html.contains("pwr-fgd a=0.1"));
        assertTrue(!html.contains("<script"), "no scripts: charts are inline SVG");
        String table = ExperimentOutput.summaryTable(s);
        assertEquals(1 + POLICIES.size(), table.lines().count());
    }

    @Test
    void seedListsParseRangesAndRejectNonsense() {
        assertEquals(List.of(42L, 43L, 44L), SeedList.parse("42-44"));
        assertEquals(List.of(1L, 10L, 11L), SeedList.parse("1, 10-11"));
        assertThrows(IllegalArgumentException.class, () -> SeedList.parse("5-3"));
        assertThrows(IllegalArgumentException.class, () -> SeedList.parse("a"));
        assertThrows(IllegalArgumentException.class, () -> SeedList.parse("1,1"));
    }
}
