package org.gpusched.reports;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
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

    private RunResult(Path dir, String policy, long seed, Map<String, Double> metrics, double[] costTimes, double[] costValues,
                      List<Segment> segments, List<String> nodeOrder, Map<String, Integer> nodeGpus, int jobCount) {
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
    }

    /** True when every job of the run completed (metrics.json completedJobs equals the jobs in jobs.jsonl). */
    public boolean complete() { return metric("completedJobs") == jobCount; }

    public double metric(String name) {
        Double v = metrics.get(name);
        return v == null ? Double.NaN : v;
    }

    public String label() { return policy + " (seed " + seed + ")"; }

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
        String policy = run.hasNonNull("policy") ? run.get("policy").asText() : metricsNode.path("policy").asText(dir.getFileName().toString());
        long seed = run.path("seed").asLong(0);
        Map<String, Double> metrics = new LinkedHashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = metricsNode.fields(); it.hasNext(); ) {
            var e = it.next();
            if (e.getValue().isNumber()) metrics.put(e.getKey(), e.getValue().asDouble());
        }
        if (!metrics.containsKey("totalCost")) throw new ReportInputException(dir.resolve("metrics.json") + ": totalCost is missing");

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
                for (JsonNode t : n.get("types")) gpus = Math.max(gpus, types.path(t.asText()).path("gpus").asInt(0));
            }
            if (gpus == 0) for (JsonNode t : types) gpus = Math.max(gpus, t.path("gpus").asInt(0));
            nodeGpus.put(id, gpus);
        }
        Map<String, double[]> jobs = readJobs(dir.resolve("jobs.jsonl"));
        boolean gantt = jobs.size() <= GANTT_MAX_JOBS;

        Map<String, NodeState> nodes = new HashMap<>();
        Map<String, Open> open = new HashMap<>();
        List<Segment> segments = new ArrayList<>();
        double[] times = new double[1024];
        double[] values = new double[1024];
        int points = 0;
        double cumulative = 0, totalRate = 0, last = 0;
        Path decisions = dir.resolve("decisions.jsonl");
        try (BufferedReader in = Files.newBufferedReader(decisions, StandardCharsets.UTF_8)) {
            String line;
            long lineNo = 0;
            while ((line = in.readLine()) != null) {
                lineNo++;
                if (line.isBlank()) continue;
                JsonNode d;
                try {
                    d = JSON.readTree(line);
                } catch (JsonProcessingException e) {
                    throw new ReportInputException(decisions + ":" + lineNo + ": not valid JSON (" + e.getOriginalMessage() + ")");
                }
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
                    if (gantt && t > was.start()) segments.add(new Segment(job, was.node(), was.type(), was.gpus(), was.start(), t));
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
        } catch (NoSuchFileException e) {
            throw new ReportInputException(decisions + ": missing");
        } catch (IOException e) {
            throw new ReportInputException(decisions + ": cannot read (" + e.getMessage() + ")");
        }
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
        return new RunResult(dir, policy, seed, metrics, ct, cv, gantt ? segments : List.of(), nodeOrder, nodeGpus, jobs.size());
    }

    private static double rate(Map<String, double[]> rates, String type, int busy) {
        double[] r = type == null ? null : rates.get(type);
        if (r == null || busy <= 0) return 0;
        return r[Math.min(busy, r.length - 1)];
    }

    /** job id -> {due, weight}. */
    private static Map<String, double[]> readJobs(Path file) {
        Map<String, double[]> jobs = new HashMap<>();
        try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            String line;
            long lineNo = 0;
            while ((line = in.readLine()) != null) {
                lineNo++;
                if (line.isBlank()) continue;
                try {
                    JsonNode j = JSON.readTree(line);
                    jobs.put(j.path("id").asText(), new double[] {j.path("due").asDouble(), j.path("weight").asDouble()});
                } catch (JsonProcessingException e) {
                    throw new ReportInputException(file + ":" + lineNo + ": not valid JSON (" + e.getOriginalMessage() + ")");
                }
            }
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
