package org.gpusched.reports;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The hand-made run of the auditor's test (costs worked out there: execution 2.247222, tardiness 0.277778). */
class ReportsTest {
    @TempDir
    Path tmp;

    static final String RUN = """
            {"policy": "%s", "seed": %d,
             "nodes": [{"id": "n1", "type": "A", "gpus": 2}, {"id": "n2", "type": null, "gpus": null, "types": ["A", "B"]}],
             "nodeTypes": {"A": {"gpus": 2, "costPerHour": [0, 1.0, 1.5]}, "B": {"gpus": 1, "costPerHour": [0, 0.8]}}}
            """;
    static final String JOBS = """
            {"id": "j1", "submit": 0, "due": 3600, "weight": 2, "times": {"A": {"1": 7200, "2": 3600}}}
            {"id": "j2", "submit": 0, "due": 1800, "weight": 4, "times": {"A": {"1": 3600}, "B": {"1": 1800}}}
            {"id": "j3", "submit": 100, "due": 100000, "weight": 1, "times": {"A": {"1": 1000}}}
            """;
    static final String DECISIONS = """
            {"time": 0, "job": "j1", "action": "START", "node": "n1", "type": "A", "gpus": 2}
            {"time": 0, "job": "j2", "action": "START", "node": "n2", "type": "B", "gpus": 1}
            {"time": 1800, "job": "j2", "action": "COMPLETE", "node": "n2", "type": "B", "gpus": 1}
            {"time": 1800, "job": "j3", "action": "START", "node": "n1", "type": "A", "gpus": 1}
            {"time": 1800, "job": "j1", "action": "PREEMPT", "node": "n1", "type": "A", "gpus": 2}
            {"time": 1800, "job": "j1", "action": "START", "node": "n2", "type": "A", "gpus": 1}
            {"time": 2800, "job": "j3", "action": "COMPLETE", "node": "n1", "type": "A", "gpus": 1}
            {"time": 2800, "job": "j1", "action": "MIGRATE", "node": "n1", "type": "A", "gpus": 2}
            {"time": 4100, "job": "j1", "action": "COMPLETE", "node": "n1", "type": "A", "gpus": 2}
            """;

    Path run(String name, String policy, long seed, double total, String jobs) throws IOException {
        Path d = tmp.resolve(name);
        Files.createDirectories(d);
        Files.writeString(d.resolve("run.json"), RUN.formatted(policy, seed));
        Files.writeString(d.resolve("jobs.jsonl"), jobs);
        Files.writeString(d.resolve("decisions.jsonl"), DECISIONS);
        Files.writeString(d.resolve("metrics.json"), """
                {"totalCost": %s, "executionCost": 2.2472222, "tardinessCost": 0.2777778, "tardyJobs": 1, "completedJobs": 3,
                 "meanJctSeconds": 2866.67, "makespanSeconds": 4100, "optimizerMedianMs": 0.5, "optimizerP99Ms": 2,
                 "optimizerCalls": 7, "callsUnderPressure": 5}
                """.formatted(total));
        return d;
    }

    @Test
    void cumulativeCostEndsAtTheRunsRealCostAndSegmentsFollowTheDecisions() throws IOException {
        RunResult r = RunResult.read(run("a", "andreas-rg", 1, 2.525, JOBS));
        assertEquals("andreas-rg", r.policy);
        assertEquals(2.525, r.costValues[r.costValues.length - 1], 1e-9);
        assertEquals(4100, r.costTimes[r.costTimes.length - 1]);
        // At t = 1800: n1 at 1.5/h and n2 at 0.8/h for half an hour; j2 finished exactly on time.
        int i1800 = java.util.Arrays.binarySearch(r.costTimes, 1800);
        assertEquals(0.75 + 0.4, r.costValues[i1800], 1e-9);
        assertEquals(5, r.segments.size());
        RunResult.Segment j1first = r.segments.stream()
                .filter(s -> s.job().equals("j1"))
                .findFirst()
                .orElseThrow();
        assertEquals(new RunResult.Segment("j1", "n1", "A", 2, 0, 1800), j1first);
        assertTrue(r.segments.contains(new RunResult.Segment("j1", "n2", "A", 1, 1800, 2800)));
        assertTrue(r.segments.contains(new RunResult.Segment("j1", "n1", "A", 2, 2800, 4100)));
    }

    @Test
    void comparisonAgainstTheBestBaselineOfTheSameSeed() throws IOException {
        List<Path> dirs = List.of(
                run("rg1", "andreas-rg", 1, 2.0, JOBS),
                run("fifo1", "fifo", 1, 5.0, JOBS),
                run("edf1", "edf", 1, 4.0, JOBS),
                run("rg2", "andreas-rg", 2, 3.0, JOBS),
                run("edf2", "edf", 2, 6.0, JOBS));
        Path out = tmp.resolve("out");
        List<Comparison.Row> rows = Reports.write(dirs, out, "t", "cmd");
        assertEquals(50.0, rows.get(0).reductionPercent(), 1e-9); // vs edf seed 1 (4.0), not fifo
        assertEquals(-25.0, rows.get(1).reductionPercent(), 1e-9);
        assertEquals(50.0, rows.get(3).reductionPercent(), 1e-9); // vs edf seed 2 (6.0)
        var means = Comparison.meansByPolicy(rows);
        assertEquals(2.5, means.get("andreas-rg")[0], 1e-9);
        assertEquals(50.0, means.get("andreas-rg")[3], 1e-9);
        List<String> csv = Files.readAllLines(out.resolve("comparison.csv"));
        assertEquals(6, csv.size());
        assertTrue(csv.get(0).startsWith("policy,seed,totalCost,executionCost,tardinessCost"));
        assertTrue(csv.get(1).startsWith("andreas-rg,1,2,2.247222,0.277778,1,3,"), csv.get(1));
        assertTrue(csv.get(1).contains(",50,"), csv.get(1));
        assertTrue(csv.get(0).endsWith(",optimizerCalls,callsUnderPressure"), csv.get(0));
        assertTrue(csv.get(1).endsWith(",7,5"), "the calls and the pressed ones, from metrics.json: " + csv.get(1));
        String html = Files.readString(out.resolve("report.html"));
        assertTrue(html.contains("<svg"));
        assertEquals(
                2 + 5 + 4 + 5,
                html.split("<svg", -1).length - 1,
                "cost bars, cumulative cost, GPUs busy per run, waiting, completion time, tardiness, moves, one Gantt per run");
        assertTrue(html.contains("<td>andreas-rg</td><td>1</td><td>2.0000</td>"));
        assertTrue(html.contains(">j1<") || html.contains(">j1</text>"), "Gantt bars are labelled with job ids");
        assertTrue(html.contains("+50.0%"));
        assertFalse(html.contains("<script"), "self-contained, no script");
    }

    @Test
    void runsThatLeftJobsUnfinishedAreFlagged() throws IOException {
        Path done = run("done", "fifo", 1, 2.525, JOBS);
        Path partial = run("partial", "greedy", 1, 0.4, JOBS);
        Files.writeString(
                partial.resolve("metrics.json"),
                Files.readString(partial.resolve("metrics.json"))
                        .replace("\"completedJobs\": 3", "\"completedJobs\": 2"));
        List<Comparison.Row> rows = Reports.write(List.of(done, partial), tmp.resolve("o"), "t", null);
        assertTrue(rows.get(0).run().complete());
        assertFalse(rows.get(1).run().complete());
        String table = Comparison.table(rows);
        assertTrue(table.contains("2/3!") && table.contains("not comparable"), table);
        String html = Files.readString(tmp.resolve("o/report.html"));
        assertEquals(1, html.split("class=\"incomplete\"", -1).length - 1);
        assertTrue(html.contains("not comparable"));
        assertTrue(Files.readAllLines(tmp.resolve("o/comparison.csv"))
                .get(2)
                .startsWith("greedy,1,0.400000,2.247222,0.277778,1,2,3,"));
    }

    @Test
    void largeRunsGetNoGantt() throws IOException {
        StringBuilder jobs = new StringBuilder(JOBS);
        for (int i = 4; i <= RunResult.GANTT_MAX_JOBS + 1; i++) {
            jobs.append("{\"id\": \"j")
                    .append(i)
                    .append("\", \"submit\": 0, \"due\": 1, \"weight\": 1, \"times\": {\"A\": {\"1\": 5}}}\n");
        }
        Path d = run("big", "fifo", 1, 2.525, jobs.toString());
        assertTrue(RunResult.read(d).segments.isEmpty());
        assertEquals(1, Reports.write(List.of(d), tmp.resolve("o"), "t", null).size());
        String html = Files.readString(tmp.resolve("o/report.html"));
        assertEquals(2 + 1 + 4, html.split("<svg", -1).length - 1, "no Gantt; the aggregate charts instead");
        assertTrue(html.contains("too large to read"));
    }

    @Test
    void runsSharingAPolicyKeepASeriesAndARowEachInEverySection() throws IOException {
        Path a = run("a", "fifo", 1, 2.525, JOBS), b = run("b", "fifo", 1, 2.525, JOBS);
        Path out = tmp.resolve("out");
        List<Comparison.Row> rows = Reports.write(List.of(a, b, a), out, "t", null);
        assertEquals(
                List.of("fifo dir=" + tail(a), "fifo dir=" + tail(b), "fifo dir=" + tail(a) + " #2"),
                rows.stream().map(r -> r.run().name()).toList());
        String html = Files.readString(out.resolve("report.html"));
        for (Comparison.Row row : rows) {
            String name = ReportHtml.esc(row.run().name());
            assertTrue(html.contains("<h3>" + name + "</h3>"), "GPUs busy, one chart per run: " + name);
            assertTrue(html.contains("<tr><td>" + name + "</td>"), "a row of the moves table: " + name);
            assertTrue(html.contains(">" + name + "</text>"), "a series in the shared charts' legends: " + name);
        }
        assertEquals(4, Files.readAllLines(out.resolve("comparison.csv")).size());
    }

    private static String tail(Path run) {
        return run.getParent().getFileName() + "/" + run.getFileName();
    }

    @Test
    void theOutputDirectoryGetsBothFilesOrNeither() throws IOException {
        Path out = tmp.resolve("out");
        Files.createDirectories(out.resolve("report.html")); // cannot be replaced by the new page
        Files.writeString(out.resolve("comparison.csv"), "old");
        Path a = run("a", "fifo", 1, 2.525, JOBS);
        var e = assertThrows(java.io.UncheckedIOException.class, () -> Reports.write(List.of(a), out, "t", null));
        assertTrue(e.getMessage().contains("report.html: is a directory"), e.getMessage());
        assertEquals("old", Files.readString(out.resolve("comparison.csv")), "the old CSV is not replaced alone");
        try (var left = Files.list(out)) {
            assertEquals(2, left.count(), "no temporary file left");
        }
        Files.delete(out.resolve("report.html"));
        Reports.write(List.of(a), out, "t", null);
        assertTrue(Files.readString(out.resolve("comparison.csv")).startsWith("policy,"));
        assertTrue(Files.readString(out.resolve("report.html")).startsWith("<!DOCTYPE html>"));
    }

    @Test
    void chartsAPersonReadsAtAGlance() throws IOException {
        Path a = run("a", "fifo", 1, 2.525, JOBS), b = run("b", "edf", 1, 2.525, JOBS);
        RunResult ra = RunResult.read(a), rb = RunResult.read(b);

        // data that never varies gets a readable axis from zero, not -5E-9 .. 5E-9
        var none = ReportHtml.histogramChart(java.util.Map.of("fifo", new double[0]), "hours late");
        assertEquals(0, none.getXYPlot().getRangeAxis().getLowerBound());
        assertTrue(none.getXYPlot().getRangeAxis().getUpperBound() >= 1);

        // histograms are bars over the same bins for every run, side by side
        java.util.Map<String, double[]> completions = new java.util.LinkedHashMap<>();
        completions.put("fifo", new double[] {1, 2, 8});
        completions.put("edf", new double[] {3});
        var jct = ReportHtml.histogramChart(completions, "job completion time (hours)");
        assertTrue(jct.getXYPlot().getRenderer() instanceof org.jfree.chart.renderer.xy.ClusteredXYBarRenderer);
        var bins = (org.jfree.data.xy.XYSeriesCollection) jct.getXYPlot().getDataset();
        assertEquals(bins.getSeries(0).getX(39), bins.getSeries(1).getX(39));
        assertEquals(1.0, bins.getSeries(0).getY(39).doubleValue(), "8 h in the last of 40 bins over [0, 8]");

        // runs whose lines coincide are named under the chart
        Path out = tmp.resolve("out");
        Reports.write(List.of(a, b), out, "t", null);
        String html = Files.readString(out.resolve("report.html"));
        assertTrue(
                html.contains("The same line, drawn once over the other (equal values throughout): fifo and edf"),
                html);

        // every run's Gantt chart on the same time axis, a job in the same colour in each
        java.util.Map<String, Integer> colours = java.util.Map.of("j1", 3, "j2", 5, "j3", 7);
        var ga = ReportHtml.ganttChart(ra, 2.0, colours).getXYPlot();
        var gb = ReportHtml.ganttChart(rb, 2.0, colours).getXYPlot();
        assertEquals(ga.getRangeAxis().getRange(), gb.getRangeAxis().getRange());
        assertEquals(2.04, ga.getRangeAxis().getUpperBound(), 1e-9);
        int j1a = ((org.jfree.data.xy.XYIntervalSeriesCollection) ga.getDataset()).indexOf("j1");
        assertEquals(ReportHtml.PALETTE[3], ga.getRenderer().getSeriesPaint(j1a));
        int j1b = ((org.jfree.data.xy.XYIntervalSeriesCollection) gb.getDataset()).indexOf("j1");
        assertEquals(ga.getRenderer().getSeriesPaint(j1a), gb.getRenderer().getSeriesPaint(j1b));

        // "mean over seeds" only where there are seeds to average
        var oneSeed = Comparison.meansByPolicy(Comparison.rows(List.of(ra)));
        assertEquals(
                "policy",
                ReportHtml.costChart(oneSeed, "EUR")
                        .getCategoryPlot()
                        .getDomainAxis()
                        .getLabel());
        var twoSeeds = Comparison.meansByPolicy(Comparison.rows(
                List.of(RunResult.read(run("c", "fifo", 1, 1, JOBS)), RunResult.read(run("d", "fifo", 2, 1, JOBS)))));
        assertEquals(
                "policy (mean over seeds)",
                ReportHtml.costChart(twoSeeds, "EUR")
                        .getCategoryPlot()
                        .getDomainAxis()
                        .getLabel());

        // the currency the cluster file names, else "cost units"
        assertTrue(html.contains("Costs are in cost units"), "no currency named");
        Files.writeString(
                a.resolve("run.json"),
                Files.readString(a.resolve("run.json")).replace("{\"policy\"", "{\"currency\": \"EUR\", \"policy\""));
        Reports.write(List.of(a), tmp.resolve("eur"), "t", null);
        assertTrue(Files.readString(tmp.resolve("eur/report.html"))
                .contains("Costs are in EUR, the currency the cluster file names"));
    }

    @Test
    void badRunDirectoryIsNamed() throws IOException {
        Path d = run("bad", "fifo", 1, 1, JOBS);
        Files.writeString(d.resolve("decisions.jsonl"), DECISIONS + "{oops\n");
        ReportInputException e = assertThrows(ReportInputException.class, () -> RunResult.read(d));
        assertTrue(e.getMessage().contains("decisions.jsonl:10"), e.getMessage());
        Files.delete(d.resolve("metrics.json"));
        e = assertThrows(ReportInputException.class, () -> RunResult.read(d));
        assertTrue(e.getMessage().contains("metrics.json: missing"), e.getMessage());
        assertThrows(ReportInputException.class, () -> Reports.write(new ArrayList<>(), tmp.resolve("x"), "t", null));
    }
}
