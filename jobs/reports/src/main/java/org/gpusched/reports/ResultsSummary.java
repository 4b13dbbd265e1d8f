package org.gpusched.reports;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.csv.CsvMapper;
import com.fasterxml.jackson.dataformat.csv.CsvSchema;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * The markdown summary of the experiment CSVs that {@code bin/reproduce-results} writes (main, milp, controllers,
 * dispatch, noise and tight .csv, one row per run): cost reductions against the best queue baseline, the optimizers
 * against each other, tardiness and optimizer time, the exact MILP's gaps, K controllers, dispatch rules, noise, tight
 * due dates and, given the generated instances, the cost ceilings of the hierarchical scenarios. Every number is a mean
 * over the instances that finished (n says how many), with min..max where it matters; a cell whose runs did not finish
 * is left empty ("-"). Means are exact sums rounded once and numbers are rounded half-even on their exact binary value,
 * so the tables do not depend on the order of the rows.
 */
public final class ResultsSummary {
    private ResultsSummary() {}

    static final List<String> BASELINES = List.of("fifo", "edf", "priority");
    static final List<String> SCENARIOS = List.of("andreas-small", "andreas-large", "hierarchical");
    /** The same queues with the older configuration rule (all GPUs of the fastest type). */
    static final List<String> FASTEST_BASELINES = List.of("fifo-fastest", "edf-fastest", "priority-fastest");

    static final List<String> POLICIES = List.of(
            "fifo",
            "edf",
            "priority",
            "fifo-fastest",
            "edf-fastest",
            "priority-fastest",
            "greedy",
            "andreas-rg",
            "rg-ls");
    static final List<String> HIERARCHICAL = List.of("hierarchical", "hierarchical-tight", "hierarchical-tight-busy");

    /** One comparison instance: scenario, N and instance seed. */
    record Instance(String scenario, int nodes, int seed) {}

    /** Rows of one CSV; a missing file has none. */
    static List<Map<String, String>> load(Path results, String name) {
        Path file = results.resolve(name + ".csv");
        if (!Files.isRegularFile(file)) return List.of();
        List<Map<String, String>> rows = new ArrayList<>();
        try (MappingIterator<Map<String, String>> it = new CsvMapper()
                .readerForMapOf(String.class)
                .with(CsvSchema.emptySchema().withHeader())
                .readValues(file.toFile())) {
            while (it.hasNextValue()) rows.add(it.nextValue());
        } catch (IOException | RuntimeException e) {
            throw new ReportInputException(file + ": not a results CSV: " + e.getMessage());
        }
        return rows;
    }

    /** Instance -> policy -> row, in the order the instances first appear (a later row of a policy replaces it). */
    static Map<Instance, Map<String, Map<String, String>>> instances(List<Map<String, String>> rows) {
        Map<Instance, Map<String, Map<String, String>>> by = new LinkedHashMap<>();
        for (Map<String, String> r : rows)
            by.computeIfAbsent(instance(r), k -> new LinkedHashMap<>()).put(r.get("policy"), r);
        return by;
    }

    private static Instance instance(Map<String, String> r) {
        return new Instance(
                r.get("scenario"),
                Integer.parseInt(r.get("nodes").trim()),
                Integer.parseInt(r.get("instanceSeed").trim()));
    }

    static double cost(Map<String, String> r) {
        return num(r, "totalCost");
    }

    static double num(Map<String, String> r, String column) {
        return Double.parseDouble(r.get(column).trim());
    }

    /** How much cheaper {@code better} is than {@code worse}, in % of {@code worse}. */
    static double pct(double better, double worse) {
        return worse <= 0 ? Double.NaN : 100.0 * (worse - better) / worse;
    }

    private static boolean hasAll(Map<String, ?> pol, List<String> policies) {
        return pol.keySet().containsAll(policies);
    }

    private static double bestBaseline(Map<String, Map<String, String>> pol) {
        return BASELINES.stream().mapToDouble(b -> cost(pol.get(b))).min().orElseThrow();
    }

    /** The mean, as Python's statistics.mean: the exact sum of the doubles divided once. */
    static double mean(List<Double> values) {
        BigDecimal sum = BigDecimal.ZERO;
        for (double v : values) sum = sum.add(new BigDecimal(v));
        return sum.divide(BigDecimal.valueOf(values.size()), MathContext.DECIMAL128)
                .doubleValue();
    }

    /** {@code x} with {@code digits} decimals, rounded half-even on its exact value; "+" for {@code plus}. */
    static String fixed(double x, int digits, boolean plus) {
        if (Double.isNaN(x)) return plus ? "+nan" : "nan";
        boolean negative = x < 0 || (x == 0 && 1 / x < 0);
        String abs = new BigDecimal(Math.abs(x))
                .setScale(digits, RoundingMode.HALF_EVEN)
                .toPlainString();
        return (negative ? "-" : plus ? "+" : "") + abs;
    }

    /** "-" for no value; "+1.2" for one; "+1.2 (+0.5..+2.0)": mean, min and max of several (NaNs left out). */
    static String fmt(List<Double> values) {
        List<Double> v = values.stream().filter(d -> !Double.isNaN(d)).toList();
        if (v.isEmpty()) return "-";
        if (v.size() == 1) return fixed(v.get(0), 1, true);
        double min = v.stream().mapToDouble(Double::doubleValue).min().orElseThrow();
        double max = v.stream().mapToDouble(Double::doubleValue).max().orElseThrow();
        return fixed(mean(v), 1, true) + " (" + fixed(min, 1, true) + ".." + fixed(max, 1, true) + ")";
    }

    private static <T> double meanOf(List<T> xs, Function<T, Double> f) {
        return mean(xs.stream().map(f).toList());
    }

    /**
     * The summary of {@code results}; {@code instances} (bin/reproduce-results' generated instances, or null) adds the
     * cost ceilings of the hierarchical scenarios.
     */
    public static String markdown(Path results, Path instances) {
        StringBuilder md = new StringBuilder();
        Consumer out = line -> md.append(line).append('\n');
        var main = instances(load(results, "main"));
        List<Integer> ns = new ArrayList<>(
                new TreeSet<>(main.keySet().stream().map(Instance::nodes).toList()));
        out.line("# Results summary (generated by gpusched report --summary; do not edit)");
        out.line("");
        out.line("Cells: mean over instances (min..max); n = finished instances (seeds). `+` = cheaper.");
        out.line("");

        reductionTable(
                out, main, ns, "## Cost reduction vs the best of fifo/edf/priority (% of its total cost)", BASELINES);
        if (main.values().stream().anyMatch(pol -> hasAll(pol, FASTEST_BASELINES)))
            reductionTable(
                    out,
                    main,
                    ns,
                    "## Cost reduction vs the best of fifo-fastest/edf-fastest/priority-fastest (the older baseline rule)",
                    FASTEST_BASELINES);
        settings(results, main, out);

        out.line("## andreas-rg vs each baseline (% cheaper), mean over instances");
        out.line("");
        out.line("| scenario | N | vs fifo | vs edf | vs priority | n |");
        out.line("|---|---|---|---|---|---|");
        for (String s : SCENARIOS)
            for (int n : ns) {
                var sel = select(main, s, n, pol -> pol.containsKey("andreas-rg") && hasAll(pol, BASELINES));
                if (sel.isEmpty()) continue;
                List<String> cells = new ArrayList<>();
                for (String b : BASELINES)
                    cells.add(fmt(sel.stream()
                            .map(p -> pct(cost(p.get("andreas-rg")), cost(p.get(b))))
                            .toList()));
                out.line("| " + s + " | " + n + " | " + join(cells) + " | " + sel.size() + " |");
            }
        out.line("");

        out.line("## Randomized greedy vs greedy, local search vs randomized greedy (% cheaper)");
        out.line("");
        out.line("| scenario | N | andreas-rg vs greedy | rg-ls vs andreas-rg | rg-ls vs greedy | n |");
        out.line("|---|---|---|---|---|---|");
        for (String s : SCENARIOS)
            for (int n : ns) {
                var sel = select(main, s, n, pol -> hasAll(pol, List.of("greedy", "andreas-rg", "rg-ls")));
                if (sel.isEmpty()) continue;
                out.line("| " + s + " | " + n + " | " + fmt(versus(sel, "andreas-rg", "greedy")) + " | "
                        + fmt(versus(sel, "rg-ls", "andreas-rg")) + " | " + fmt(versus(sel, "rg-ls", "greedy")) + " | "
                        + sel.size() + " |");
            }
        out.line("");

        out.line("## Tardy jobs and optimizer time (means over instances)");
        out.line("");
        out.line(
                "| scenario | N | policy | total cost | tardy jobs | jobs | mean JCT s | opt p50 ms | opt p99 ms | n |");
        out.line("|---|---|---|---|---|---|---|---|---|---|");
        for (String s : SCENARIOS)
            for (int n : ns)
                for (String p : POLICIES) {
                    List<Map<String, String>> sel = select(main, s, n, pol -> pol.containsKey(p)).stream()
                            .map(pol -> pol.get(p))
                            .toList();
                    if (sel.isEmpty()) continue;
                    Function<String, Double> m = k -> meanOf(sel, r -> num(r, k));
                    out.line("| " + s + " | " + n + " | " + p + " | " + fixed(m.apply("totalCost"), 3, false) + " | "
                            + fixed(m.apply("tardyJobs"), 1, false) + " | " + fixed(m.apply("jobs"), 0, false) + " | "
                            + fixed(m.apply("meanJctSeconds"), 0, false) + " | "
                            + fixed(m.apply("optimizerMedianMs"), 3, false) + " | "
                            + fixed(m.apply("optimizerP99Ms"), 3, false) + " | " + sel.size() + " |");
                }
        out.line("");

        milp(results, out);
        controllers(results, main, out);
        dispatch(results, out);
        noise(results, main, out);
        tight(results, out);
        if (instances != null && Files.isDirectory(instances)) ceilings(instances, out);
        audit(results, out);
        return md.toString();
    }

    /** Per scenario and policy, the reduction vs the best of {@code baselines} on the same instance, by N. */
    private static void reductionTable(
            Consumer out,
            Map<Instance, Map<String, Map<String, String>>> main,
            List<Integer> ns,
            String title,
            List<String> baselines) {
        out.line(title);
        out.line("");
        out.line("| scenario | policy | " + join(ns.stream().map(n -> "N=" + n).toList()) + " |");
        out.line("|---|---|" + "---|".repeat(ns.size()));
        for (String s : SCENARIOS)
            for (String p : POLICIES) {
                List<String> cells = new ArrayList<>();
                for (int n : ns) {
                    List<Double> vals = new ArrayList<>();
                    main.forEach((k, pol) -> {
                        if (!k.scenario().equals(s) || k.nodes() != n || !pol.containsKey(p) || !hasAll(pol, baselines))
                            return;
                        double best = baselines.stream()
                                .mapToDouble(b -> cost(pol.get(b)))
                                .min()
                                .orElseThrow();
                        vals.add(pct(cost(pol.get(p)), best));
                    });
                    cells.add(vals.isEmpty() ? "-" : fmt(vals) + " n=" + vals.size());
                }
                out.line("| " + s + " | " + p + " | " + join(cells) + " |");
            }
        out.line("");
    }

    /**
     * The runs of other settings (energy.csv, freemoves.csv, cheapmoves.csv) instance by instance, beside the default's
     * total cost (main.csv; for energy, freemoves.csv's andreas-large instance of the same N and seed).
     */
    private static void settings(Path results, Map<Instance, Map<String, Map<String, String>>> main, Consumer out) {
        var freemoves = instances(load(results, "freemoves"));
        String[][] tables = {
            {
                "energy",
                "Data-sheet node power (`generate --energy datasheet`), papers' setting: total cost, and freemoves' (measured power)",
                "andreas-large-datasheet"
            },
            {
                "freemoves",
                "The papers' setting (`--stability paper --move-overhead 0 --snapshot-interval 0`): total cost, and the default's",
                null
            },
            {
                "cheapmoves",
                "Cheap moves (`--move-overhead 60 --snapshot-interval 60`): total cost, and the default's",
                null
            }
        };
        for (String[] t : tables) {
            var rows = instances(load(results, t[0]));
            if (rows.isEmpty()) continue;
            out.line("## " + t[1]);
            out.line("");
            out.line("| scenario | N | seed | policy | total cost | tardy jobs | main (default) total cost |");
            out.line("|---|---|---|---|---|---|---|");
            List<Instance> keys = new ArrayList<>(rows.keySet());
            keys.sort(Comparator.comparing(Instance::scenario)
                    .thenComparingInt(Instance::nodes)
                    .thenComparingInt(Instance::seed));
            for (Instance k : keys) {
                Map<String, Map<String, String>> ref = t[2] == null
                        ? main.getOrDefault(k, Map.of())
                        : freemoves.getOrDefault(new Instance("andreas-large", k.nodes(), k.seed()), Map.of());
                rows.get(k).forEach((p, r) -> {
                    String m = ref.containsKey(p) ? fixed(cost(ref.get(p)), 3, false) : "-";
                    out.line("| " + k.scenario() + " | " + k.nodes() + " | " + k.seed() + " | " + p + " | "
                            + fixed(cost(r), 3, false) + " | " + r.get("tardyJobs") + " | " + m + " |");
                });
            }
            out.line("");
        }
    }

    /** One line of the summary. */
    @FunctionalInterface
    interface Consumer {
        void line(String line);
    }

    private static String join(List<String> cells) {
        return String.join(" | ", cells);
    }

    private static List<Map<String, Map<String, String>>> select(
            Map<Instance, Map<String, Map<String, String>>> by,
            String scenario,
            int n,
            Predicate<Map<String, Map<String, String>>> keep) {
        List<Map<String, Map<String, String>>> sel = new ArrayList<>();
        by.forEach((k, pol) -> {
            if (k.scenario().equals(scenario) && k.nodes() == n && keep.test(pol)) sel.add(pol);
        });
        return sel;
    }

    private static List<Double> versus(List<Map<String, Map<String, String>>> sel, String better, String worse) {
        return sel.stream()
                .map(p -> pct(cost(p.get(better)), cost(p.get(worse))))
                .toList();
    }

    private static void milp(Path results, Consumer out) {
        List<Map<String, String>> rows = load(results, "milp");
        if (rows.isEmpty()) return;
        out.line("## Exact per-decision MILP on the smallest instances (total cost; gap = % above milp)");
        out.line("");
        out.line("A run marked `!` left jobs unfinished: its cost leaves their work out and is not comparable.");
        out.line("");
        out.line("| instance | policy | total cost | gap to milp % | tardy | completed | opt p50 ms | opt p99 ms |");
        out.line("|---|---|---|---|---|---|---|---|");
        var by = instances(rows);
        List<Instance> keys = new ArrayList<>(by.keySet());
        keys.sort(Comparator.comparing(Instance::scenario)
                .thenComparingInt(Instance::nodes)
                .thenComparingInt(Instance::seed));
        for (Instance k : keys) {
            var pol = by.get(k);
            Map<String, String> milp = pol.get("milp");
            Double ref = milp != null && milp.get("completedJobs").equals(milp.get("jobs")) ? cost(milp) : null;
            pol.forEach((p, r) -> {
                String gap = ref == null || ref <= 0 ? "-" : fixed(100.0 * (cost(r) - ref) / ref, 2, true);
                String done = r.get("completedJobs") + "/" + r.get("jobs")
                        + (r.get("completedJobs").equals(r.get("jobs")) ? "" : " !");
                out.line("| " + k.scenario() + " N=" + k.nodes() + " seed " + k.seed() + " | " + p + " | "
                        + fixed(cost(r), 4, false) + " | " + gap + " | " + r.get("tardyJobs") + " | " + done + " | "
                        + fixed(num(r, "optimizerMedianMs"), 2, false) + " | "
                        + fixed(num(r, "optimizerP99Ms"), 2, false)
                        + " |");
            });
        }
        out.line("");
    }

    private static void controllers(Path results, Map<Instance, Map<String, Map<String, String>>> main, Consumer out) {
        var ctl = instances(load(results, "controllers"));
        if (ctl.isEmpty()) return;
        out.line("## K local controllers (K = N/5) vs centralized (K = 1): andreas-rg total cost, % above centralized");
        out.line("");
        out.line(
                "| scenario | N | K | andreas-rg K vs K=1 (% worse) | reduction vs best baseline at K (same K baselines) | n |");
        out.line("|---|---|---|---|---|---|");
        Set<Integer> ns =
                new TreeSet<>(ctl.keySet().stream().map(Instance::nodes).toList());
        for (String s : SCENARIOS)
            for (int n : ns) {
                List<Double> worse = new ArrayList<>(), red = new ArrayList<>();
                String k = null;
                for (var e : ctl.entrySet()) {
                    Instance i = e.getKey();
                    var pol = e.getValue();
                    if (!i.scenario().equals(s) || i.nodes() != n || !pol.containsKey("andreas-rg")) continue;
                    k = pol.get("andreas-rg").get("controllers");
                    Map<String, String> central = main.getOrDefault(i, Map.of()).get("andreas-rg");
                    if (central != null) worse.add(-pct(cost(pol.get("andreas-rg")), cost(central)));
                    if (hasAll(pol, BASELINES)) red.add(pct(cost(pol.get("andreas-rg")), bestBaseline(pol)));
                }
                if (!worse.isEmpty() || !red.isEmpty())
                    out.line("| " + s + " | " + n + " | " + k + " | " + fmt(worse) + " | " + fmt(red) + " | "
                            + Math.max(worse.size(), red.size()) + " |");
            }
        out.line("");
    }

    private static void dispatch(Path results, Consumer out) {
        List<Map<String, String>> rows = load(results, "dispatch");
        if (rows.isEmpty()) return;
        // instance -> "central" (K = 1, whatever its rule) or the dispatch rule -> row
        Map<Instance, Map<String, Map<String, String>>> runs = new LinkedHashMap<>();
        for (Map<String, String> r : rows)
            runs.computeIfAbsent(instance(r), k -> new LinkedHashMap<>())
                    .put(r.get("controllers").equals("1") ? "central" : r.get("dispatch"), r);
        List<String> rules = List.of("round-robin", "gpu-weighted");
        out.line(
                "## K = N/5 controllers by dispatch rule (`--dispatch`): andreas-rg total cost, % above centralized (K = 1)");
        out.line("");
        out.line("All three columns from one build (stage dispatchN). Tardy: mean tardy jobs per instance.");
        out.line("");
        out.line("| scenario | N | K | centralized cost (tardy) | "
                + join(rules.stream().map(d -> d + " % vs K=1 (tardy)").toList()) + " | n |");
        out.line("|---|---|---|---|" + "---|".repeat(rules.size()) + "---|");
        for (String s : SCENARIOS) {
            Set<Integer> ns = new TreeSet<>();
            for (Instance i : runs.keySet()) if (i.scenario().equals(s)) ns.add(i.nodes());
            for (int n : ns) {
                var sel = select(runs, s, n, v -> v.containsKey("central") && hasAll(v, rules));
                if (sel.isEmpty()) continue;
                String k = sel.get(0).get(rules.get(0)).get("controllers");
                List<String> cells = new ArrayList<>();
                for (String d : rules)
                    cells.add(fmt(sel.stream()
                                    .map(v -> -pct(cost(v.get(d)), cost(v.get("central"))))
                                    .toList())
                            + " (" + fixed(meanOf(sel, v -> num(v.get(d), "tardyJobs")), 1, false) + ")");
                out.line("| " + s + " | " + n + " | " + k + " | "
                        + fixed(meanOf(sel, v -> cost(v.get("central"))), 2, false) + " ("
                        + fixed(meanOf(sel, v -> num(v.get("central"), "tardyJobs")), 1, false) + ") | " + join(cells)
                        + " | " + sel.size() + " |");
            }
        }
        out.line("");
    }

    private static void noise(Path results, Map<Instance, Map<String, Map<String, String>>> main, Consumer out) {
        var noise = instances(load(results, "noise"));
        if (noise.isEmpty()) return;
        out.line(
                "## Prediction noise 10% (real time = predicted x U[0.9, 1.1]): reduction vs best baseline, with and without noise");
        out.line("");
        out.line("| scenario | N | policy | reduction, noise 0.1 | reduction, no noise (main) | n |");
        out.line("|---|---|---|---|---|---|");
        Set<Integer> ns =
                new TreeSet<>(noise.keySet().stream().map(Instance::nodes).toList());
        for (String s : SCENARIOS)
            for (int n : ns)
                for (String p : List.of("greedy", "andreas-rg")) {
                    List<Double> a = new ArrayList<>(), b = new ArrayList<>();
                    noise.forEach((i, pol) -> {
                        if (!i.scenario().equals(s) || i.nodes() != n || !pol.containsKey(p) || !hasAll(pol, BASELINES))
                            return;
                        a.add(pct(cost(pol.get(p)), bestBaseline(pol)));
                        var m = main.getOrDefault(i, Map.of());
                        if (m.containsKey(p) && hasAll(m, BASELINES)) b.add(pct(cost(m.get(p)), bestBaseline(m)));
                    });
                    if (!a.isEmpty())
                        out.line("| " + s + " | " + n + " | " + p + " | " + fmt(a) + " | " + fmt(b) + " | " + a.size()
                                + " |");
                }
        out.line("");
    }

    private static void tight(Path results, Consumer out) {
        var tight = instances(load(results, "tight"));
        if (tight.isEmpty()) return;
        out.line("## hierarchical-tight: due dates U[min t, 0.25 max t] after submission (paper: 2 max t)");
        out.line("");
        out.line(
                "`hierarchical-tight` at the protocol's load (mean gap 45,000 x 5 / N s); `hierarchical-tight-busy` at 5x it "
                        + "(45,000 / N s, the thesis's rule). Reduction vs the best of fifo/edf/priority, % of its cost; tardy jobs and "
                        + "total cost are means over instances.");
        out.line("");
        List<Integer> tns = new ArrayList<>(
                new TreeSet<>(tight.keySet().stream().map(Instance::nodes).toList()));
        out.line("| scenario | policy | "
                + join(tns.stream().map(n -> "N=" + n + " reduction").toList()) + " | "
                + join(tns.stream().map(n -> "N=" + n + " cost (tardy)").toList()) + " |");
        out.line("|---|---|" + "---|".repeat(2 * tns.size()));
        for (String s : List.of("hierarchical-tight", "hierarchical-tight-busy"))
            for (String p : List.of("fifo", "edf", "priority", "greedy", "andreas-rg", "rg-ls")) {
                List<String> red = new ArrayList<>(), cst = new ArrayList<>();
                for (int n : tns) {
                    var sel = select(tight, s, n, pol -> pol.containsKey(p) && hasAll(pol, BASELINES));
                    red.add(
                            sel.isEmpty()
                                    ? "-"
                                    : fmt(sel.stream()
                                                    .map(pol -> pct(cost(pol.get(p)), bestBaseline(pol)))
                                                    .toList())
                                            + " n=" + sel.size());
                    cst.add(
                            sel.isEmpty()
                                    ? "-"
                                    : fixed(meanOf(sel, pol -> cost(pol.get(p))), 1, false) + " ("
                                            + fixed(meanOf(sel, pol -> num(pol.get(p), "tardyJobs")), 1, false) + ")");
                }
                out.line("| " + s + " | " + p + " | " + join(red) + " | " + join(cst) + " |");
            }
        out.line("");
    }

    /**
     * Per instance of a hierarchical scenario (whole VMs billed at one price whatever the busy GPUs): the total cost if
     * every job ran alone on its fastest configuration (the queue baselines' choice when no job queues: fastest, ties
     * to the cheaper), alone on its cheapest configuration, and on its cheapest GPU share of a fully packed VM (price x
     * time x g / G), without and with the due date (started at submission). No scheduler can beat the packed figure.
     */
    static double[] vmCeilings(Path instance) {
        ObjectMapper json = new ObjectMapper();
        try {
            JsonNode types = new YAMLMapper()
                    .readTree(instance.resolve("cluster.yaml").toFile())
                    .get("nodeTypes");
            double fastest = 0, alone = 0, packed = 0, packedOnTime = 0;
            try (BufferedReader in = Files.newBufferedReader(instance.resolve("trace.jsonl"), StandardCharsets.UTF_8)) {
                String line;
                while ((line = in.readLine()) != null) {
                    JsonNode j = json.readTree(line);
                    List<double[]> cfgs = new ArrayList<>(); // time, cost alone, cost packed
                    for (Iterator<Map.Entry<String, JsonNode>> v =
                                    j.get("times").fields();
                            v.hasNext(); ) {
                        var e = v.next();
                        JsonNode type = types.get(e.getKey());
                        JsonNode prices = type.get("costPerHour");
                        double full = prices.get(prices.size() - 1).asDouble();
                        for (Iterator<Map.Entry<String, JsonNode>> g =
                                        e.getValue().fields();
                                g.hasNext(); ) {
                            var ge = g.next();
                            int gpus = Integer.parseInt(ge.getKey());
                            double t = ge.getValue().asDouble();
                            cfgs.add(new double[] {
                                t,
                                prices.get(gpus).asDouble() * t / 3600,
                                full * t / 3600 * gpus / type.get("gpus").asDouble()
                            });
                        }
                    }
                    double tMin = cfgs.stream().mapToDouble(c -> c[0]).min().orElseThrow();
                    double window = j.get("due").asDouble() - j.get("submit").asDouble() + 1e-6;
                    fastest += cfgs.stream()
                            .filter(c -> c[0] == tMin)
                            .mapToDouble(c -> c[1])
                            .min()
                            .orElseThrow();
                    alone += cfgs.stream().mapToDouble(c -> c[1]).min().orElseThrow();
                    packed += cfgs.stream().mapToDouble(c -> c[2]).min().orElseThrow();
                    packedOnTime += cfgs.stream()
                            .filter(c -> c[0] <= window)
                            .mapToDouble(c -> c[2])
                            .min()
                            .orElseThrow();
                }
            }
            return new double[] {fastest, alone, packed, packedOnTime};
        } catch (IOException e) {
            throw new UncheckedIOException(instance + ": " + e.getMessage(), e);
        } catch (RuntimeException e) {
            throw new ReportInputException(instance + ": not a generated instance (cluster.yaml, trace.jsonl): " + e);
        }
    }

    private record Ceiling(String scenario, int nodes, double[] costs) {}

    private static void ceilings(Path instances, Consumer out) {
        List<Ceiling> rows = new ArrayList<>();
        List<Path> dirs;
        try (var list = Files.list(instances)) {
            dirs = list.sorted(Comparator.comparing(p -> p.getFileName().toString()))
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        for (Path dir : dirs) {
            String name = dir.getFileName().toString();
            int cut = name.lastIndexOf("-n");
            if (cut < 0) continue;
            String scenario = name.substring(0, cut);
            if (HIERARCHICAL.contains(scenario) && Files.exists(dir.resolve("trace.jsonl"))) {
                int nodes = Integer.parseInt(name.substring(cut + 2).split("-s", 2)[0]);
                rows.add(new Ceiling(scenario, nodes, vmCeilings(dir)));
            }
        }
        if (rows.isEmpty()) return;
        out.line(
                "## Cost ceilings of the hierarchical instances: how much cheaper than the baselines any schedule can be");
        out.line("");
        out.line(
                "Reduction vs every job alone on its fastest configuration (the baselines' choice when no job queues), % "
                        + "(mean over instances, min..max). `alone`: each job alone on its cheapest VM configuration; `packed`: each "
                        + "job pays only its GPU share of a fully used VM (the best any sharing schedule can do); `packed, on time`: "
                        + "the same among configurations that meet the due date if started at submission.");
        out.line("");
        out.line("| scenario | N | alone | packed | packed, on time | n |");
        out.line("|---|---|---|---|---|---|");
        for (String scenario : HIERARCHICAL) {
            Set<Integer> ns = new TreeSet<>();
            for (Ceiling r : rows) if (r.scenario().equals(scenario)) ns.add(r.nodes());
            for (int n : ns) {
                List<double[]> sel = rows.stream()
                        .filter(r -> r.scenario().equals(scenario) && r.nodes() == n)
                        .map(Ceiling::costs)
                        .toList();
                out.line("| " + scenario + " | " + n + " | "
                        + fmt(sel.stream().map(c -> pct(c[1], c[0])).toList()) + " | "
                        + fmt(sel.stream().map(c -> pct(c[2], c[0])).toList()) + " | "
                        + fmt(sel.stream().map(c -> pct(c[3], c[0])).toList()) + " | " + sel.size() + " |");
            }
        }
        out.line("");
    }

    private static void audit(Path results, Consumer out) {
        List<Map<String, String>> audits = new ArrayList<>();
        for (String name : List.of("main", "milp", "controllers", "dispatch", "noise", "tight"))
            audits.addAll(load(results, name));
        if (audits.isEmpty()) return;
        List<String> incomplete = audits.stream()
                .filter(r -> !r.get("completedJobs").equals(r.get("jobs")))
                .map(r -> r.get("scenario") + " N=" + r.get("nodes") + " seed " + r.get("instanceSeed") + " "
                        + r.get("policy"))
                .toList();
        Set<List<String>> violating = new HashSet<>();
        for (Map<String, String> r : audits) {
            String v = r.get("auditViolations");
            if (!"0".equals(v) && !"".equals(v))
                violating.add(java.util.Arrays.asList(
                        r.get("scenario"),
                        r.get("nodes"),
                        r.get("instanceSeed"),
                        r.get("controllers"),
                        r.get("dispatch"),
                        r.get("noise")));
        }
        out.line("Audit: " + audits.size()
                + " run directories, each checked by the independent auditor (gpusched validate) inside compare; "
                + "comparisons reporting violations: " + violating.size() + "; runs with unfinished jobs (INCOMPLETE): "
                + (incomplete.isEmpty() ? "none" : String.join(", ", incomplete)) + ".");
    }
}
