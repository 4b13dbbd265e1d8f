package org.gpusched.streaming.file;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.gpusched.formats.ClusterYaml;
import org.gpusched.streaming.SchedulerConfig;

/**
 * Assembles a run directory (the contract of the streaming issue, "Formats") for one policy from the part files of
 * {@link FileJobSinks}: run.json, jobs.jsonl, decisions.jsonl (time order), metrics.json and rejected.jsonl.
 * {@code compare} calls it once per policy of a multi-policy job.
 */
public final class RunDirectoryWriter {
    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
    private static final ObjectMapper LINE = AvroJson.MAPPER;

    /** The headline numbers of a run, as metrics.json holds them. */
    public record Summary(String policy, double totalCost, double executionCost, double tardinessCost, long tardyJobs, long completedJobs,
                          long acceptedJobs, double meanJctSeconds, double makespanSeconds, double optimizerMedianMs, double optimizerP99Ms,
                          long reschedulings, long decisions, long rejected) {}

    private RunDirectoryWriter() {}

    /**
     * @param parts  the {@link FileJobSinks} directory of the finished job
     * @param out    the run directory to write (created)
     * @param inputs what the run read (trace and cluster paths, ...), recorded in run.json
     */
    public static Summary write(Path parts, Path out, SchedulerConfig cfg, String policy, Map<String, Object> inputs) {
        try {
            Files.createDirectories(out);
            List<JsonNode> accepted = read(parts, FileJobSinks.ACCEPTED_JOBS);
            List<JsonNode> scheduling = filter(read(parts, FileJobSinks.SCHEDULING_METRICS), policy);
            List<JsonNode> jobMetrics = filter(read(parts, FileJobSinks.JOB_METRICS), policy);
            List<JsonNode> rejected = read(parts, FileJobSinks.REJECTED);

            accepted.sort(Comparator.<JsonNode>comparingDouble(j -> j.get("submit").asDouble()).thenComparing(j -> j.get("id").asText()));
            jobMetrics.sort(Comparator.<JsonNode>comparingDouble(j -> j.get("time").asDouble()).thenComparing(j -> j.get("job").asText()));
            rejected.sort(Comparator.<JsonNode, String>comparing(r -> r.get("source").asText()).thenComparingLong(r -> lineOf(r.get("position").asText()))
                    .thenComparing(r -> r.get("position").asText()));

            writeRunJson(out.resolve("run.json"), cfg, policy, inputs);
            writeLines(out.resolve("jobs.jsonl"), accepted.stream().map(RunDirectoryWriter::traceLine).toList());
            long decisions = writeDecisions(parts, policy, out.resolve("decisions.jsonl"));
            writeLines(out.resolve("rejected.jsonl"), rejected);
            Summary summary = summarize(policy, accepted, decisions, scheduling, jobMetrics, rejected.size());
            JSON.writeValue(out.resolve("metrics.json").toFile(), metricsJson(summary, jobMetrics));
            return summary;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write run directory " + out, e);
        }
    }

    /** A decision line with its sort key: (time, controller, seq). */
    private record Keyed(double time, int controller, long seq, String line) {}

    private static final Comparator<Keyed> DECISION_ORDER = Comparator.comparingDouble(Keyed::time)
            .thenComparingInt(Keyed::controller).thenComparingLong(Keyed::seq);

    /**
     * Writes the policy's decisions in (time, controller, seq) order without holding them all: each part file is in
     * time order (a subtask's timers fire in time order), so the files are merged and only the decisions of one
     * timestamp are sorted in memory. A part file out of time order (late input in live mode) falls back to a full
     * in-memory sort of compact lines.
     */
    private static long writeDecisions(Path parts, String policy, Path out) throws IOException {
        List<Path> files = partFiles(parts, FileJobSinks.DECISIONS);
        if (!mergeDecisions(files, policy, out)) {
            List<Keyed> all = new ArrayList<>();
            for (Path f : files) {
                try (BufferedReader in = Files.newBufferedReader(f, StandardCharsets.UTF_8)) {
                    Keyed k;
                    while ((k = next(in, policy)) != null) all.add(k);
                }
            }
            all.sort(DECISION_ORDER);
            try (BufferedWriter w = Files.newBufferedWriter(out, StandardCharsets.UTF_8)) {
                for (Keyed k : all) {
                    w.write(k.line());
                    w.write('\n');
                }
            }
        }
        long n = 0;
        try (BufferedReader in = Files.newBufferedReader(out, StandardCharsets.UTF_8)) {
            while (in.readLine() != null) n++;
        }
        return n;
    }

    private static boolean mergeDecisions(List<Path> files, String policy, Path out) throws IOException {
        List<BufferedReader> readers = new ArrayList<>();
        try (BufferedWriter w = Files.newBufferedWriter(out, StandardCharsets.UTF_8)) {
            Keyed[] heads = new Keyed[files.size()];
            for (int i = 0; i < files.size(); i++) {
                readers.add(Files.newBufferedReader(files.get(i), StandardCharsets.UTF_8));
                heads[i] = next(readers.get(i), policy);
            }
            List<Keyed> group = new ArrayList<>();
            while (true) {
                double t = Double.POSITIVE_INFINITY;
                for (Keyed h : heads) if (h != null) t = Math.min(t, h.time());
                if (t == Double.POSITIVE_INFINITY) break;
                group.clear();
                for (int i = 0; i < heads.length; i++) {
                    while (heads[i] != null && heads[i].time() == t) {
                        group.add(heads[i]);
                        heads[i] = next(readers.get(i), policy);
                        if (heads[i] != null && heads[i].time() < t) return false;
                    }
                }
                group.sort(DECISION_ORDER);
                for (Keyed k : group) {
                    w.write(k.line());
                    w.write('\n');
                }
            }
            return true;
        } finally {
            for (BufferedReader r : readers) r.close();
        }
    }

    /** The next decision of the policy in a part file, as its run-directory line, or null at the end. */
    private static Keyed next(BufferedReader in, String policy) throws IOException {
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isBlank()) continue;
            JsonNode d = LINE.readTree(line);
            if (!policy.equals(d.path("policy").asText())) continue;
            return new Keyed(d.get("time").asDouble(), d.get("controller").asInt(), d.get("seq").asLong(), LINE.writeValueAsString(decisionLine(d)));
        }
        return null;
    }

    private static List<Path> partFiles(Path parts, String name) throws IOException {
        List<Path> files = new ArrayList<>();
        if (!Files.isDirectory(parts)) return files;
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(parts, name + "-*.jsonl")) {
            ds.forEach(files::add);
        }
        files.sort(null);
        return files;
    }

    private static long lineOf(String position) {
        int colon = position.lastIndexOf(':');
        try {
            return colon < 0 ? 0 : Long.parseLong(position.substring(colon + 1));
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    private static List<JsonNode> filter(List<JsonNode> records, String policy) {
        List<JsonNode> r = new ArrayList<>();
        for (JsonNode n : records) if (policy.equals(n.path("policy").asText())) r.add(n);
        return r;
    }

    /** All records of the part files NAME-*.jsonl in a directory. */
    public static List<JsonNode> read(Path parts, String name) throws IOException {
        List<JsonNode> records = new ArrayList<>();
        for (Path f : partFiles(parts, name)) {
            try (BufferedReader in = Files.newBufferedReader(f, StandardCharsets.UTF_8)) {
                String line;
                while ((line = in.readLine()) != null) if (!line.isBlank()) records.add(LINE.readTree(line));
            }
        }
        return records;
    }

    private static void writeRunJson(Path file, SchedulerConfig cfg, String policy, Map<String, Object> inputs) throws IOException {
        Map<String, Object> run = new LinkedHashMap<>();
        run.put("policy", policy);
        run.put("seed", cfg.seed());
        run.put("maxIterations", cfg.maxIterations());
        run.put("controllers", cfg.controllers());
        run.put("noise", cfg.noise());
        run.put("periodSeconds", cfg.periodSeconds());
        run.put("mode", cfg.mode().name().toLowerCase());
        run.put("policies", cfg.policies());
        Map<String, Object> objective = new LinkedHashMap<>();
        objective.put("rho", cfg.objective().rho());
        objective.put("horizonSeconds", cfg.objective().horizonSeconds());
        objective.put("mu", cfg.objective().mu());
        run.put("objective", objective);
        run.putAll(inputs);
        Map<String, Object> owners = new LinkedHashMap<>();
        for (int i = 0; i < cfg.nodes().size(); i++) owners.put(cfg.nodes().get(i).id(), cfg.controllerOfNode(i));
        run.putAll(ClusterYaml.manifestView(cfg.cluster()));
        run.put("nodeController", owners);
        run.put("timeResolutionSeconds", 0.001);
        JSON.writeValue(file.toFile(), run);
    }

    /** A jobs.jsonl line: the trace format (times as {type: {gpus: seconds}}) plus extras and actualFactor. */
    private static JsonNode traceLine(JsonNode job) {
        ObjectNode o = LINE.createObjectNode();
        o.set("id", job.get("id"));
        o.set("submit", job.get("submit"));
        o.set("due", job.get("due"));
        o.set("weight", job.get("weight"));
        ObjectNode times = o.putObject("times");
        for (JsonNode t : job.get("times")) {
            ObjectNode byType = times.has(t.get("type").asText()) ? (ObjectNode) times.get(t.get("type").asText()) : times.putObject(t.get("type").asText());
            byType.set(t.get("gpus").asText(), t.get("seconds"));
        }
        JsonNode extras = job.get("extrasJson");
        if (extras != null && !extras.isNull()) {
            try {
                JsonNode e = LINE.readTree(extras.asText());
                for (Iterator<Map.Entry<String, JsonNode>> it = e.fields(); it.hasNext(); ) {
                    Map.Entry<String, JsonNode> f = it.next();
                    o.set(f.getKey(), f.getValue());
                }
            } catch (IOException ignored) {
                // extrasJson is written by RecordParser from parsed JSON, so it always reads back
            }
        }
        JsonNode factor = job.get("actualFactor");
        o.put("actualFactor", factor == null || factor.isNull() ? 1.0 : factor.asDouble());
        return o;
    }

    private static JsonNode decisionLine(JsonNode d) {
        ObjectNode o = LINE.createObjectNode();
        for (String f : new String[] {"time", "job", "action", "node", "type", "gpus", "previousNode", "expectedCompletion", "expectedCost", "policy", "controller", "seq", "reason"}) {
            JsonNode v = d.get(f);
            if (v != null && !v.isNull()) o.set(f, v);
        }
        return o;
    }

    private static void writeLines(Path file, List<JsonNode> lines) throws IOException {
        try (BufferedWriter w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            for (JsonNode n : lines) {
                w.write(LINE.writeValueAsString(n));
                w.write('\n');
            }
        }
    }

    private static Summary summarize(String policy, List<JsonNode> accepted, long decisions, List<JsonNode> scheduling,
                                     List<JsonNode> jobMetrics, long rejected) {
        Map<Integer, Double> executionByController = new HashMap<>();
        List<Long> nanos = new ArrayList<>();
        for (JsonNode m : scheduling) {
            executionByController.merge(m.get("controller").asInt(), m.get("accruedExecutionCost").asDouble(), Math::max);
            if (m.get("optimizerNanos").asLong() > 0) nanos.add(m.get("optimizerNanos").asLong());
        }
        double execution = executionByController.values().stream().mapToDouble(Double::doubleValue).sum();
        double tardiness = 0;
        long tardy = 0;
        double jct = 0;
        double lastCompletion = Double.NEGATIVE_INFINITY;
        for (JsonNode j : jobMetrics) {
            tardiness += j.get("tardinessCost").asDouble();
            if (j.get("tardinessSeconds").asDouble() > 0) tardy++;
            jct += j.get("jctSeconds").asDouble();
            lastCompletion = Math.max(lastCompletion, j.get("time").asDouble());
        }
        double firstSubmit = accepted.stream().mapToDouble(j -> j.get("submit").asDouble()).min().orElse(0);
        nanos.sort(null);
        return new Summary(policy, execution + tardiness, execution, tardiness, tardy, jobMetrics.size(), accepted.size(),
                jobMetrics.isEmpty() ? 0 : jct / jobMetrics.size(), jobMetrics.isEmpty() ? 0 : lastCompletion - firstSubmit,
                percentile(nanos, 0.5) / 1e6, percentile(nanos, 0.99) / 1e6, scheduling.size(), decisions, rejected);
    }

    /** Nearest-rank percentile of sorted values, 0 when empty. */
    static double percentile(List<Long> sorted, double q) {
        if (sorted.isEmpty()) return 0;
        int rank = (int) Math.ceil(q * sorted.size());
        return sorted.get(Math.max(0, Math.min(sorted.size() - 1, rank - 1)));
    }

    private static Map<String, Object> metricsJson(Summary s, List<JsonNode> jobMetrics) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("policy", s.policy());
        m.put("totalCost", s.totalCost());
        m.put("executionCost", s.executionCost());
        m.put("tardinessCost", s.tardinessCost());
        m.put("tardyJobs", s.tardyJobs());
        m.put("completedJobs", s.completedJobs());
        m.put("acceptedJobs", s.acceptedJobs());
        m.put("unfinishedJobs", s.acceptedJobs() - s.completedJobs());
        m.put("meanJctSeconds", s.meanJctSeconds());
        m.put("makespanSeconds", s.makespanSeconds());
        m.put("optimizerMedianMs", s.optimizerMedianMs());
        m.put("optimizerP99Ms", s.optimizerP99Ms());
        m.put("reschedulings", s.reschedulings());
        m.put("decisions", s.decisions());
        m.put("preemptions", jobMetrics.stream().mapToLong(j -> j.get("preemptions").asLong()).sum());
        m.put("migrations", jobMetrics.stream().mapToLong(j -> j.get("migrations").asLong()).sum());
        m.put("resizes", jobMetrics.stream().mapToLong(j -> j.get("resizes").asLong()).sum());
        m.put("rejected", s.rejected());
        return m;
    }
}
