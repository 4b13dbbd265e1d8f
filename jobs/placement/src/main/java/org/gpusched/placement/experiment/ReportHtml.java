package org.gpusched.placement.experiment;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Rectangle;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import org.jfree.chart.ChartFactory;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.data.xy.DefaultTableXYDataset;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;
import org.jfree.svg.SVGGraphics2D;

/**
 * {@code report.html}: one self-contained page (charts inlined as SVG by JFreeChart + JFreeSVG, no scripts) with the
 * paper's plots -- FGD's EOPC split CPU/GPU (its Fig. 1), power saving vs FGD (Fig. 2-6) and GRAR (Fig. 7-10) against
 * requested GPU capacity, all seed-averaged -- the summary table and how the run was made.
 */
public final class ReportHtml {
    private static final Color[] PALETTE = {
        new Color(0x1f77b4),
        new Color(0xd62728),
        new Color(0x2ca02c),
        new Color(0xff7f0e),
        new Color(0x9467bd),
        new Color(0x8c564b),
        new Color(0xe377c2),
        new Color(0x7f7f7f),
        new Color(0xbcbd22),
        new Color(0x17becf),
        new Color(0x000000)
    };

    private ReportHtml() {}

    public static void write(
            InflationExperiment.Result result, CurveSummary summary, String title, String command, Path file)
            throws IOException {
        StringBuilder h = new StringBuilder();
        h.append("<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>")
                .append(esc(title))
                .append("</title>")
                .append(
                        "<style>body{font-family:sans-serif;margin:2em;max-width:1100px}table{border-collapse:collapse}")
                .append("td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}td:first-child{text-align:left}")
                .append("pre{background:#f4f4f4;padding:.6em;white-space:pre-wrap}</style></head><body>");
        h.append("<h1>").append(esc(title)).append("</h1>");
        InflationExperiment.Config c = result.config();
        h.append("<p>Monte-Carlo inflation (PWR paper, section V-A): ")
                .append(c.trace().size())
                .append(" trace tasks sampled with ")
                .append(
                        "replacement and placed in arrival order, never leaving, until the requested GPU capacity reaches ")
                .append(c.load())
                .append(" x the cluster's (")
                .append(c.nodes().size())
                .append(" nodes). ")
                .append(c.seeds().size())
                .append(" seeds; every point is the mean over seeds at equal requested capacity.</p>");
        h.append("<pre>").append(esc(command)).append("</pre>");
        h.append("<h2>Summary</h2>").append(table(summary));
        h.append(
                "<p>saving = (EOPC<sub>FGD</sub> - EOPC)/EOPC<sub>FGD</sub>; \"saving&lt;=80%\" averages it over grid points up to 80% requested capacity, \"min 15-80%\" is its minimum there; GRAR@x at x requested capacity; \"1st fail\": mean requested capacity at the first failed task; us/task: mean placement time per task.</p>");
        PolicySpec fgd = summary.fgd();
        if (fgd != null) {
            h.append("<h2>Power saving vs FGD</h2>").append(svg(savingChart(summary)));
            h.append("<h2>FGD EOPC, CPU and GPU</h2>").append(svg(fgdEopcChart(summary, fgd)));
        }
        h.append("<h2>GRAR vs requested GPU capacity</h2>").append(svg(grarChart(summary, 0.0)));
        h.append("<h2>GRAR near saturation</h2>").append(svg(grarChart(summary, 0.8)));
        h.append("<h2>Expected GPU fragmentation</h2>").append(svg(fragChart(summary)));
        h.append("</body></html>\n");
        Files.writeString(file, h.toString());
    }

    private static String table(CurveSummary summary) {
        StringBuilder t = new StringBuilder(
                        "<table><tr><th>policy</th><th>saving &le;80%</th><th>min saving 15-80%</th>")
                .append("<th>saving @90%</th><th>GRAR @90%</th><th>GRAR @95%</th><th>GRAR @100%</th><th>GRAR @end</th>")
                .append("<th>1st fail</th><th>failed</th><th>&micro;s/task</th></tr>");
        for (CurveSummary.Row r : summary.rows()) {
            t.append("<tr><td>")
                    .append(esc(r.policy().label()))
                    .append("</td><td>")
                    .append(ExperimentOutput.pct(r.meanSavingTo80()))
                    .append("</td><td>")
                    .append(ExperimentOutput.pct(r.minSaving15To80()))
                    .append("</td><td>")
                    .append(ExperimentOutput.pct(r.savingAt90()))
                    .append("</td><td>")
                    .append(ExperimentOutput.num(r.grarAt90()))
                    .append("</td><td>")
                    .append(ExperimentOutput.num(r.grarAt95()))
                    .append("</td><td>")
                    .append(ExperimentOutput.num(r.grarAt100()))
                    .append("</td><td>")
                    .append(ExperimentOutput.num(r.grarAtEnd()))
                    .append("</td><td>")
                    .append(Double.isNaN(r.firstFailureX()) ? "-" : ExperimentOutput.f("%.2f", r.firstFailureX()))
                    .append("</td><td>")
                    .append(ExperimentOutput.f("%.0f", r.failedAtEnd()))
                    .append("</td><td>")
                    .append(ExperimentOutput.f("%.0f", r.microsPerDecision()))
                    .append("</td></tr>");
        }
        return t.append("</table>").toString();
    }

    static JFreeChart savingChart(CurveSummary summary) {
        XYSeriesCollection data = new XYSeriesCollection();
        for (PolicySpec p : summary.means().keySet()) {
            XYSeries s = new XYSeries(p.label());
            // FGD itself stays in as the zero line, so every chart gives a policy the same colour
            for (double x : summary.means().get(p).keySet()) {
                double v = summary.saving(p, x);
                if (!Double.isNaN(v)) s.add(x, v);
            }
            data.addSeries(s);
        }
        return lines(
                "Power saving w.r.t. FGD",
                "requested GPU capacity (fraction of cluster)",
                "EOPC saving vs FGD (%)",
                data);
    }

    static JFreeChart grarChart(CurveSummary summary, double fromX) {
        XYSeriesCollection data = new XYSeriesCollection();
        summary.means().forEach((p, m) -> {
            XYSeries s = new XYSeries(p.label());
            m.tailMap(fromX, true).forEach((x, mean) -> s.add(x.doubleValue(), mean.grar()));
            data.addSeries(s);
        });
        JFreeChart chart = lines(
                "GPU resource allocation ratio (GRAR)", "requested GPU capacity (fraction of cluster)", "GRAR", data);
        ((XYPlot) chart.getPlot()).getRangeAxis().setAutoRange(true);
        ((org.jfree.chart.axis.NumberAxis) ((XYPlot) chart.getPlot()).getRangeAxis()).setAutoRangeIncludesZero(false);
        return chart;
    }

    static JFreeChart fragChart(CurveSummary summary) {
        XYSeriesCollection data = new XYSeriesCollection();
        summary.means().forEach((p, m) -> {
            XYSeries s = new XYSeries(p.label());
            m.forEach((x, mean) -> s.add(x.doubleValue(), mean.fragmentedGpus()));
            data.addSeries(s);
        });
        return lines(
                "Expected GPU fragmentation F_datacenter (eq. 4)",
                "requested GPU capacity (fraction of cluster)",
                "fragmented GPUs",
                data);
    }

    static JFreeChart fgdEopcChart(CurveSummary summary, PolicySpec fgd) {
        DefaultTableXYDataset data = new DefaultTableXYDataset();
        XYSeries cpu = new XYSeries("CPU", true, false), gpu = new XYSeries("GPU", true, false);
        TreeMap<Double, CurveSummary.Mean> m = summary.means().get(fgd);
        for (Map.Entry<Double, CurveSummary.Mean> e : m.entrySet()) {
            cpu.add(e.getKey().doubleValue(), e.getValue().eopcCpuWatts() / 1e6);
            gpu.add(e.getKey().doubleValue(), e.getValue().eopcGpuWatts() / 1e6);
        }
        data.addSeries(cpu);
        data.addSeries(gpu);
        JFreeChart chart = ChartFactory.createStackedXYAreaChart(
                "FGD estimated overall power consumption (EOPC)",
                "requested GPU capacity (fraction of cluster)",
                "EOPC (MW)",
                data,
                PlotOrientation.VERTICAL,
                true,
                false,
                false);
        style(chart);
        return chart;
    }

    private static JFreeChart lines(String title, String x, String y, XYSeriesCollection data) {
        JFreeChart chart =
                ChartFactory.createXYLineChart(title, x, y, data, PlotOrientation.VERTICAL, true, false, false);
        XYLineAndShapeRenderer r = new XYLineAndShapeRenderer(true, false);
        for (int i = 0; i < data.getSeriesCount(); i++) {
            r.setSeriesPaint(i, PALETTE[i % PALETTE.length]);
            r.setSeriesStroke(
                    i,
                    new BasicStroke(
                            i < PALETTE.length ? 1.6f : 1.6f,
                            BasicStroke.CAP_ROUND,
                            BasicStroke.JOIN_ROUND,
                            1f,
                            i >= PALETTE.length ? new float[] {6f, 4f} : null,
                            0f));
        }
        ((XYPlot) chart.getPlot()).setRenderer(r);
        style(chart);
        return chart;
    }

    private static void style(JFreeChart chart) {
        chart.setBackgroundPaint(Color.WHITE);
        XYPlot plot = (XYPlot) chart.getPlot();
        plot.setBackgroundPaint(Color.WHITE);
        plot.setDomainGridlinePaint(new Color(0xdddddd));
        plot.setRangeGridlinePaint(new Color(0xdddddd));
    }

    static String svg(JFreeChart chart) {
        SVGGraphics2D g = new SVGGraphics2D(960, 480);
        chart.draw(g, new Rectangle(0, 0, 960, 480));
        return "<div>" + g.getSVGElement() + "</div>";
    }

    static String esc(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
