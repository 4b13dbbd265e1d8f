package org.gpusched.reports;

import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.dataformat.csv.CsvMapper;
import com.fasterxml.jackson.dataformat.csv.CsvSchema;
import java.awt.BasicStroke;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.jfree.chart.ChartFactory;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/**
 * report.html of a PowerFlow run directory ({@code gpusched powerflow --out DIR}), the paper's plots: mean JCT against
 * total energy, one curve per policy (PowerFlow's eta sweep, the baselines' power-limit sweep, a point for the Zeus
 * combinations: Figure 7), and GPUs allocated and cluster power over time for one run per policy (Figure 8: the run
 * whose energy is closest to gandiva+zeus', or to the median run's when there is none), with the results and the
 * equal-energy table. Reads results.csv, equal-energy.csv and power-RUN.csv.
 */
public final class PowerflowReport {
    /** One row of results.csv. */
    public record Run(String name, String family, double meanJctSeconds, double energyKWh, double idleKWh) {}

    private static final CsvMapper CSV = new CsvMapper();

    private PowerflowReport() {}

    /** Writes DIR/report.html for the PowerFlow run directory {@code runDir}; returns its runs. */
    public static List<Run> write(Path runDir, Path outDir, String title, String command) {
        List<Run> runs = new ArrayList<>();
        List<Map<String, String>> results = rows(runDir.resolve("results.csv"));
        for (int i = 0; i < results.size(); i++) {
            Map<String, String> r = results.get(i);
            String where = runDir.resolve("results.csv") + ":" + (i + 2);
            runs.add(new Run(
                    r.get("run"),
                    r.get("family"),
                    number(r, "mean_jct_s", where),
                    number(r, "energy_kwh", where),
                    number(r, "idle_kwh", where)));
        }
        if (runs.isEmpty()) throw new ReportInputException(runDir.resolve("results.csv") + ": no run");
        List<Map<String, String>> equal = Files.isRegularFile(runDir.resolve("equal-energy.csv"))
                ? rows(runDir.resolve("equal-energy.csv"))
                : List.of();
        Map<String, List<double[]>> curves = new LinkedHashMap<>();
        for (Run r : shown(runs)) curves.put(r.name(), curve(runDir.resolve("power-" + r.name() + ".csv")));
        Reports.writeWhole(outDir, Map.of(Reports.HTML, html(runs, equal, curves, title, command)));
        return runs;
    }

    /** One run per family for the over-time charts: energy closest to gandiva+zeus' (Figure 8's choice). */
    static List<Run> shown(List<Run> runs) {
        double target = runs.stream()
                .filter(r -> r.family().equals("gandiva+zeus"))
                .mapToDouble(Run::energyKWh)
                .findFirst()
                .orElse(runs.stream().map(Run::energyKWh).sorted().toList().get(runs.size() / 2));
        Map<String, Run> best = new LinkedHashMap<>();
        for (Run r : runs)
            best.merge(
                    r.family(),
                    r,
                    (a, b) -> Math.abs(b.energyKWh() - target) < Math.abs(a.energyKWh() - target) ? b : a);
        return List.copyOf(best.values());
    }

    static String html(
            List<Run> runs,
            List<Map<String, String>> equal,
            Map<String, List<double[]>> curves,
            String title,
            String command) {
        StringBuilder sb = new StringBuilder();
        sb.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>")
                .append(ReportHtml.esc(title))
                .append("</title>\n<style>body{font-family:sans-serif;margin:24px;color:#222;max-width:1000px}")
                .append("table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #ccc;padding:3px 8px;")
                .append("text-align:right}th{background:#f3f3f3}td:first-child{text-align:left}")
                .append("code{background:#f5f5f5;padding:2px 4px}h2{margin-top:32px}.note{color:#555;font-size:13px}")
                .append("</style></head><body>\n<h1>")
                .append(ReportHtml.esc(title))
                .append("</h1>\n");
        if (command != null)
            sb.append("<p class=\"note\">Reproduce with <code>")
                    .append(ReportHtml.esc(command))
                    .append("</code></p>\n");
        sb.append("<p class=\"note\">Energy: GPU energy of the jobs (profiling included) and of the idle GPUs of ")
                .append("powered nodes. PowerFlow is swept over its budget eta, the non-energy-aware baselines over ")
                .append("one cluster-wide GPU power limit (the paper's clock sweep); the Zeus combinations give one ")
                .append("point each.</p>\n");
        sb.append("<h2>Mean JCT against total energy</h2>\n")
                .append(ReportHtml.svg(paretoChart(runs), ReportHtml.WIDTH, 460));
        sb.append("<h2>GPUs allocated over time</h2>\n<p class=\"note\">One run per policy: the one whose energy is ")
                .append("closest to gandiva+zeus'.</p>\n")
                .append(ReportHtml.svg(timeChart(curves, "GPUs allocated", 2), ReportHtml.WIDTH, 400));
        sb.append("<h2>Cluster power over time</h2>\n")
                .append(ReportHtml.svg(timeChart(curves, "cluster GPU power (W)", 1), ReportHtml.WIDTH, 400));
        sb.append("<h2>Runs</h2>\n<table><tr><th>run</th><th>mean JCT (h)</th><th>energy (kWh)</th>")
                .append("<th>idle (kWh)</th></tr>\n");
        for (Run r : runs)
            sb.append(String.format(
                    Locale.ROOT,
                    "<tr><td>%s</td><td>%.3f</td><td>%.1f</td><td>%.1f</td></tr>%n",
                    ReportHtml.esc(r.name()),
                    r.meanJctSeconds() / 3600,
                    r.energyKWh(),
                    r.idleKWh()));
        sb.append("</table>\n");
        if (!equal.isEmpty()) {
            sb.append("<h2>Mean JCT at equal energy</h2>\n<p class=\"note\">The baseline's mean JCT over PowerFlow's, ")
                    .append("interpolated along PowerFlow's Pareto front at the baseline's energy.</p>\n")
                    .append("<table><tr><th>baseline</th><th>energy (kWh)</th><th>baseline JCT (h)</th>")
                    .append("<th>PowerFlow JCT (h)</th><th>ratio</th><th>within PowerFlow's range</th></tr>\n");
            for (Map<String, String> e : equal)
                sb.append(String.format(
                        Locale.ROOT,
                        "<tr><td>%s</td><td>%.1f</td><td>%.3f</td><td>%.3f</td><td>%.2f</td><td>%s</td></tr>%n",
                        ReportHtml.esc(e.get("baseline")),
                        Double.parseDouble(e.get("energy_kwh")),
                        Double.parseDouble(e.get("baseline_mean_jct_s")) / 3600,
                        Double.parseDouble(e.get("powerflow_mean_jct_s")) / 3600,
                        Double.parseDouble(e.get("ratio")),
                        e.get("in_range")));
            sb.append("</table>\n");
        }
        sb.append("</body></html>\n");
        return sb.toString();
    }

    static JFreeChart paretoChart(List<Run> runs) {
        Map<String, List<Run>> byFamily = new LinkedHashMap<>();
        for (Run r : runs)
            byFamily.computeIfAbsent(r.family(), f -> new ArrayList<>()).add(r);
        XYSeriesCollection data = new XYSeriesCollection();
        for (var e : byFamily.entrySet()) {
            XYSeries s = new XYSeries(e.getKey(), false, true);
            e.getValue().stream()
                    .sorted(Comparator.comparingDouble(Run::energyKWh))
                    .forEach(r -> s.add(r.energyKWh(), r.meanJctSeconds() / 3600));
            data.addSeries(s);
        }
        JFreeChart chart = ChartFactory.createXYLineChart(
                null, "total energy (kWh)", "mean JCT (h)", data, PlotOrientation.VERTICAL, true, false, false);
        XYLineAndShapeRenderer renderer = new XYLineAndShapeRenderer(true, true);
        for (int i = 0; i < data.getSeriesCount(); i++) {
            renderer.setSeriesPaint(i, ReportHtml.PALETTE[i % ReportHtml.PALETTE.length]);
            renderer.setSeriesStroke(i, new BasicStroke(1.5f));
        }
        chart.getXYPlot().setRenderer(renderer);
        ((org.jfree.chart.axis.NumberAxis) chart.getXYPlot().getRangeAxis()).setAutoRangeIncludesZero(false);
        ((org.jfree.chart.axis.NumberAxis) chart.getXYPlot().getDomainAxis()).setAutoRangeIncludesZero(false);
        ReportHtml.style(chart);
        return chart;
    }

    static JFreeChart timeChart(Map<String, List<double[]>> curves, String axis, int column) {
        XYSeriesCollection data = new XYSeriesCollection();
        for (var e : curves.entrySet()) {
            XYSeries s = new XYSeries(e.getKey(), false, true);
            double[] previous = null;
            for (double[] c : e.getValue()) { // a step function: each value holds until the next decision
                if (previous != null) s.add(c[0] / 3600, previous[column]);
                s.add(c[0] / 3600, c[column]);
                previous = c;
            }
            data.addSeries(s);
        }
        JFreeChart chart = ChartFactory.createXYLineChart(
                null, "time (hours)", axis, data, PlotOrientation.VERTICAL, true, false, false);
        XYLineAndShapeRenderer renderer = new XYLineAndShapeRenderer(true, false);
        renderer.setDrawSeriesLineAsPath(true);
        for (int i = 0; i < data.getSeriesCount(); i++) {
            renderer.setSeriesPaint(i, ReportHtml.PALETTE[i % ReportHtml.PALETTE.length]);
            renderer.setSeriesStroke(i, new BasicStroke(1.2f));
        }
        chart.getXYPlot().setRenderer(renderer);
        ReportHtml.style(chart);
        return chart;
    }

    /** power-RUN.csv as {time, watts, GPUs allocated}, thinned to at most {@link PlacementComparison#MAX_POINTS}. */
    static List<double[]> curve(Path file) {
        List<double[]> all = new ArrayList<>();
        List<Map<String, String>> rows = rows(file);
        for (int i = 0; i < rows.size(); i++) {
            Map<String, String> r = rows.get(i);
            String where = file + ":" + (i + 2);
            all.add(new double[] {
                number(r, "time_s", where), number(r, "watts", where), number(r, "gpus_allocated", where)
            });
        }
        int step = Math.max(1, (all.size() + PlacementComparison.MAX_POINTS - 1) / PlacementComparison.MAX_POINTS);
        List<double[]> out = new ArrayList<>();
        for (int i = 0; i < all.size(); i += step) out.add(all.get(i));
        if (!all.isEmpty() && (all.size() - 1) % step != 0) out.add(all.get(all.size() - 1));
        return out;
    }

    private static List<Map<String, String>> rows(Path file) {
        if (!Files.isRegularFile(file)) throw new ReportInputException(file + ": no such file");
        try (MappingIterator<Map<String, String>> it = CSV.readerForMapOf(String.class)
                .with(CsvSchema.emptySchema().withHeader())
                .readValues(file.toFile())) {
            return it.readAll();
        } catch (IOException | RuntimeException e) {
            throw new ReportInputException(file + ": unreadable (" + e.getMessage() + ")");
        }
    }

    private static double number(Map<String, String> row, String field, String where) {
        try {
            return Double.parseDouble(row.get(field));
        } catch (RuntimeException e) {
            throw new ReportInputException(where + ": field '" + field + "' is not a number: '" + row.get(field) + "'");
        }
    }
}
