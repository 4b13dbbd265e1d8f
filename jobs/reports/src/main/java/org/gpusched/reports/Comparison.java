package org.gpusched.reports;

import com.fasterxml.jackson.databind.SequenceWriter;
import com.fasterxml.jackson.dataformat.csv.CsvMapper;
import com.fasterxml.jackson.dataformat.csv.CsvSchema;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.ToDoubleFunction;

/**
 * The comparison table: one row per run, and the cost reduction of each run against the best first-principle policy
 * (fifo, edf, priority: the papers' baselines) run with the same seed, and, when the caller can compute it, the
 * run's instance's lower bound on cost and how far the run's total is above it.
 */
public final class Comparison {
    public static final Set<String> BASELINES = Set.of("fifo", "edf", "priority");
    public static final List<String> COLUMNS = List.of(
            "policy",
            "seed",
            "totalCost",
            "executionCost",
            "tardinessCost",
            "tardyJobs",
            "completedJobs",
            "jobs",
            "meanJctSeconds",
            "makespanSeconds",
            "optimizerMedianMs",
            "optimizerP99Ms",
            "reductionVsBestBaselinePercent",
            "run",
            "settings",
            "lowerBound",
            "overBoundPercent",
            "optimizerCalls",
            "callsUnderPressure");

    /** @param lowerBound the run's instance's lower bound on total cost; NaN when not known */
    /** What the lower bound is, for the summary table and the report. */
    static final String LOWER_BOUND_NOTE =
            "lower bound: no schedule of the run's jobs costs less (each job at its cheapest share of node cost, time x GPUs x"
                    + " the cheapest price per busy GPU-hour of a node type the cluster has, or a faster mix of configurations"
                    + " or its lateness where that share would end after its due date); over bound: how far the total is above it";

    public record Row(RunResult run, double reductionPercent, double lowerBound) {
        public Row(RunResult run, double reductionPercent) {
            this(run, reductionPercent, Double.NaN);
        }

        /** How far the run's total is above its lower bound, in percent of the bound; NaN without a positive bound. */
        public double overBoundPercent() {
            return lowerBound > 0 ? 100 * (run.metric("totalCost") - lowerBound) / lowerBound : Double.NaN;
        }
    }

    private Comparison() {}

    /** One row per run; runs that share policy and seed are told apart by their settings ({@link RunResult#distinguish}). */
    public static List<Row> rows(List<RunResult> runs) {
        return rows(runs, dir -> Double.NaN);
    }

    /** {@link #rows(List)} with each run's lower bound computed from its directory by {@code lowerBound}. */
    public static List<Row> rows(List<RunResult> runs, ToDoubleFunction<Path> lowerBound) {
        RunResult.distinguish(runs);
        // a baseline counts for runs of the same seed and settings: K=4 is compared with fifo at K=4
        Map<String, Double> bestBaseline = new LinkedHashMap<>();
        for (RunResult r : runs) {
            if (BASELINES.contains(r.policy))
                bestBaseline.merge(r.seed + " " + r.variant(), r.metric("totalCost"), Math::min);
        }
        List<Row> rows = new ArrayList<>();
        for (RunResult r : runs) {
            Double best = bestBaseline.get(r.seed + " " + r.variant());
            double reduction = best == null || !(best > 0) ? Double.NaN : 100.0 * (best - r.metric("totalCost")) / best;
            rows.add(new Row(r, reduction, lowerBound.applyAsDouble(r.dir)));
        }
        return rows;
    }

    /** Mean of each policy's runs (over seeds; per setting when they differ), in first-appearance order: name -> {total, execution, tardiness, reduction, runs}. */
    public static Map<String, double[]> meansByPolicy(List<Row> rows) {
        Map<String, double[]> sums = new LinkedHashMap<>();
        for (Row row : rows) {
            double[] s = sums.computeIfAbsent(row.run().name(), k -> new double[6]);
            s[0] += row.run().metric("totalCost");
            s[1] += row.run().metric("executionCost");
            s[2] += row.run().metric("tardinessCost");
            if (!Double.isNaN(row.reductionPercent())) {
                s[3] += row.reductionPercent();
                s[5]++;
            }
            s[4]++;
        }
        Map<String, double[]> means = new LinkedHashMap<>();
        sums.forEach((p, s) -> means.put(
                p, new double[] {s[0] / s[4], s[1] / s[4], s[2] / s[4], s[5] == 0 ? Double.NaN : s[3] / s[5], s[4]}));
        return means;
    }

    /** comparison.csv's text; run directories are named relative to {@code file}, where it will be written. */
    public static String csv(List<Row> rows, Path file) {
        CsvSchema.Builder b = CsvSchema.builder();
        COLUMNS.forEach(b::addColumn);
        CsvMapper mapper = new CsvMapper();
        StringWriter text = new StringWriter();
        try (SequenceWriter w = mapper.writer(b.build().withHeader()).writeValues(text)) {
            for (Row row : rows) {
                RunResult r = row.run();
                List<Object> values = new ArrayList<>();
                values.add(r.policy);
                values.add(r.seed);
                for (String m : List.of("totalCost", "executionCost", "tardinessCost", "tardyJobs", "completedJobs"))
                    values.add(number(r.metric(m)));
                values.add(r.jobCount);
                for (String m : List.of("meanJctSeconds", "makespanSeconds", "optimizerMedianMs", "optimizerP99Ms"))
                    values.add(number(r.metric(m)));
                values.add(number(row.reductionPercent()));
                values.add(runPath(r.dir, file));
                values.add(r.variant());
                values.add(number(row.lowerBound()));
                values.add(number(row.overBoundPercent()));
                // absent (empty) for run directories written before metrics.json had them
                for (String m : List.of("optimizerCalls", "callsUnderPressure")) values.add(number(r.metric(m)));
                w.write(values);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(file + ": cannot write", e);
        }
        return text.toString();
    }

    /**
     * A run directory as the CSV names it: relative to the CSV's folder when inside it (a compare directory stays valid
     * when renamed into place or moved), else as given.
     */
    static String runPath(Path runDir, Path csv) {
        Path base = csv.toAbsolutePath().normalize().getParent();
        Path run = runDir.toAbsolutePath().normalize();
        return base != null && run.startsWith(base) ? base.relativize(run).toString() : runDir.toString();
    }

    static String number(double v) {
        if (Double.isNaN(v)) return "";
        if (v == Math.rint(v) && Math.abs(v) < 1e15) return Long.toString((long) v);
        return String.format(Locale.ROOT, "%.6f", v);
    }

    /** The summary table printed at the end of a comparison. */
    public static String table(List<Row> rows) {
        StringBuilder sb = new StringBuilder();
        int width = Math.max(
                14,
                rows.stream().mapToInt(row -> row.run().name().length()).max().orElse(0));
        sb.append(String.format(
                Locale.ROOT,
                "%-" + width + "s %6s %12s %12s %10s %12s %12s %6s %11s %12s %12s %s%n",
                "policy",
                "seed",
                "total cost",
                "lower bound",
                "over bound",
                "execution",
                "tardiness",
                "tardy",
                "completed",
                "mean JCT s",
                "makespan s",
                "saving vs best queue policy"));
        for (Row row : rows) {
            RunResult r = row.run();
            sb.append(String.format(
                    Locale.ROOT,
                    "%-" + width + "s %6d %12.4f %12s %10s %12.4f %12.4f %6.0f %11s %12.1f %12.1f %10s%n",
                    r.name(),
                    r.seed,
                    r.metric("totalCost"),
                    Double.isNaN(row.lowerBound()) ? "-" : String.format(Locale.ROOT, "%.4f", row.lowerBound()),
                    Double.isNaN(row.overBoundPercent())
                            ? "-"
                            : String.format(Locale.ROOT, "%+.1f%%", row.overBoundPercent()),
                    r.metric("executionCost"),
                    r.metric("tardinessCost"),
                    r.metric("tardyJobs"),
                    String.format(
                            Locale.ROOT, "%.0f/%d%s", r.metric("completedJobs"), r.jobCount, r.complete() ? "" : "!"),
                    r.metric("meanJctSeconds"),
                    r.metric("makespanSeconds"),
                    Double.isNaN(row.reductionPercent())
                            ? "-"
                            : String.format(Locale.ROOT, "%+.1f%%", row.reductionPercent())));
        }
        if (rows.stream().anyMatch(row -> !Double.isNaN(row.reductionPercent()))) {
            sb.append(
                    "saving vs best queue policy: how much cheaper than the cheapest of fifo, edf and priority with the same seed (negative: dearer)\n");
        }
        if (rows.stream().anyMatch(row -> !Double.isNaN(row.lowerBound()))) {
            sb.append(LOWER_BOUND_NOTE).append('\n');
        }
        if (rows.stream().anyMatch(row -> !row.run().complete())) {
            sb.append("! a run left jobs unfinished: its cost leaves their work out and is not comparable\n");
        }
        return sb.toString();
    }
}
