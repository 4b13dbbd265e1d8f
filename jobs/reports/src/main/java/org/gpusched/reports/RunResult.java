package org.gpusched.reports;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.gpusched.rundir.JsonLines;
import org.gpusched.rundir.RunLayout;

/**
 * What a report needs from one run directory: the policy, seed and metrics.json totals, the cumulative real cost over
 * time (execution accrued at costPerHour[type][busy GPUs] while a node hosts a job, tardiness added when a late job
 * completes), and, for runs small enough to read, every placement segment for the Gantt chart.
 */
public final class RunResult {
    /** One stretch of a job on a node: [start, end) with its GPUs. */
    public record Segment(String job, String node, String type, int gpus, double start, double end) {}

    /** Runs with at most this many jobs keep their segments (a Gantt chart of more is unreadable). */
    public static final int GANTT_MAX_JOBS = 60;

    static final int MAX_POINTS = 2000;
    private static final ObjectMapper JSON = new ObjectMapper();

    public final Path dir;
    public final String policy;
    public final long seed;
    public final Map<String, Double> metrics;
    public final double[] costTimes;
    public final double[] costValues;
    public final List<Segment> segments;
    public final List<String> nodeOrder;
    public final Map<String, Integer> nodeGpus;
    /** Jobs in jobs.jsonl: a run that completed fewer left work undone, and its cost is not comparable. */
    public final int jobCount;
    /** The run's settings that may differ between compared runs, by the name a label shows (K, iterations, noise, ...). */
    public final Map<String, String> settings;
    /** The unit of the cluster file's prices as it names it (run.json's currency: EUR, USD, ...), or null. */
    public final String currency;
    /** What sets this run apart from the others of its report besides policy and seed ("K=4 noise=0.2"); see {@link #distinguish}. */
    private String variant = "";

    /** run.json fields a comparison may vary, by their short name; the order labels list them in. */
    private static final Map<String, String> SETTING_FIELDS = new LinkedHashMap<>();

    static {
        SETTING_FIELDS.put("K", "/controllers");
        SETTING_FIELDS.put("dispatch", "/dispatch");
        SETTING_FIELDS.put("iterations", "/maxIterations");
        SETTING_FIELDS.put("noise", "/noise");
        SETTING_FIELDS.put("period", "/periodSeconds");
        SETTING_FIELDS.put("mode", "/mode");
        SETTING_FIELDS.put("stability", "/stability");
        SETTING_FIELDS.put("scope", "/optimizerScope");
        SETTING_FIELDS.put("rho", "/objective/rho");
        SETTING_FIELDS.put("mu", "/objective/mu");
        SETTING_FIELDS.put("horizon", "/objective/horizonSeconds");
        SETTING_FIELDS.put("trace", "/trace");
        SETTING_FIELDS.put("cluster", "/cluster");
        SETTING_FIELDS.put("nodeEvents", "/nodeEvents");
        SETTING_FIELDS.put("source", "/source");
    }

    private RunResult(
            Path dir,
            String policy,
            long seed,
            Map<String, Double> metrics,
            double[] costTimes,
            double[] costValues,
            List<Segment> segments,
            List<String> nodeOrder,
            Map<String, Integer> nodeGpus,
            int jobCount,
            Map<String, String> settings,
            String currency) {
        this.dir = dir;
        this.policy = policy;
        this.seed = seed;
        this.metrics = metrics;
        this.costTimes = costTimes;
        this.costValues = costValues;
        this.segments = segments;
        this.nodeOrder = nodeOrder;
        this.nodeGpus = nodeGpus;
        this.jobCount = jobCount;
        this.settings = settings;
        this.currency = currency;
    }

    /** True when every job of the run completed (metrics.json completedJobs equals the jobs in jobs.jsonl). */
    public boolean complete() {
        return metric("completedJobs") == jobCount;
    }

    public double metric(String name) {
        Double v = metrics.get(name);
        return v == null ? Double.NaN : v;
    }

    /** The policy and what else sets this run apart in its report ("andreas-rg K=4"): a chart series, a table row. */
    public String name() {
        return variant.isEmpty() ? policy : policy + " " + variant;
    }

    /** {@link #name()} and the seed. */
    public String label() {
        return name() + " (seed " + seed + ")";
    }

    /** The settings that set this run apart from the others of its report ("K=4 noise=0.2"), empty when only policy and seed do. */
    public String variant() {
        return variant;
    }

    /**
     * Gives each run the settings in which the runs differ (K, iterations, noise, period, trace, ...) as its
     * {@link #variant()}, so that runs sharing policy and seed are told apart; runs alike in all of them are told
     * apart by their directory.
     */
    public static void distinguish(List<RunResult> runs) {
        List<String> differing = new ArrayList<>();
        for (String key : SETTING_FIELDS.keySet()) {
            if (runs.stream()
                            .map(r -> r.settings.getOrDefault(key, ""))
                            .distinct()
                            .count()
                    > 1) differing.add(key);
        }
        for (RunResult r : runs) {
            StringBuilder v = new StringBuilder();
            for (String key : differing) {
                String value = r.settings.getOrDefault(key, "-");
                if (key.equals("trace") || key.equals("cluster") || key.equals("nodeEvents"))
                    value = shortPath(value, key, runs);
                if (v.length() > 0) v.append(' ');
                v.append(key).append('=').append(value);
            }
            r.variant = v.toString();
        }
        Map<String, Long> same = new HashMap<>();
        for (RunResult r : runs) same.merge(r.label(), 1L, Long::sum);
        List<RunResult> alike =
                runs.stream().filter(r -> same.get(r.label()) > 1).toList();
        // the last path elements that tell them apart: PARENT/NAME, or more of the path when those do not
        Path[] paths =
                alike.stream().map(r -> r.dir.toAbsolutePath().normalize()).toArray(Path[]::new);
        long distinct = Arrays.stream(paths).distinct().count();
        int depth = 2;
        while (depth < 64 && distinctTails(paths, depth) < distinct) depth++;
        for (int i = 0; i < alike.size(); i++) {
            RunResult r = alike.get(i);
            r.variant = (r.variant.isEmpty() ? "" : r.variant + " ") + "dir=" + tail(paths[i], depth);
        }
        // the same directory given twice would still share a label: each run's series and section keeps its own
        Map<String, Integer> seen = new HashMap<>();
        for (RunResult r : runs) {
            int n = seen.merge(r.label(), 1, Integer::sum);
            if (n > 1) r.variant = (r.variant.isEmpty() ? "" : r.variant + " ") + "#" + n;
        }
    }

    private static long distinctTails(Path[] paths, int n) {
        return Arrays.stream(paths).map(p -> tail(p, n)).distinct().count();
    }

    /** The last {@code n} elements of a path ("parent/name"), the whole path when it has no more. */
    private static String tail(Path p, int n) {
        int count = p.getNameCount();
        return count <= n ? p.toString() : p.subpath(count - n, count).toString();
    }

    /** A file setting by its file name when that tells the runs apart, else as recorded. */
    private static String shortPath(String value, String key, List<RunResult> runs) {
        long paths = runs.stream()
                .map(r -> r.settings.getOrDefault(key, ""))
                .distinct()
                .count();
        long names = runs.stream()
                .map(r -> fileName(r.settings.getOrDefault(key, "")))
                .distinct()
                .count();
        return names == paths ? fileName(value) : value;
    }

    private static String fileName(String path) {
        Path name = path.isEmpty() ? null : Path.of(path).getFileName();
        return name == null ? path : name.toString();
    }

    private static final class NodeState {
        final Map<String, Integer> jobs = new LinkedHashMap<>();
        String type;
        int busy;
        double rate;
    }

    private record Open(String node, String type, int gpus, double start) {}

    public static RunResult read(Path dir) {
        JsonNode run = tree(dir.resolve("run.json"));
        JsonNode metricsNode = tree(dir.resolve("metrics.json"));
        String policy = run.hasNonNull("policy")
                ? run.get("policy").asText()
                : metricsNode.path("policy").asText(dir.getFileName().toString());
        long seed = run.path("seed").asLong(0);
        Map<String, Double> metrics = new LinkedHashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = metricsNode.fields(); it.hasNext(); ) {
            var e = it.next();
            if (e.getValue().isNumber()) metrics.put(e.getKey(), e.getValue().asDouble());
        }
        if (!metrics.containsKey("totalCost"))
            throw new ReportInputException(dir.resolve("metrics.json") + ": totalCost is missing");

        Map<String, double[]> rates = new HashMap<>();
        JsonNode types = run.path("nodeTypes");
        for (Iterator<Map.Entry<String, JsonNode>> it = types.fields(); it.hasNext(); ) {
            var e = it.next();
            JsonNode c = e.getValue().path("costPerHour");
            double[] r = new double[c.size()];
            for (int i = 0; i < r.length; i++) r[i] = c.get(i).asDouble();
            rates.put(e.getKey(), r);
        }
        List<String> nodeOrder = new ArrayList<>();
        Map<String, Integer> nodeGpus = new LinkedHashMap<>();
        for (JsonNode n : run.path("nodes")) {
            String id = n.path("id").asText();
            nodeOrder.add(id);
            int gpus = n.path("gpus").asInt(0);
            if (gpus == 0 && n.hasNonNull("types")) {
                for (JsonNode t : n.get("types"))
                    gpus = Math.max(gpus, types.path(t.asText()).path("gpus").asInt(0));
            }
            if (gpus == 0)
                for (JsonNode t : types) gpus = Math.max(gpus, t.path("gpus").asInt(0));
            nodeGpus.put(id, gpus);
        }
        Map<String, double[]> jobs = readJobs(dir.resolve(RunLayout.JOBS));
        boolean gantt = jobs.size() <= GANTT_MAX_JOBS;

        CostCurve curve = new CostCurve(rates, jobs, gantt);
        Path decisions = dir.resolve(RunLayout.DECISIONS);
        try {
            JsonLines.forEach(decisions, JSON, ReportInputException::new, (d, where) -> curve.add(d));
        } catch (NoSuchFileException e) {
            throw new ReportInputException(decisions + ": missing");
        } catch (IOException e) {
            throw new ReportInputException(decisions + ": cannot read (" + e.getMessage() + ")");
        }
        int points = curve.points;
        double[] times = curve.times;
        double[] values = curve.values;
        List<Segment> segments = curve.segments;
        int step = Math.max(1, (points + MAX_POINTS - 1) / MAX_POINTS);
        List<Integer> picked = new ArrayList<>();
        for (int i = 0; i < points; i += step) picked.add(i);
        if (points > 0 && picked.get(picked.size() - 1) != points - 1) picked.add(points - 1);
        double[] ct = new double[picked.size()];
        double[] cv = new double[picked.size()];
        for (int i = 0; i < ct.length; i++) {
            ct[i] = times[picked.get(i)];
            cv[i] = values[picked.get(i)];
        }
        Map<String, String> settings = new LinkedHashMap<>();
        SETTING_FIELDS.forEach((name, pointer) -> {
            JsonNode v = run.at(pointer);
            if (v.isValueNode() && !v.isNull())
                settings.put(name, v.isNumber() ? Comparison.number(v.asDouble()) : v.asText());
        });
        return new RunResult(
                dir,
                policy,
                seed,
                metrics,
                ct,
                cv,
                gantt ? segments : List.of(),
                nodeOrder,
                nodeGpus,
                jobs.size(),
                settings,
                run.hasNonNull("currency") ? run.get("currency").asText() : null);
    }

    /** The cumulative real cost over time and the Gantt segments, folded from the decisions in file order. */
    private static final class CostCurve {
        final Map<String, double[]> rates;
        final Map<String, double[]> jobs;
        final boolean gantt;
        final Map<String, NodeState> nodes = new HashMap<>();
        final Map<String, Open> open = new HashMap<>();
        final List<Segment> segments = new ArrayList<>();
        double[] times = new double[1024];
        double[] values = new double[1024];
        int points = 0;
        double cumulative = 0, totalRate = 0, last = 0;

        CostCurve(Map<String, double[]> rates, Map<String, double[]> jobs, boolean gantt) {
            this.rates = rates;
            this.jobs = jobs;
            this.gantt = gantt;
        }

        void add(JsonNode d) {
            double t = d.path("time").asDouble();
            String job = d.path("job").asText();
            String action = d.path("action").asText();
            if (t > last) {
                cumulative += totalRate * (t - last) / 3600.0;
                last = t;
            }
            Open was = open.remove(job);
            if (was != null) {
                NodeState n = nodes.get(was.node());
                totalRate -= n.rate;
                n.busy -= n.jobs.remove(job);
                n.rate = n.jobs.isEmpty() ? 0 : rate(rates, n.type, n.busy);
                totalRate += n.rate;
                if (gantt && t > was.start())
                    segments.add(new Segment(job, was.node(), was.type(), was.gpus(), was.start(), t));
            }
            if (action.equals("START") || action.equals("RESIZE") || action.equals("MIGRATE")) {
                String node = d.path("node").asText();
                String type = d.hasNonNull("type") ? d.get("type").asText() : null;
                int gpus = d.path("gpus").asInt(1);
                NodeState n = nodes.computeIfAbsent(node, k -> new NodeState());
                totalRate -= n.rate;
                n.jobs.put(job, gpus);
                n.busy += gpus;
                if (type != null) n.type = type;
                n.rate = rate(rates, n.type, n.busy);
                totalRate += n.rate;
                open.put(job, new Open(node, n.type, gpus, t));
            } else if (action.equals("COMPLETE")) {
                double[] j = jobs.get(job);
                if (j != null && t > j[0]) cumulative += j[1] * (t - j[0]) / 3600.0;
            }
            if (points > 0 && times[points - 1] == t) {
                values[points - 1] = cumulative;
            } else {
                if (points == times.length) {
                    times = Arrays.copyOf(times, points * 2);
                    values = Arrays.copyOf(values, points * 2);
                }
                times[points] = t;
                values[points] = cumulative;
                points++;
            }
        }
    }

    private static double rate(Map<String, double[]> rates, String type, int busy) {
        double[] r = type == null ? null : rates.get(type);
        if (r == null || busy <= 0) return 0;
        return r[Math.min(busy, r.length - 1)];
    }

    /** job id -> {due, weight}. */
    private static Map<String, double[]> readJobs(Path file) {
        Map<String, double[]> jobs = new HashMap<>();
        try {
            JsonLines.forEach(
                    file,
                    JSON,
                    ReportInputException::new,
                    (j, where) -> jobs.put(j.path("id").asText(), new double[] {
                        j.path("due").asDouble(), j.path("weight").asDouble()
                    }));
        } catch (NoSuchFileException e) {
            throw new ReportInputException(file + ": missing");
        } catch (IOException e) {
            throw new ReportInputException(file + ": cannot read (" + e.getMessage() + ")");
        }
        return jobs;
    }

    private static JsonNode tree(Path file) {
        try {
            return JSON.readTree(Files.readString(file));
        } catch (NoSuchFileException e) {
            throw new ReportInputException(file + ": missing (is " + file.getParent() + " a run directory?)");
        } catch (JsonProcessingException e) {
            throw new ReportInputException(file + ": not valid JSON (" + e.getOriginalMessage() + ")");
        } catch (IOException e) {
            throw new ReportInputException(file + ": cannot read (" + e.getMessage() + ")");
        }
    }
}
