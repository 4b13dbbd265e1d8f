package org.gpusched.reports;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Paint;
import java.awt.Rectangle;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.jfree.chart.ChartFactory;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.axis.SymbolAxis;
import org.jfree.chart.labels.ItemLabelAnchor;
import org.jfree.chart.labels.ItemLabelPosition;
import org.jfree.chart.plot.CategoryPlot;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.category.BarRenderer;
import org.jfree.chart.renderer.category.StackedBarRenderer;
import org.jfree.chart.renderer.category.StandardBarPainter;
import org.jfree.chart.renderer.xy.ClusteredXYBarRenderer;
import org.jfree.chart.renderer.xy.StandardXYBarPainter;
import org.jfree.chart.renderer.xy.XYBarRenderer;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.chart.ui.TextAnchor;
import org.jfree.data.category.DefaultCategoryDataset;
import org.jfree.data.xy.XYIntervalSeries;
import org.jfree.data.xy.XYIntervalSeriesCollection;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;
import org.jfree.svg.SVGGraphics2D;

/**
 * report.html: one self-contained page (charts inlined as SVG, no script) with the comparison table, cost per policy
 * (execution and tardiness, mean over seeds), cumulative real cost over time per run, and, drawn from each run's
 * {@link RunTimeline} aggregates so that the page stays small for any number of jobs: GPUs busy per node type and jobs
 * waiting over time, the distributions of job completion time and of hours late, and moves per job. Runs small enough
 * to read also get a Gantt chart of jobs on nodes (as in the ANDREAS paper's Figure 4: one lane per GPU).
 */
public final class ReportHtml {
    static final int WIDTH = 960;
    /** Points per line of the cumulative-cost chart: more are not visible at this width and only make the page heavy. */
    static final int MAX_LINE_POINTS = 400;
    /** Runs that get a chart of their own (GPUs busy per node type); the rest are in the shared charts only. */
    static final int MAX_RUN_CHARTS = 12;

    /** What costs are counted in when the cluster files name no currency (or not the same one). */
    static final String COST_UNITS = "cost units";

    static final String SAVING = "saving vs best queue policy";
    static final Paint[] PALETTE = {
        new Color(0x4e79a7),
        new Color(0xf28e2b),
        new Color(0xe15759),
        new Color(0x76b7b2),
        new Color(0x59a14f),
        new Color(0xedc948),
        new Color(0xb07aa1),
        new Color(0xff9da7),
        new Color(0x9c755f),
        new Color(0xbab0ac)
    };

    private ReportHtml() {}

    static String html(List<Comparison.Row> rows, String title, String command) {
        StringBuilder sb = new StringBuilder();
        sb.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>")
                .append(esc(title))
                .append("</title>\n<style>")
                .append(
                        "body{font-family:sans-serif;margin:24px;color:#222;max-width:1000px}table{border-collapse:collapse;font-size:13px}")
                .append(
                        "td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}th{background:#f3f3f3}td:first-child{text-align:left}")
                .append(
                        "code{background:#f5f5f5;padding:2px 4px}h2{margin-top:32px}.note{color:#555;font-size:13px}tr.incomplete td{background:#fde2e1}.warn{color:#b00020}</style></head><body>\n");
        sb.append("<h1>").append(esc(title)).append("</h1>\n");
        if (command != null)
            sb.append("<p class=\"note\">Reproduce with <code>")
                    .append(esc(command))
                    .append("</code></p>\n");
        List<RunResult> runs = rows.stream().map(Comparison.Row::run).toList();
        String unit = costUnit(runs);
        sb.append(
                        "<p class=\"note\">Real cost: each node costs costPerHour[type][busy GPUs] while at least one job runs on it; each job ")
                .append("completing after its due date costs weight &times; hours late. Costs are in ")
                .append(
                        unit.equals(COST_UNITS)
                                ? "cost units: the unit of the cluster file's prices (costPerHour, pricePerHour or pricePerKwh), which names no currency (a cluster file may, with <code>currency: EUR</code>)"
                                : esc(unit) + ", the currency the cluster file names for its prices")
                .append(". \"")
                .append(SAVING)
                .append("\": how much lower this run's total cost ")
                .append(
                        "is than that of the cheapest of the queue policies fifo, edf and priority run with the same seed; ")
                .append("+20% means 20% cheaper, a negative value means dearer.");
        sb.append("</p>\n");
        if (rows.stream().anyMatch(row -> !Double.isNaN(row.lowerBound())))
            sb.append("<p class=\"note\">")
                    .append(esc(Comparison.LOWER_BOUND_NOTE))
                    .append(".</p>\n");
        sb.append(
                        "<h2>Comparison</h2>\n<table><tr><th>policy</th><th>seed</th><th>total cost</th><th>lower bound</th><th>over bound</th><th>execution</th><th>tardiness</th>")
                .append(
                        "<th>tardy jobs</th><th>completed / jobs</th><th>mean JCT (s)</th><th>makespan (s)</th><th>optimizer p50 / p99 (ms)</th><th>")
                .append(SAVING)
                .append("</th></tr>\n");
        for (Comparison.Row row : rows) {
            RunResult r = row.run();
            sb.append(String.format(
                    Locale.ROOT,
                    "<tr%s><td>%s</td><td>%d</td><td>%.4f</td><td>%s</td><td>%s</td><td>%.4f</td><td>%.4f</td><td>%.0f</td>"
                            + "<td>%.0f / %d</td><td>%.1f</td><td>%.1f</td><td>%s / %s</td><td>%s</td></tr>%n",
                    r.complete() ? "" : " class=\"incomplete\"",
                    esc(r.name()),
                    r.seed,
                    r.metric("totalCost"),
                    Double.isNaN(row.lowerBound()) ? "-" : String.format(Locale.ROOT, "%.4f", row.lowerBound()),
                    Double.isNaN(row.overBoundPercent())
                            ? "-"
                            : String.format(Locale.ROOT, "%+.1f%%", row.overBoundPercent()),
                    r.metric("executionCost"),
                    r.metric("tardinessCost"),
                    r.metric("tardyJobs"),
                    r.metric("completedJobs"),
                    r.jobCount,
                    r.metric("meanJctSeconds"),
                    r.metric("makespanSeconds"),
                    ms(r.metric("optimizerMedianMs")),
                    ms(r.metric("optimizerP99Ms")),
                    Double.isNaN(row.reductionPercent())
                            ? "-"
                            : String.format(Locale.ROOT, "%+.1f%%", row.reductionPercent())));
        }
        sb.append("</table>\n");
        if (rows.stream().anyMatch(row -> !row.run().complete())) {
            sb.append(
                    "<p class=\"warn\">Highlighted runs left jobs unfinished: their cost leaves that work out and is not comparable.</p>\n");
        }
        sb.append("<h2>Cost per policy</h2>\n")
                .append(svg(costChart(Comparison.meansByPolicy(rows), unit), WIDTH, 420));
        JFreeChart cumulative = cumulativeChart(runs, unit);
        sb.append("<h2>Cumulative cost over time</h2>\n")
                .append(svg(cumulative, WIDTH, 420))
                .append(sameLines((XYSeriesCollection) cumulative.getXYPlot().getDataset()));
        timelines(sb, runs);
        boolean anyGantt = false;
        // one time axis and one colour per job across the runs' charts, so that they compare at a glance
        double hours = runs.stream()
                .flatMap(r -> r.segments.stream())
                .mapToDouble(seg -> seg.end() / 3600.0)
                .max()
                .orElse(1);
        Map<String, Integer> colours = new HashMap<>();
        for (RunResult r : runs)
            for (RunResult.Segment seg : r.segments) colours.putIfAbsent(seg.job(), colours.size());
        for (RunResult r : runs) {
            if (r.segments.isEmpty()) continue;
            if (!anyGantt) {
                sb.append(
                                "<h2>Jobs on nodes</h2>\n<p class=\"note\">One lane per GPU; a bar is a job holding that GPU (label: job id). ")
                        .append("A job that changes node, GPUs or waits (preempted) starts a new bar. ")
                        .append(
                                "Every run's chart has the same time axis, and a job has the same colour in each.</p>\n");
                anyGantt = true;
            }
            JFreeChart gantt = ganttChart(r, hours, colours);
            int lanes = ((SymbolAxis) gantt.getXYPlot().getDomainAxis()).getSymbols().length;
            sb.append("<h3>").append(esc(r.label())).append("</h3>\n").append(svg(gantt, WIDTH, 110 + 26 * lanes));
        }
        if (!anyGantt) {
            sb.append("<p class=\"note\">No Gantt chart: runs with more than ")
                    .append(RunResult.GANTT_MAX_JOBS)
                    .append(" jobs are too large to read.</p>\n");
        }
        sb.append("</body></html>\n");
        return sb.toString();
    }

    /** The currency the runs' cluster files name, when they all name the same one; else {@link #COST_UNITS}. */
    static String costUnit(List<RunResult> runs) {
        List<String> named = runs.stream().map(r -> r.currency).distinct().toList();
        return named.size() == 1 && named.get(0) != null ? named.get(0) : COST_UNITS;
    }

    static String costAxis(String unit) {
        return "cost (" + unit + ")";
    }

    static JFreeChart costChart(Map<String, double[]> means, String unit) {
        DefaultCategoryDataset data = new DefaultCategoryDataset();
        means.forEach((policy, m) -> {
            data.addValue(m[1], "execution", policy);
            data.addValue(m[2], "tardiness", policy);
        });
        boolean averaged = means.values().stream().anyMatch(m -> m[4] > 1);
        JFreeChart chart = ChartFactory.createStackedBarChart(
                null,
                averaged ? "policy (mean over seeds)" : "policy",
                costAxis(unit),
                data,
                PlotOrientation.VERTICAL,
                true,
                false,
                false);
        CategoryPlot plot = chart.getCategoryPlot();
        StackedBarRenderer r = (StackedBarRenderer) plot.getRenderer();
        r.setBarPainter(new StandardBarPainter());
        r.setShadowVisible(false);
        r.setSeriesPaint(0, PALETTE[0]);
        r.setSeriesPaint(1, PALETTE[2]);
        r.setMaximumBarWidth(0.12);
        style(chart);
        plot.setBackgroundPaint(Color.WHITE);
        plot.setRangeGridlinePaint(new Color(0xdddddd));
        return chart;
    }

    static JFreeChart cumulativeChart(List<RunResult> runs, String unit) {
        XYSeriesCollection data = new XYSeriesCollection();
        boolean manySeeds = runs.stream().map(r -> r.seed).distinct().count() > 1;
        for (RunResult r : runs) {
            XYSeries s = new XYSeries(manySeeds ? r.label() : r.name(), false, true);
            int step = Math.max(1, (r.costTimes.length + MAX_LINE_POINTS - 1) / MAX_LINE_POINTS);
            for (int i = 0; i < r.costTimes.length; i += step) s.add(r.costTimes[i] / 3600.0, r.costValues[i]);
            int last = r.costTimes.length - 1;
            if (last >= 0 && last % step != 0) s.add(r.costTimes[last] / 3600.0, r.costValues[last]);
            data.addSeries(s);
        }
        return lineChart(data, "time (hours)", "cumulative " + costAxis(unit));
    }

    /** Lines, each series drawn as one SVG path (not a line element per segment). */
    static JFreeChart lineChart(XYSeriesCollection data, String x, String y) {
        JFreeChart chart =
                ChartFactory.createXYLineChart(null, x, y, data, PlotOrientation.VERTICAL, true, false, false);
        XYLineAndShapeRenderer r = new XYLineAndShapeRenderer(true, false);
        r.setDrawSeriesLineAsPath(true);
        for (int i = 0; i < data.getSeriesCount(); i++) {
            r.setSeriesPaint(i, PALETTE[i % PALETTE.length]);
            r.setSeriesStroke(i, new BasicStroke(2f));
        }
        chart.getXYPlot().setRenderer(r);
        style(chart);
        return chart;
    }

    /** The sections drawn from each run's aggregates (see {@link RunTimeline}). */
    static void timelines(StringBuilder sb, List<RunResult> runs) {
        Map<String, RunTimeline> timelines = new LinkedHashMap<>();
        for (RunResult r : runs) timelines.put(runName(r, runs), RunTimeline.read(r.dir));
        sb.append("<h2>GPUs busy over time, per node type</h2>\n<p class=\"note\">Mean busy GPUs in each of ")
                .append(RunTimeline.BINS)
                .append(" equal time slices of the run, by the node type the jobs ran as.</p>\n");
        // one colour per node type across every run's chart
        List<String> types = timelines.values().stream()
                .flatMap(t -> t.busyGpus.keySet().stream())
                .distinct()
                .sorted()
                .toList();
        int n = 0;
        for (var e : timelines.entrySet()) {
            if (n++ == MAX_RUN_CHARTS) {
                sb.append("<p class=\"note\">(")
                        .append(timelines.size() - MAX_RUN_CHARTS)
                        .append(" more runs not drawn.)</p>\n");
                break;
            }
            XYSeriesCollection data = new XYSeriesCollection();
            RunTimeline t = e.getValue();
            t.busyGpus.forEach((type, bins) -> data.addSeries(binned(type, t, bins)));
            if (timelines.size() > 1) sb.append("<h3>").append(esc(e.getKey())).append("</h3>\n");
            JFreeChart busy = lineChart(data, "time (hours)", "busy GPUs");
            for (int i = 0; i < data.getSeriesCount(); i++) {
                int colour = types.indexOf(data.getSeriesKey(i).toString());
                busy.getXYPlot().getRenderer().setSeriesPaint(i, PALETTE[colour % PALETTE.length]);
            }
            sb.append(svg(busy, WIDTH, 320));
        }
        XYSeriesCollection waiting = new XYSeriesCollection();
        timelines.forEach((name, t) -> waiting.addSeries(binned(name, t, t.waiting)));
        sb.append("<h2>Jobs waiting over time</h2>\n<p class=\"note\">Mean number of jobs submitted and not running ")
                .append("(queued, or preempted and not restarted) in each time slice.</p>\n")
                .append(svg(lineChart(waiting, "time (hours)", "jobs waiting"), WIDTH, 320))
                .append(sameLines(waiting));
        Map<String, double[]> jct = new LinkedHashMap<>(), late = new LinkedHashMap<>();
        StringBuilder tardyNote = new StringBuilder();
        timelines.forEach((name, t) -> {
            jct.put(name, t.jctHours);
            late.put(name, t.lateHours);
            tardyNote
                    .append(tardyNote.isEmpty() ? "" : "; ")
                    .append(esc(name))
                    .append(": ")
                    .append(t.lateHours.length)
                    .append(" of ")
                    .append(t.jctHours.length)
                    .append(" completed jobs late");
        });
        sb.append(
                        "<h2>Job completion time</h2>\n<p class=\"note\">Jobs by completion time (submission to completion), in ")
                .append(RunTimeline.HISTOGRAM_BINS)
                .append(" equal bins, the same for every run, each run's bar beside the others'.</p>\n")
                .append(svg(histogramChart(jct, "job completion time (hours)"), WIDTH, 320));
        sb.append(
                        "<h2>Tardiness</h2>\n<p class=\"note\">Late jobs by hours past their due date (on-time jobs are left out: ")
                .append(tardyNote)
                .append(").</p>\n")
                .append(svg(histogramChart(late, "hours late"), WIDTH, 320));
        sb.append(
                        "<h2>Moves per job</h2>\n<p class=\"note\">How many jobs were migrated, resized or preempted how many times; ")
                .append("jobs never moved are in the table only.</p>\n<table><tr><th>run</th><th>jobs</th>");
        for (String kind : RunTimeline.MOVES)
            sb.append("<th>").append(movesLabel(kind)).append(" (jobs moved / moves)</th>");
        sb.append("</tr>\n");
        DefaultCategoryDataset moves = new DefaultCategoryDataset();
        timelines.forEach((name, t) -> {
            sb.append("<tr><td>")
                    .append(esc(name))
                    .append("</td><td>")
                    .append(t.jobs)
                    .append("</td>");
            for (String kind : RunTimeline.MOVES) {
                long[] byCount = t.jobsByMoves.get(kind);
                long moved = 0, total = 0;
                for (int k = 1; k < byCount.length; k++) {
                    moved += byCount[k];
                    total += k * byCount[k];
                }
                sb.append("<td>")
                        .append(moved)
                        .append(" / ")
                        .append(total)
                        .append(byCount[RunTimeline.MAX_MOVES] > 0 ? "+" : "")
                        .append("</td>");
            }
            sb.append("</tr>\n");
            for (int k = 1; k <= RunTimeline.MAX_MOVES; k++) {
                long jobs = 0;
                for (String kind : RunTimeline.MOVES) jobs += t.jobsByMoves.get(kind)[k];
                moves.addValue(jobs, name, k == RunTimeline.MAX_MOVES ? k + "+" : Integer.toString(k));
            }
        });
        sb.append("</table>\n");
        JFreeChart chart = ChartFactory.createBarChart(
                null,
                "moves of one kind per job (migrations, resizes or preemptions)",
                "jobs",
                moves,
                PlotOrientation.VERTICAL,
                true,
                false,
                false);
        BarRenderer r = (BarRenderer) chart.getCategoryPlot().getRenderer();
        r.setBarPainter(new StandardBarPainter());
        r.setShadowVisible(false);
        for (int i = 0; i < moves.getRowCount(); i++) r.setSeriesPaint(i, PALETTE[i % PALETTE.length]);
        chart.getCategoryPlot().setBackgroundPaint(Color.WHITE);
        chart.getCategoryPlot().setRangeGridlinePaint(new Color(0xdddddd));
        style(chart);
        sb.append(svg(chart, WIDTH, 320));
    }

    private static String movesLabel(String kind) {
        return switch (kind) {
            case "MIGRATE" -> "migrations";
            case "RESIZE" -> "resizes";
            default -> "preemptions";
        };
    }

    /**
     * A run's name in the charts: its policy and what sets it apart from the other runs ({@link RunResult#name()}), with
     * the seed when several seeds are shown; unique in a report, so runs sharing a policy each keep their series.
     */
    private static String runName(RunResult r, List<RunResult> runs) {
        return runs.stream().map(x -> x.seed).distinct().count() > 1 ? r.label() : r.name();
    }

    private static XYSeries binned(String name, RunTimeline t, double[] bins) {
        XYSeries s = new XYSeries(name, false, true);
        for (int b = 0; b < bins.length; b++) s.add(t.binHours(b), bins[b]);
        return s;
    }

    /**
     * Histograms as bars: the same {@link RunTimeline#HISTOGRAM_BINS} bins over [0, the largest value of any run] for
     * every run, each run's bar beside the others' in a bin (bars drawn over each other would hide them).
     */
    static JFreeChart histogramChart(Map<String, double[]> valuesByRun, String x) {
        double max = 0;
        for (double[] values : valuesByRun.values()) for (double v : values) max = Math.max(max, v);
        XYSeriesCollection data = new XYSeriesCollection();
        double width = 1;
        for (var e : valuesByRun.entrySet()) {
            double[][] h = RunTimeline.histogram(e.getValue(), max);
            width = h[0].length > 1 ? h[0][1] - h[0][0] : 1;
            XYSeries s = new XYSeries(e.getKey(), false, true);
            for (int b = 0; b < h[0].length; b++) s.add(h[0][b] + width / 2, h[1][b]);
            data.addSeries(s);
        }
        data.setIntervalWidth(width);
        JFreeChart chart = ChartFactory.createXYBarChart(
                null, x, false, "jobs", data, PlotOrientation.VERTICAL, true, false, false);
        ClusteredXYBarRenderer r = new ClusteredXYBarRenderer(0.1, false);
        r.setBarPainter(new StandardXYBarPainter());
        r.setShadowVisible(false);
        for (int i = 0; i < data.getSeriesCount(); i++) r.setSeriesPaint(i, PALETTE[i % PALETTE.length]);
        chart.getXYPlot().setRenderer(r);
        style(chart);
        return chart;
    }

    /**
     * A note under a line chart whose runs draw the same line (equal values throughout), which would otherwise show as
     * one run's line only; empty when every line differs.
     */
    static String sameLines(XYSeriesCollection data) {
        List<List<String>> groups = new ArrayList<>();
        List<XYSeries> firsts = new ArrayList<>();
        for (int i = 0; i < data.getSeriesCount(); i++) {
            XYSeries s = data.getSeries(i);
            int g = 0;
            while (g < firsts.size() && !sameItems(firsts.get(g), s)) g++;
            if (g == firsts.size()) {
                firsts.add(s);
                groups.add(new ArrayList<>());
            }
            groups.get(g).add(s.getKey().toString());
        }
        StringBuilder note = new StringBuilder();
        for (List<String> g : groups) {
            if (g.size() < 2) continue;
            note.append(note.isEmpty() ? "" : "; ")
                    .append(esc(String.join(", ", g.subList(0, g.size() - 1))))
                    .append(" and ")
                    .append(esc(g.get(g.size() - 1)));
        }
        return note.isEmpty()
                ? ""
                : "<p class=\"note\">The same line, drawn once over the other (equal values throughout): " + note
                        + ".</p>\n";
    }

    private static boolean sameItems(XYSeries a, XYSeries b) {
        if (a.getItemCount() != b.getItemCount()) return false;
        for (int i = 0; i < a.getItemCount(); i++) {
            if (a.getX(i).doubleValue() != b.getX(i).doubleValue()
                    || a.getY(i).doubleValue() != b.getY(i).doubleValue()) return false;
        }
        return true;
    }

    /**
     * A run's Gantt chart on a time axis of {@code hours} (the longest of the runs shown), each job in the colour
     * {@code colours} gives it (the same in every run's chart).
     */
    static JFreeChart ganttChart(RunResult run, double hours, Map<String, Integer> colours) {
        // Lanes: each node that hosted a job gets one lane per GPU; a segment takes the lowest lanes free at its start.
        Map<String, List<RunResult.Segment>> byNode = new LinkedHashMap<>();
        for (String node : run.nodeOrder) byNode.put(node, new ArrayList<>());
        for (RunResult.Segment s : run.segments)
            byNode.computeIfAbsent(s.node(), k -> new ArrayList<>()).add(s);
        List<String> symbols = new ArrayList<>();
        Map<String, XYIntervalSeries> series = new LinkedHashMap<>();
        for (RunResult.Segment s : run.segments) series.computeIfAbsent(s.job(), XYIntervalSeries::new);
        for (var e : byNode.entrySet()) {
            if (e.getValue().isEmpty()) continue;
            int gpus = Math.max(1, run.nodeGpus.getOrDefault(e.getKey(), 1));
            int maxLanes = Math.max(
                    gpus,
                    e.getValue().stream()
                            .mapToInt(RunResult.Segment::gpus)
                            .max()
                            .orElse(1));
            List<double[]> freeAt = new ArrayList<>();
            int base = symbols.size();
            List<RunResult.Segment> segs = new ArrayList<>(e.getValue());
            segs.sort(Comparator.comparingDouble(RunResult.Segment::start));
            for (int lane = 0; lane < maxLanes; lane++) freeAt.add(new double[] {Double.NEGATIVE_INFINITY});
            for (RunResult.Segment s : segs) {
                int need = s.gpus();
                for (int lane = 0; lane < freeAt.size() && need > 0; lane++) {
                    if (freeAt.get(lane)[0] <= s.start() + 1e-9) {
                        freeAt.get(lane)[0] = s.end();
                        add(series.get(s.job()), s, base + lane);
                        need--;
                    }
                }
                while (need-- > 0) { // more GPUs than the node has: drawn on extra lanes so the excess shows
                    freeAt.add(new double[] {s.end()});
                    add(series.get(s.job()), s, base + freeAt.size() - 1);
                }
            }
            for (int lane = 0; lane < freeAt.size(); lane++) symbols.add(e.getKey() + " GPU" + lane);
        }
        XYIntervalSeriesCollection data = new XYIntervalSeriesCollection();
        series.values().forEach(data::addSeries);
        NumberAxis time = new NumberAxis("time (hours)");
        time.setAutoRangeIncludesZero(true);
        SymbolAxis lanes = new SymbolAxis(null, symbols.toArray(String[]::new));
        lanes.setInverted(true);
        lanes.setGridBandsVisible(false);
        XYBarRenderer r = new XYBarRenderer();
        r.setUseYInterval(true);
        r.setBarPainter(new StandardXYBarPainter());
        r.setShadowVisible(false);
        r.setDrawBarOutline(true);
        r.setDefaultOutlinePaint(Color.WHITE);
        r.setDefaultItemLabelGenerator(
                (dataset, s, item) -> dataset.getSeriesKey(s).toString());
        r.setDefaultItemLabelsVisible(true);
        r.setDefaultItemLabelFont(new Font("SansSerif", Font.PLAIN, 10));
        r.setDefaultPositiveItemLabelPosition(new ItemLabelPosition(ItemLabelAnchor.CENTER, TextAnchor.CENTER));
        for (int i = 0; i < data.getSeriesCount(); i++) {
            String job = data.getSeriesKey(i).toString();
            r.setSeriesPaint(i, PALETTE[colours.getOrDefault(job, i) % PALETTE.length]);
        }
        XYPlot plot = new XYPlot(data, lanes, time, r);
        plot.setOrientation(PlotOrientation.HORIZONTAL);
        JFreeChart chart = new JFreeChart(null, JFreeChart.DEFAULT_TITLE_FONT, plot, false);
        style(chart);
        time.setRange(0, Math.max(hours, 1e-3) * 1.02);
        return chart;
    }

    private static void add(XYIntervalSeries s, RunResult.Segment seg, int lane) {
        double start = seg.start() / 3600.0, end = seg.end() / 3600.0;
        s.add(lane, lane - 0.4, lane + 0.4, start, start, end);
    }

    static void style(JFreeChart chart) {
        chart.setBackgroundPaint(Color.WHITE);
        if (chart.getPlot() instanceof XYPlot plot) {
            plot.setBackgroundPaint(Color.WHITE);
            plot.setDomainGridlinePaint(new Color(0xdddddd));
            plot.setRangeGridlinePaint(new Color(0xdddddd));
            if (plot.getRangeAxis() instanceof NumberAxis axis) keepFlatDataReadable(axis);
        } else if (chart.getPlot() instanceof CategoryPlot plot && plot.getRangeAxis() instanceof NumberAxis axis) {
            keepFlatDataReadable(axis);
        }
    }

    /**
     * Data that does not vary (all zero: no job late, nothing waiting) gets an axis of one unit from zero, where the
     * automatic range would be a sliver around the value (-5E-9 .. 5E-9).
     */
    private static void keepFlatDataReadable(NumberAxis axis) {
        var range = axis.getRange();
        if (range.getLength() > axis.getAutoRangeMinimumSize() * 1.5) return;
        double v = range.getCentralValue();
        axis.setRange(Math.min(0, v), Math.max(0, v) + Math.max(1, Math.abs(v)));
    }

    static String svg(JFreeChart chart, int width, int height) {
        SVGGraphics2D g = new SVGGraphics2D(width, height);
        chart.draw(g, new Rectangle(0, 0, width, height));
        return "<div>" + g.getSVGElement() + "</div>\n";
    }

    private static String ms(double v) {
        return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%.3f", v);
    }

    static String esc(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
