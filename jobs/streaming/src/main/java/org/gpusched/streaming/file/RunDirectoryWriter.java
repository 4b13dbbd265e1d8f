package org.gpusched.streaming.file;

import static org.gpusched.streaming.file.PartFileMerger.fields;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.gpusched.formats.ClusterYaml;
import org.gpusched.rundir.RunLayout;
import org.gpusched.streaming.SchedulerConfig;
import org.gpusched.streaming.file.PartFileMerger.FieldReader;
import org.gpusched.streaming.file.PartFileMerger.Keyed;
import org.gpusched.streaming.file.PartFileMerger.LineKey;
import org.gpusched.streaming.file.PartFileMerger.Lines;
import org.gpusched.streaming.file.PartFileMerger.LinesTo;

/**
 * Assembles a run directory ({@link RunLayout}) for one policy from the part files of {@link FileJobSinks}: run.json,
 * jobs.jsonl, decisions.jsonl (time order), node-events.jsonl (the node timeline, time order), metrics.json and
 * rejected.jsonl. The part files are merged by {@link
 * PartFileMerger} and summed up by {@link RunSummary}; this class lays out the files and projects the lines.
 * {@code compare} calls it once per policy of a multi-policy job.
 */
public final class RunDirectoryWriter {
    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
    private static final ObjectMapper LINE = AvroJson.MAPPER;
    /** The node timeline of a run: every node event it applied, at the time it applied it. */
    public static final String NODE_EVENTS = RunLayout.NODE_EVENTS;

    /** The headline numbers of a run, as metrics.json holds them. */
    public record Summary(
            String policy,
            double totalCost,
            double executionCost,
            double tardinessCost,
            long tardyJobs,
            long completedJobs,
            long acceptedJobs,
            double meanJctSeconds,
            double makespanSeconds,
            double optimizerMedianMs,
            double optimizerP99Ms,
            long reschedulings,
            long optimizerCalls,
            long callsUnderPressure,
            long decisions,
            long rejected) {}

    private RunDirectoryWriter() {}

    /**
     * @param parts  the {@link FileJobSinks} directory of the finished job
     * @param out    the run directory to write (created)
     * @param inputs what the run read (trace and cluster paths, ...), recorded in run.json
     */
    public static Summary write(Path parts, Path out, SchedulerConfig cfg, String policy, Map<String, Object> inputs) {
        // decisions.jsonl, the most work, is merged on a second thread while this one does the rest
        ExecutorService second = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "run-directory-decisions");
            t.setDaemon(true);
            return t;
        });
        try {
            Files.createDirectories(out);
            Future<Lines> decisionsMerged = second.submit(() -> PartFileMerger.inOrder(
                    PartFileMerger.partFiles(parts, FileJobSinks.DECISIONS),
                    line -> decision(line, policy),
                    () -> new LinesTo(out.resolve(RunLayout.DECISIONS))));
            writeRunJson(out.resolve(RunLayout.RUN), cfg, policy, inputs);
            // Accepted jobs come from the dispatcher in (submit, id) order, so jobs.jsonl streams like decisions.jsonl.
            Path jobsFile = out.resolve(RunLayout.JOBS);
            LineKey acceptedKey = line -> {
                JobKey key = jobKey(line);
                return new Keyed(key.submit(), 0, 0, key.id(), line);
            };
            List<Path> acceptedParts = PartFileMerger.partFiles(parts, FileJobSinks.ACCEPTED_JOBS);
            Lines accepted = PartFileMerger.copiedIfInOrder(acceptedParts, acceptedKey, jobsFile);
            if (accepted == null)
                accepted = PartFileMerger.inOrder(acceptedParts, acceptedKey, () -> new LinesTo(jobsFile));
            RunSummary.JobsTally jobs = RunSummary.jobs(parts, policy);
            RunSummary.SchedulingTally scheduling = RunSummary.scheduling(parts, policy);
            List<JsonNode> rejected = PartFileMerger.read(parts, FileJobSinks.REJECTED);
            rejected.sort(
                    Comparator.<JsonNode, String>comparing(r -> r.get("source").asText())
                            .thenComparingLong(r -> lineOf(r.get("position").asText()))
                            .thenComparing(r -> r.get("position").asText()));
            writeLines(out.resolve(RunLayout.REJECTED), rejected);
            List<JsonNode> nodeEvents = PartFileMerger.read(parts, FileJobSinks.NODE_TIMELINE);
            nodeEvents.sort(
                    Comparator.comparingDouble(e -> e.get("time").asDouble())); // stable: one dispatcher's order
            writeLines(out.resolve(NODE_EVENTS), nodeEvents);
            Lines decisions = await(decisionsMerged);
            Summary summary =
                    RunSummary.summarize(policy, accepted, jobs, decisions.count(), scheduling, rejected.size());
            JSON.writeValue(out.resolve(RunLayout.METRICS).toFile(), RunSummary.metricsJson(summary, jobs));
            return summary;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write run directory " + out, e);
        } finally {
            second.shutdownNow();
        }
    }

    private static <T> T await(Future<T> result) throws IOException {
        try {
            return result.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while writing the run directory");
        } catch (ExecutionException e) {
            if (e.getCause() instanceof IOException io) throw io;
            if (e.getCause() instanceof RuntimeException r) throw r;
            if (e.getCause() instanceof Error err) throw err;
            throw new IllegalStateException(e.getCause());
        }
    }

    private static long lineOf(String position) {
        int colon = position.lastIndexOf(':');
        try {
            return colon < 0 ? 0 : Long.parseLong(position.substring(colon + 1));
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    /** All records of the part files NAME-*.jsonl in a directory. */
    public static List<JsonNode> read(Path parts, String name) throws IOException {
        return PartFileMerger.read(parts, name);
    }

    private static void writeRunJson(Path file, SchedulerConfig cfg, String policy, Map<String, Object> inputs)
            throws IOException {
        Map<String, Object> run = new LinkedHashMap<>();
        run.put("policy", policy);
        run.put("seed", cfg.seed());
        run.put("maxIterations", cfg.maxIterations());
        run.put("iterationsWithoutGain", cfg.iterationsWithoutGain());
        run.put("controllers", cfg.controllers());
        run.put(
                "dispatch",
                cfg.dispatch().name().toLowerCase(java.util.Locale.ROOT).replace('_', '-'));
        run.put("noise", cfg.noise());
        run.put("periodSeconds", cfg.periodSeconds());
        run.put("mode", cfg.mode().name().toLowerCase());
        run.put("stability", cfg.stability().name().toLowerCase(java.util.Locale.ROOT));
        run.put(
                "optimizerScope",
                cfg.optimizerScope().name().toLowerCase(java.util.Locale.ROOT).replace('_', '-'));
        run.put("policies", cfg.policies());
        Map<String, Object> objective = new LinkedHashMap<>();
        objective.put("rho", cfg.objective().rho());
        objective.put("horizonSeconds", cfg.objective().horizonSeconds());
        objective.put("mu", cfg.objective().mu());
        run.put("objective", objective);
        Map<String, Object> moveCost = new LinkedHashMap<>(); // in this order in every run (Map.of has none)
        moveCost.put("snapshotIntervalSeconds", cfg.snapshotIntervalSeconds());
        moveCost.put("restartOverheadSeconds", cfg.moveOverheadSeconds());
        run.put("moveCost", moveCost);
        run.putAll(inputs);
        Map<String, Object> owners = new LinkedHashMap<>();
        for (int i = 0; i < cfg.nodes().size(); i++)
            owners.put(cfg.nodes().get(i).id(), cfg.controllerOfNode(i));
        run.putAll(ClusterYaml.manifestView(cfg.cluster()));
        run.put("nodeController", owners);
        run.put("timeResolutionSeconds", 0.001);
        JSON.writeValue(file.toFile(), run);
    }

    private record JobKey(double submit, String id) {}

    /** The sort key of a jobs.jsonl line, read from its first fields without parsing the rest. */
    private static JobKey jobKey(String line) throws IOException {
        try (JsonParser p = LINE.getFactory().createParser(line)) {
            String id = null;
            double submit = Double.NaN;
            p.nextToken();
            while (p.nextToken() == JsonToken.FIELD_NAME && (id == null || Double.isNaN(submit))) {
                String name = p.currentName();
                p.nextToken();
                if (name.equals("id")) id = p.getText();
                else if (name.equals("submit")) submit = p.getDoubleValue();
                else p.skipChildren();
            }
            if (id == null || Double.isNaN(submit)) throw new IOException("accepted job without id or submit: " + line);
            return new JobKey(submit, id);
        }
    }

    /** The fields of decisions.jsonl, in the order of the PlacementDecision schema, which part-file lines follow. */
    private static final Set<String> DECISION_FIELDS = Set.of(
            "time",
            "job",
            "action",
            "node",
            "type",
            "gpus",
            "previousNode",
            "expectedCompletion",
            "expectedCost",
            "policy",
            "controller",
            "seq",
            "reason");

    /**
     * A decision part-file line of the policy as its decisions.jsonl line (the decision fields without the null ones)
     * with its key (time, controller, seq), in one streaming pass; null for another policy's decision.
     */
    private static Keyed decision(String line, String policy) throws IOException {
        StringWriter text = new StringWriter(line.length());
        DecisionLine d;
        try (JsonGenerator g = LINE.getFactory().createGenerator(text)) {
            d = new DecisionLine(g);
            g.writeStartObject();
            fields(line, d);
            g.writeEndObject();
        }
        if (!policy.equals(d.policy)) return null;
        return new Keyed(d.time, d.controller, d.seq, "", text.toString());
    }

    /** Reads a decision part-file line's key and copies its non-null decision fields to a generator. */
    private static final class DecisionLine implements FieldReader {
        final JsonGenerator out;
        double time = Double.NaN;
        long controller, seq;
        String policy;

        DecisionLine(JsonGenerator out) {
            this.out = out;
        }

        @Override
        public void field(String name, JsonParser p) throws IOException {
            switch (name) {
                case "time" -> time = p.getValueAsDouble();
                case "controller" -> controller = p.getValueAsLong();
                case "seq" -> seq = p.getValueAsLong();
                case "policy" -> policy = p.getValueAsString();
                default -> {}
            }
            if (p.currentToken() == JsonToken.VALUE_NULL || !DECISION_FIELDS.contains(name)) return;
            out.writeFieldName(name);
            out.copyCurrentStructure(p);
        }
    }

    private static void writeLines(Path file, List<JsonNode> lines) throws IOException {
        try (BufferedWriter w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            for (JsonNode n : lines) {
                w.write(LINE.writeValueAsString(n));
                w.write('\n');
            }
        }
    }
}
