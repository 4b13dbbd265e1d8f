package org.gpusched.reports;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The aggregates behind the large-run charts, on the hand-made run of {@link ReportsTest}, and a page that stays small. */
class RunTimelineTest {
    @TempDir
    Path tmp;

    private Path handMade() throws IOException {
        ReportsTest fixture = new ReportsTest();
        fixture.tmp = tmp;
        return fixture.run("a", "andreas-rg", 1, 2.525, ReportsTest.JOBS);
    }

    private static double integral(double[] bins, double binSeconds) {
        return Arrays.stream(bins).sum() * binSeconds;
    }

    @Test
    void busyGpusWaitingCompletionTimesAndMovesFollowTheDecisions() throws IOException {
        RunTimeline t = RunTimeline.read(handMade());
        assertEquals(0, t.start);
        assertEquals(4100.0 / RunTimeline.BINS, t.binSeconds, 1e-9);
        assertEquals(List.of("A", "B"), List.copyOf(t.busyGpus.keySet()));
        // A: j1 on 2 GPUs, then j1 and j3 on 1 each, then j1 on 2 again: 2 busy GPUs all along
        for (double busy : t.busyGpus.get("A")) assertEquals(2.0, busy, 1e-9);
        assertEquals(1800, integral(t.busyGpus.get("B"), t.binSeconds), 1e-6);
        assertEquals(1.0, t.busyGpus.get("B")[0], 1e-9);
        assertEquals(0.0, t.busyGpus.get("B")[RunTimeline.BINS - 1], 1e-9);
        // j3 waits from its submission (100 s) to its start (1800 s); j1's preemption and restart are at one instant
        assertEquals(1700, integral(t.waiting, t.binSeconds), 1e-6);
        assertEquals(0.0, t.waiting[0], 1e-9);
        double[] jct = t.jctHours.clone();
        Arrays.sort(jct);
        assertArrayEquals(new double[] {0.5, 0.75, 4100 / 3600.0}, jct, 1e-9);
        assertArrayEquals(
                new double[] {500 / 3600.0}, t.lateHours, 1e-9); // j2 completes exactly at its due date: on time
        assertEquals(2, t.jobsByMoves.get("MIGRATE")[0]);
        assertEquals(1, t.jobsByMoves.get("MIGRATE")[1]);
        assertEquals(1, t.jobsByMoves.get("PREEMPT")[1]);
        assertEquals(3, t.jobsByMoves.get("RESIZE")[0]);
    }

    /** A run of {@code jobs} one-GPU jobs, one every 10 s, each running 1000 s after a wait of 0-49 s. */
    private Path synthetic(String name, int jobs) throws IOException {
        Path d = Files.createDirectories(tmp.resolve(name));
        Files.writeString(d.resolve("run.json"), ReportsTest.RUN.formatted("fifo", 1));
        StringBuilder j = new StringBuilder(), dec = new StringBuilder();
        for (int i = 0; i < jobs; i++) {
            j.append(String.format(
                    "{\"id\": \"j%d\", \"submit\": %d, \"due\": %d, \"weight\": 1, \"times\": {\"A\": {\"1\": 1000}}}%n",
                    i, i * 10, i * 10 + 1020));
        }
        record D(double time, String text) {}
        List<D> ds = new java.util.ArrayList<>();
        for (int i = 0; i < jobs; i++) {
            double start = i * 10 + i % 50;
            ds.add(new D(
                    start,
                    String.format(
                            "{\"time\": %.1f, \"job\": \"j%d\", \"action\": \"START\", \"node\": \"n1\", \"type\": \"A\", \"gpus\": 1}",
                            start, i)));
            ds.add(new D(
                    start + 1000,
                    String.format(
                            "{\"time\": %.1f, \"job\": \"j%d\", \"action\": \"COMPLETE\", \"node\": \"n1\", \"type\": \"A\", \"gpus\": 1}",
                            start + 1000, i)));
        }
        ds.sort(java.util.Comparator.comparingDouble(D::time));
        for (D x : ds) dec.append(x.text()).append('\n');
        Files.writeString(d.resolve("jobs.jsonl"), j);
        Files.writeString(d.resolve("decisions.jsonl"), dec);
        Files.writeString(
                d.resolve("metrics.json"),
                "{\"totalCost\": 1, \"executionCost\": 1, \"tardinessCost\": 0, \"completedJobs\": " + jobs + "}");
        return d;
    }

    @Test
    void aLargeRunsPageHasTheAggregateChartsAndStaysAboutAsSmallAsASmallRunsPage() throws IOException {
        Path small = synthetic("small", 100), large = synthetic("large", 20_000);
        Reports.write(List.of(small), tmp.resolve("rs"), "small", null);
        Reports.write(List.of(large), tmp.resolve("rl"), "large", null);
        String html = Files.readString(tmp.resolve("rl/report.html"));
        for (String section : List.of(
                "GPUs busy over time, per node type",
                "Jobs waiting over time",
                "Job completion time",
                "Tardiness",
                "Moves per job",
                "No Gantt chart")) {
            assertTrue(html.contains(section), section);
        }
        assertTrue(html.contains("saving vs best queue policy") && !html.contains("vs best FP"));
        // axis labels are drawn as glyph outlines in the SVG: ask the charts
        RunResult run = RunResult.read(large);
        assertEquals(
                "cost (cost units)",
                ReportHtml.costChart(
                                java.util.Map.of("fifo", new double[] {1, 1, 0, 0, 1}),
                                ReportHtml.costUnit(List.of(run)))
                        .getCategoryPlot()
                        .getRangeAxis()
                        .getLabel());
        assertTrue(ReportHtml.cumulativeChart(List.of(run), "EUR")
                .getXYPlot()
                .getRangeAxis()
                .getLabel()
                .contains("cost (EUR)"));
        assertTrue(ReportHtml.cumulativeChart(List.of(run), ReportHtml.COST_UNITS)
                        .getXYPlot()
                        .getDataset()
                        .getItemCount(0)
                <= ReportHtml.MAX_LINE_POINTS + 1);
        long smallBytes = Files.size(tmp.resolve("rs/report.html")),
                largeBytes = Files.size(tmp.resolve("rl/report.html"));
        assertTrue(
                largeBytes < 2 * smallBytes && largeBytes < 400_000,
                "200x the jobs: " + smallBytes + " -> " + largeBytes + " bytes");
        // every line chart is one path per series, not an SVG element per point
        long lineElements = html.split("<line", -1).length - 1;
        assertTrue(lineElements < 600, lineElements + " <line> elements");
        RunTimeline t = RunTimeline.read(large);
        assertEquals(20_000, t.jctHours.length);
        assertEquals(20_000 * 29 / 50, t.lateHours.length); // late when the wait (i mod 50 s) exceeds the 20 s of slack
        assertTrue(html.contains("fifo: 11600 of 20000 completed jobs late"), "tardy count");
    }
}
