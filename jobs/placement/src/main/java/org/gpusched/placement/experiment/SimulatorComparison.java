package org.gpusched.placement.experiment;

import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.dataformat.csv.CsvMapper;
import com.fasterxml.jackson.dataformat.csv.CsvSchema;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Compares an inflation result with the FGD simulator's published curves (its experiments/analysis/expected_results:
 * {@code analysis_allo_discrete.csv} and {@code analysis_frag_discrete.csv}, one row per workload, policy and seed,
 * columns 0..130 = requested GPU capacity in percent; values in percent of the cluster's GPUs). For every policy the
 * simulator also ran (fgd = 06-FGD, bestfit = 05-BestFit, gpu-packing = 04-GpuPacking, gpu-clustering =
 * 03-GpuClustering, dotprod = 02-DotProd, random = 01-Random) and each requested capacity of {@link #POINTS}, both sides
 * are averaged over the seeds both have: GRAR (simulator: allocated percent / x) and fragmented GPUs in percent of the
 * cluster's GPUs. The goal is |dGRAR| <= 0.01 and |dFrag| <= 0.5 points.
 *
 * <p>The simulator's value at x% is the mean over its events whose requested capacity rounds to x; ours is the state
 * when the requested capacity first reaches x, or, when the run ends earlier (at 130%: the clones stop just short of
 * it, in the simulator too), the last grid point within 1.5% below x with GRAR taken as the simulator takes it,
 * allocated / x.
 */
public final class SimulatorComparison {
    public static final double[] POINTS = {0.5, 0.8, 0.9, 1.0, 1.1, 1.3};
    public static final double GRAR_GOAL = 0.01;
    public static final double FRAG_GOAL_POINTS = 0.5;
    private static final Map<String, String> SIMULATOR_POLICY = Map.of(
            "random",
            "01-Random",
            "dotprod",
            "02-DotProd",
            "gpu-clustering",
            "03-GpuClustering",
            "gpu-packing",
            "04-GpuPacking",
            "bestfit",
            "05-BestFit",
            "fgd",
            "06-FGD");

    /** One compared point. NaN where a side has no value. */
    public record Row(
            String policy,
            double requested,
            int seeds,
            double grar,
            double simulatorGrar,
            double fragPercent,
            double simulatorFragPercent) {
        public double grarDiff() {
            return grar - simulatorGrar;
        }

        public double fragDiff() {
            return fragPercent - simulatorFragPercent;
        }

        public boolean withinGoal() {
            return Math.abs(grarDiff()) <= GRAR_GOAL + 1e-9 && Math.abs(fragDiff()) <= FRAG_GOAL_POINTS + 1e-9;
        }
    }

    private SimulatorComparison() {}

    /** The simulator's name of a policy of ours, or null when it ran no such policy. */
    public static String simulatorPolicy(String policy) {
        return SIMULATOR_POLICY.get(policy);
    }

    /**
     * @param expectedDir directory with the two expected CSVs
     * @param workload    the simulator's workload name, e.g. {@code openb_pod_list_default} (the pod file's base name)
     * @param totalGpus   the cluster's GPU count (to express our fragmentation in percent)
     * @throws IllegalArgumentException if a file is missing or malformed, or the workload is absent
     */
    public static List<Row> compare(
            InflationExperiment.Result result, Path expectedDir, String workload, double totalGpus) {
        Map<String, Map<Long, double[]>> allocated = read(expectedDir.resolve("analysis_allo_discrete.csv"), workload);
        Map<String, Map<Long, double[]>> fragmented = read(expectedDir.resolve("analysis_frag_discrete.csv"), workload);
        if (allocated.isEmpty())
            throw new IllegalArgumentException(
                    expectedDir.resolve("analysis_allo_discrete.csv") + ": no rows for workload '" + workload + "'");
        Map<String, Map<Long, List<CurvePoint>>> ours = new LinkedHashMap<>();
        for (CurvePoint p : result.curve()) {
            if (simulatorPolicy(p.policy().name()) == null) continue;
            ours.computeIfAbsent(p.policy().name(), k -> new HashMap<>())
                    .computeIfAbsent(p.seed(), k -> new ArrayList<>())
                    .add(p);
        }
        List<Row> rows = new ArrayList<>();
        for (Map.Entry<String, Map<Long, List<CurvePoint>>> e : ours.entrySet()) {
            String sim = simulatorPolicy(e.getKey());
            Map<Long, double[]> simAlloc = allocated.getOrDefault(sim, Map.of());
            Map<Long, double[]> simFrags = fragmented.getOrDefault(sim, Map.of());
            Set<Long> seeds = new TreeSet<>(e.getValue().keySet());
            seeds.retainAll(simAlloc.keySet());
            seeds.retainAll(simFrags.keySet());
            for (double x : POINTS) {
                int column = (int) Math.round(x * 100);
                double grar = 0, simGrar = 0, frag = 0, simFrag = 0;
                int n = 0;
                for (long seed : seeds) {
                    CurvePoint p = at(e.getValue().get(seed), x);
                    double a = simAlloc.get(seed)[column], f = simFrags.get(seed)[column];
                    if (p == null || Double.isNaN(a) || Double.isNaN(f)) continue;
                    grar += p.requestedGpuFraction() >= x - 1e-9 ? p.grar() : p.allocatedGpuFraction() / x;
                    frag += 100 * p.fragmentedGpus() / totalGpus;
                    simGrar += a / column;
                    simFrag += f;
                    n++;
                }
                rows.add(
                        n == 0
                                ? new Row(e.getKey(), x, 0, Double.NaN, Double.NaN, Double.NaN, Double.NaN)
                                : new Row(e.getKey(), x, n, grar / n, simGrar / n, frag / n, simFrag / n));
            }
        }
        return rows;
    }

    private static CurvePoint at(List<CurvePoint> curve, double x) {
        CurvePoint best = null;
        for (CurvePoint p : curve) {
            if (p.requestedGpuFraction() > x + 1e-9) break;
            if (p.requestedGpuFraction() >= x - 0.015) best = p;
        }
        return best;
    }

    /** policy -> seed -> value per requested-capacity column 0..130 (NaN where empty). */
    private static Map<String, Map<Long, double[]>> read(Path file, String workload) {
        if (!Files.isRegularFile(file)) throw new IllegalArgumentException(file + ": no such file");
        Map<String, Map<Long, double[]>> out = new HashMap<>();
        try (MappingIterator<Map<String, String>> it = new CsvMapper()
                .readerForMapOf(String.class)
                .with(CsvSchema.emptySchema().withHeader())
                .readValues(file.toFile())) {
            int line = 1;
            while (it.hasNext()) {
                Map<String, String> row = it.next();
                line++;
                if (!workload.equals(row.get("workload"))) continue;
                double[] values = new double[131];
                try {
                    for (int c = 0; c <= 130; c++) {
                        String v = row.get(Integer.toString(c));
                        values[c] = v == null || v.isBlank() ? Double.NaN : Double.parseDouble(v);
                    }
                    out.computeIfAbsent(row.get("sc_policy"), k -> new HashMap<>())
                            .put(Long.parseLong(row.get("seed")), values);
                } catch (NumberFormatException | NullPointerException ex) {
                    throw new IllegalArgumentException(file + ":" + line + ": bad number (" + ex.getMessage() + ")");
                }
            }
        } catch (IOException ex) {
            throw new UncheckedIOException(file + ": " + ex.getMessage(), ex);
        }
        return out;
    }

    /** A Markdown table: policy, requested %, seeds, GRAR ours/simulator/diff, fragmentation % ours/simulator/diff, goal met. */
    public static String markdown(List<Row> rows) {
        StringBuilder b = new StringBuilder();
        b.append(
                "| policy | requested | seeds | GRAR | GRAR sim | dGRAR | frag % | frag % sim | dfrag | within goal |\n");
        b.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
        for (Row r : rows) {
            b.append(String.format(
                    Locale.ROOT,
                    "| %s | %.0f%% | %d | %.4f | %.4f | %+.4f | %.2f | %.2f | %+.2f | %s |%n",
                    r.policy(),
                    100 * r.requested(),
                    r.seeds(),
                    r.grar(),
                    r.simulatorGrar(),
                    r.grarDiff(),
                    r.fragPercent(),
                    r.simulatorFragPercent(),
                    r.fragDiff(),
                    r.seeds() == 0 ? "n/a" : r.withinGoal() ? "yes" : "no"));
        }
        return b.toString();
    }
}
