package org.gpusched.placement.experiment;

import com.fasterxml.jackson.databind.SequenceWriter;
import com.fasterxml.jackson.dataformat.csv.CsvMapper;
import com.fasterxml.jackson.dataformat.csv.CsvSchema;
import java.io.IOException;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Writes {@code curve.csv} (one row per policy, alpha, seed and requested-capacity grid point; columns documented in
 * jobs/placement/README.md) and the plain-text summary table.
 */
public final class ExperimentOutput {
    public static final List<String> CURVE_COLUMNS = List.of(
            "policy",
            "alpha",
            "seed",
            "requested_gpu_fraction",
            "arrived_tasks",
            "eopc_cpu_w",
            "eopc_gpu_w",
            "eopc_w",
            "grar",
            "fragmented_gpus",
            "failed_tasks",
            "allocated_gpu_fraction");

    private ExperimentOutput() {}

    public static void writeCurve(InflationExperiment.Result result, Path file) throws IOException {
        CsvSchema.Builder b = CsvSchema.builder();
        CURVE_COLUMNS.forEach(b::addColumn);
        CsvSchema schema = b.build().withHeader();
        try (Writer w = Files.newBufferedWriter(file);
                SequenceWriter out = new CsvMapper().writer(schema).writeValues(w)) {
            for (CurvePoint p : result.curve()) {
                out.write(List.of(
                        p.policy().name(),
                        p.policy().alphaText(),
                        Long.toString(p.seed()),
                        f("%.4f", p.requestedGpuFraction()),
                        Integer.toString(p.arrivedTasks()),
                        f("%.1f", p.eopcCpuWatts()),
                        f("%.1f", p.eopcGpuWatts()),
                        f("%.1f", p.eopcWatts()),
                        f("%.6f", p.grar()),
                        f("%.3f", p.fragmentedGpus()),
                        Integer.toString(p.failedTasks()),
                        f("%.6f", p.allocatedGpuFraction())));
            }
        }
    }

    /** Fixed-width table, one row per policy. */
    public static String summaryTable(CurveSummary summary) {
        List<String[]> rows = new ArrayList<>();
        rows.add(new String[] {
            "policy",
            "saving<=80%",
            "min 15-80%",
            "saving@90%",
            "GRAR@90%",
            "GRAR@95%",
            "GRAR@100%",
            "GRAR@end",
            "1st fail",
            "failed",
            "us/task"
        });
        for (CurveSummary.Row r : summary.rows()) {
            rows.add(new String[] {
                r.policy().label(),
                pct(r.meanSavingTo80()),
                pct(r.minSaving15To80()),
                pct(r.savingAt90()),
                num(r.grarAt90()),
                num(r.grarAt95()),
                num(r.grarAt100()),
                num(r.grarAtEnd()),
                Double.isNaN(r.firstFailureX()) ? "-" : f("%.2f", r.firstFailureX()),
                f("%.0f", r.failedAtEnd()),
                f("%.0f", r.microsPerDecision())
            });
        }
        int[] width = new int[rows.get(0).length];
        for (String[] row : rows) for (int i = 0; i < row.length; i++) width[i] = Math.max(width[i], row[i].length());
        StringBuilder sb = new StringBuilder();
        for (String[] row : rows) {
            for (int i = 0; i < row.length; i++) {
                if (i == 0) sb.append(String.format(Locale.ROOT, "%-" + width[i] + "s", row[i]));
                else sb.append("  ").append(String.format(Locale.ROOT, "%" + width[i] + "s", row[i]));
            }
            sb.append('\n');
        }
        return sb.toString();
    }

    static String pct(double x) {
        return Double.isNaN(x) ? "-" : f("%+.1f%%", x);
    }

    static String num(double x) {
        return Double.isNaN(x) ? "-" : f("%.4f", x);
    }

    static String f(String fmt, double x) {
        return String.format(Locale.ROOT, fmt, x);
    }
}
