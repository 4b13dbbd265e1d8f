package org.gpusched.reports;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SequenceWriter;
import com.fasterxml.jackson.dataformat.csv.CsvMapper;
import com.fasterxml.jackson.dataformat.csv.CsvSchema;
import java.awt.BasicStroke;
import java.awt.Color;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;
import org.jfree.chart.ChartFactory;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.renderer.category.BarRenderer;
import org.jfree.chart.renderer.category.StandardBarPainter;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.data.category.DefaultCategoryDataset;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/**
 * comparison.csv and report.html of a placement comparison ({@code gpusched compare --pods --nodes}): reads each
 * place-replay run directory (metrics.json for the summary, metrics.csv for the curves over trace time) and writes one
 * row per run, with the EOPC saving against fgd run with the same seed (the PWR paper's headline measure), and a page
 * with the table, mean EOPC per run, and EOPC, allocated GPU fraction and fragmented GPUs over trace time.
 */
public final class PlacementComparison {
    public static final List<String> COLUMNS = List.of(
            "policy",
            "alpha",
            "seed",
            "replayed",
            "placed",
            "failed",
            "released",
            "rejected",
            "meanEopcWatts",
            "peakEopcWatts",
            "energyKWh",
            "cpuEnergyKWh",
            "gpuEnergyKWh",
            "eopcSavingVsFgdPercent",
            "meanAllocatedGpuFraction",
            "peakAllocatedGpuFraction",
            "meanFragmentedGpus",
            "peakFragmentedGpus",
            "run");
    /** The metrics.json fields copied into comparison.csv, in column order. */
    private static final List<String> COUNTS = List.of("replayed", "placed", "failed", "released", "rejected");

    private static final List<String> ENERGY =
            List.of("meanEopcWatts", "peakEopcWatts", "energyKWh", "cpuEnergyKWh", "gpuEnergyKWh");
    private static final List<String> GPU =
            List.of("meanAllocatedGpuFraction", "peakAllocatedGpuFraction", "meanFragmentedGpus", "peakFragmentedGpus");
    /** Points per curve in report.html: enough to read, few enough to keep the page small. */
    static final int MAX_POINTS = 500;

    private static final ObjectMapper JSON = new ObjectMapper();

    private PlacementComparison() {}

    /** One run directory: its label, summary, saving vs fgd, and the sampled curves (time, EOPC W, GPU alloc, fragmented GPUs). */
    public record Run(
            Path dir, String policy, long seed, JsonNode metrics, double savingVsFgdPercent, double[][] curve) {
        public String label() {
            return policy + " seed " + seed;
        }

        public double metric(String name) {
            JsonNode v = metrics.get(name);
            return v == null || !v.isNumber() ? Double.NaN : v.asDouble();
        }
    }

    /** Reads the run directories and writes comparison.csv and report.html into {@code outDir}; returns the runs. */
    public static List<Run> write(List<Path> runDirs, Path outDir, String title, String command) {
        if (runDirs.isEmpty()) throw new ReportInputException("no run directory given");
        List<JsonNode> metrics = new ArrayList<>();
        Map<Long, Double> fgdWatts = new HashMap<>();
        for (Path dir : runDirs) {
            JsonNode m = readMetrics(dir);
            metrics.add(m);
            if (m.path("policy").asText().equals("fgd"))
                fgdWatts.put(m.path("seed").asLong(), m.path("meanEopcWatts").asDouble());
        }
        List<Run> runs = new ArrayList<>();
        for (int i = 0; i < runDirs.size(); i++) {
            JsonNode m = metrics.get(i);
            long seed = m.path("seed").asLong();
            Double fgd = fgdWatts.get(seed);
            double saving = fgd == null || !(fgd > 0)
                    ? Double.NaN
                    : 100.0 * (fgd - m.path("meanEopcWatts").asDouble()) / fgd;
            runs.add(new Run(
                    runDirs.get(i),
                    m.path("policy").asText(),
                    seed,
                    m,
                    saving,
                    readCurve(runDirs.get(i).resolve("metrics.csv"))));
        }
        Map<String, String> files = new LinkedHashMap<>();
        files.put(Reports.CSV, csv(runs, outDir.resolve(Reports.CSV)));
        files.put(Reports.HTML, html(runs, title, command));
        Reports.writeWhole(outDir, files);
        return runs;
    }

    private static JsonNode readMetrics(Path dir) {
        Path file = dir.resolve("metrics.json");
        if (!Files.isRegularFile(file))
            throw new ReportInputException(dir + ": no metrics.json (not a place-replay run directory)");
        try {
            JsonNode m = JSON.readTree(file.toFile());
            for (String f : List.of("policy", "seed", "meanEopcWatts"))
                if (m == null || !m.has(f)) throw new ReportInputException(file + ": field '" + f + "' is missing");
            return m;
        } catch (IOException e) {
            throw new ReportInputException(file + ": not valid JSON (" + e.getMessage() + ")");
        }
    }

    /** metrics.csv sampled to at most {@link #MAX_POINTS} rows (always keeping the last): {time, EOPC, alloc, fragmented}. */
    static double[][] readCurve(Path file) {
        List<double[]> rows = new ArrayList<>();
        try (MappingIterator<Map<String, String>> it = new CsvMapper()
                .readerForMapOf(String.class)
                .with(CsvSchema.emptySchema().withHeader())
                .readValues(file.toFile())) {
            while (it.hasNextValue()) {
                Map<String, String> r = it.nextValue();
                rows.add(new double[] {
                    Double.parseDouble(r.get("time")),
                    Double.parseDouble(r.get("eopc_watts")),
                    Double.parseDouble(r.get("allocated_gpu_fraction")),
                    Double.parseDouble(r.get("fragmented_gpus"))
                });
            }
        } catch (IOException | RuntimeException e) {
            throw new ReportInputException(file + ": unreadable (" + e.getMessage() + ")");
        }
        int step = Math.max(1, (rows.size() + MAX_POINTS - 1) / MAX_POINTS);
        List<double[]> sampled = new ArrayList<>();
        for (int i = 0; i < rows.size(); i += step) sampled.add(rows.get(i));
        if (!rows.isEmpty() && (rows.size() - 1) % step != 0) sampled.add(rows.get(rows.size() - 1));
        return sampled.toArray(double[][]::new);
    }

    /** comparison.csv's text; run directories are named relative to {@code file}, where it will be written. */
    static String csv(List<Run> runs, Path file) {
        CsvSchema.Builder b = CsvSchema.builder();
        COLUMNS.forEach(b::addColumn);
        StringWriter text = new StringWriter();
        try (SequenceWriter w = new CsvMapper().writer(b.build().withHeader()).writeValues(text)) {
            for (Run r : runs) {
                List<Object> values = new ArrayList<>();
                values.add(r.policy());
                values.add(r.metrics().path("alpha").asText(""));
                values.add(r.seed());
                for (String m : COUNTS) values.add(Comparison.number(r.metric(m)));
                for (String m : ENERGY) values.add(Comparison.number(r.metric(m)));
                values.add(Comparison.number(r.savingVsFgdPercent()));
                for (String m : GPU) values.add(Comparison.number(r.metric(m)));
                values.add(Comparison.runPath(r.dir(), file));
                w.write(values);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(file + ": cannot write", e);
        }
        return text.toString();
    }

    static String html(List<Run> runs, String title, String command) {
        StringBuilder sb = new StringBuilder();
        sb.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>")
                .append(ReportHtml.esc(title))
                .append("</title>\n<style>")
                .append(
                        "body{font-family:sans-serif;margin:24px;color:#222;max-width:1000px}table{border-collapse:collapse;font-size:13px}")
                .append(
                        "td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}th{background:#f3f3f3}td:first-child{text-align:left}")
                .append(
                        "code{background:#f5f5f5;padding:2px 4px}h2{margin-top:32px}.note{color:#555;font-size:13px}</style></head><body>\n");
        sb.append("<h1>").append(ReportHtml.esc(title)).append("</h1>\n");
        if (command != null)
            sb.append("<p class=\"note\">Reproduce with <code>")
                    .append(ReportHtml.esc(command))
                    .append("</code></p>\n");
        sb.append(
                        "<p class=\"note\">Time-driven replay of the pod list: every policy placed the same tasks at their creation times and ")
                .append(
                        "freed them at their deletion times. EOPC: the datacenter's estimated power (PWR paper, eq. 1-3), mean and energy ")
                .append(
                        "over trace time; saving vs fgd: lower mean EOPC than fgd with the same seed. Fragmented GPUs: FGD's expected ")
                .append("fragmentation against the trace's target workload, mean over trace time.</p>\n");
        sb.append(
                        "<h2>Comparison</h2>\n<table><tr><th>policy</th><th>seed</th><th>placed</th><th>failed</th><th>rejected rows</th>")
                .append("<th>mean EOPC (W)</th><th>peak EOPC (W)</th><th>energy (kWh)</th><th>saving vs fgd</th>")
                .append("<th>mean GPU alloc</th><th>mean fragmented GPUs</th></tr>\n");
        for (Run r : runs) {
            sb.append(String.format(
                    Locale.ROOT,
                    "<tr><td>%s</td><td>%d</td><td>%.0f</td><td>%.0f</td><td>%.0f</td><td>%.1f</td><td>%.1f</td>"
                            + "<td>%.3f</td><td>%s</td><td>%.4f</td><td>%.2f</td></tr>%n",
                    ReportHtml.esc(r.policy()),
                    r.seed(),
                    r.metric("placed"),
                    r.metric("failed"),
                    r.metric("rejected"),
                    r.metric("meanEopcWatts"),
                    r.metric("peakEopcWatts"),
                    r.metric("energyKWh"),
                    Double.isNaN(r.savingVsFgdPercent())
                            ? "-"
                            : String.format(Locale.ROOT, "%+.2f%%", r.savingVsFgdPercent()),
                    r.metric("meanAllocatedGpuFraction"),
                    r.metric("meanFragmentedGpus")));
        }
        sb.append("</table>\n");
        sb.append("<h2>Mean EOPC per run</h2>\n").append(ReportHtml.svg(meanEopcChart(runs), ReportHtml.WIDTH, 380));
        sb.append("<h2>EOPC over trace time</h2>\n")
                .append(ReportHtml.svg(curveChart(runs, "EOPC (W)", c -> c[1]), ReportHtml.WIDTH, 420));
        sb.append("<h2>Allocated GPU fraction over trace time</h2>\n")
                .append(ReportHtml.svg(curveChart(runs, "allocated GPU fraction", c -> c[2]), ReportHtml.WIDTH, 380));
        sb.append("<h2>Fragmented GPUs over trace time</h2>\n")
                .append(ReportHtml.svg(curveChart(runs, "fragmented GPUs (FGD)", c -> c[3]), ReportHtml.WIDTH, 380));
        sb.append("</body></html>\n");
        return sb.toString();
    }

    static JFreeChart meanEopcChart(List<Run> runs) {
        DefaultCategoryDataset data = new DefaultCategoryDataset();
        boolean manySeeds = runs.stream().map(Run::seed).distinct().count() > 1;
        for (Run r : runs) data.addValue(r.metric("meanEopcWatts"), "mean EOPC", manySeeds ? r.label() : r.policy());
        JFreeChart chart = ChartFactory.createBarChart(
                null, "run", "mean EOPC (W)", data, PlotOrientation.VERTICAL, false, false, false);
        BarRenderer renderer = (BarRenderer) chart.getCategoryPlot().getRenderer();
        renderer.setBarPainter(new StandardBarPainter());
        renderer.setShadowVisible(false);
        renderer.setSeriesPaint(0, ReportHtml.PALETTE[0]);
        renderer.setMaximumBarWidth(0.1);
        ReportHtml.style(chart);
        chart.getCategoryPlot().setBackgroundPaint(Color.WHITE);
        chart.getCategoryPlot().setRangeGridlinePaint(new Color(0xdddddd));
        return chart;
    }

    static JFreeChart curveChart(List<Run> runs, String axis, ToDoubleFunction<double[]> value) {
        XYSeriesCollection data = new XYSeriesCollection();
        boolean manySeeds = runs.stream().map(Run::seed).distinct().count() > 1;
        for (Run r : runs) {
            XYSeries s = new XYSeries(manySeeds ? r.label() : r.policy(), false, true);
            double[] previous = null;
            for (double[] c : r.curve()) { // a step function: each value holds until the next event
                if (previous != null) s.add(c[0] / 3600.0, value.applyAsDouble(previous));
                s.add(c[0] / 3600.0, value.applyAsDouble(c));
                previous = c;
            }
            data.addSeries(s);
        }
        JFreeChart chart = ChartFactory.createXYLineChart(
                null, "trace time (hours)", axis, data, PlotOrientation.VERTICAL, true, false, false);
        XYLineAndShapeRenderer renderer = new XYLineAndShapeRenderer(true, false);
        renderer.setDrawSeriesLineAsPath(
                true); // one SVG path per run instead of an element per segment: a page 10x smaller
        for (int i = 0; i < runs.size(); i++) {
            renderer.setSeriesPaint(i, ReportHtml.PALETTE[i % ReportHtml.PALETTE.length]);
            renderer.setSeriesStroke(i, new BasicStroke(1.5f));
        }
        chart.getXYPlot().setRenderer(renderer);
        ReportHtml.style(chart);
        return chart;
    }
}
