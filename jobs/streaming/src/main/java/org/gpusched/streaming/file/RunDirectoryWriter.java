package org.gpusched.streaming.file;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.gpusched.formats.ClusterYaml;
import org.gpusched.streaming.SchedulerConfig;
import org.gpusched.streaming.avro.ExecutionTime;
import org.gpusched.streaming.avro.JobSubmitted;

/**
 * Assembles a run directory (the contract of the streaming issue, "Formats") for one policy from the part files of
 * {@link FileJobSinks}: run.json, jobs.jsonl, decisions.jsonl (time order), node-events.jsonl (the node timeline, time
 * order), metrics.json and rejected.jsonl.
 * {@code compare} calls it once per policy of a multi-policy job.
 */
public final class RunDirectoryWriter {
    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
    private static final ObjectMapper LINE = AvroJson.MAPPER;
    /** The node timeline of a run: every node event it applied, at the time it applied it. */
    public static final String NODE_EVENTS = "node-events.jsonl";

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
            Future<Lines> decisionsMerged = second.submit(() -> inOrder(
                    partFiles(parts, FileJobSinks.DECISIONS),
                    line -> decision(line, policy),
                    () -> new LinesTo(out.resolve("decisions.jsonl"))));
            writeRunJson(out.resolve("run.json"), cfg, policy, inputs);
            // Accepted jobs come from the dispatcher in (submit, id) order, so jobs.jsonl streams like decisions.jsonl.
            Path jobsFile = out.resolve("jobs.jsonl");
            LineKey acceptedKey = line -> {
                JobKey key = jobKey(line);
                return new Keyed(key.submit(), 0, 0, key.id(), line);
            };
            List<Path> acceptedParts = partFiles(parts, FileJobSinks.ACCEPTED_JOBS);
            Lines accepted = copiedIfInOrder(acceptedParts, acceptedKey, jobsFile);
            if (accepted == null) accepted = inOrder(acceptedParts, acceptedKey, () -> new LinesTo(jobsFile));
            // Job metrics are summed in (time, job) order, so that the totals do not depend on how the sinks split
            // them.
            JobsTally jobs = inOrder(
                    partFiles(parts, FileJobSinks.JOB_METRICS),
                    line -> {
                        JobLine m = new JobLine();
                        fields(line, m);
                        if (!policy.equals(m.policy)) return null;
                        return new Keyed(m.time, 0, 0, m.job, line, m);
                    },
                    JobsTally::new);
            SchedulingTally scheduling = new SchedulingTally(policy);
            for (Path f : partFiles(parts, FileJobSinks.SCHEDULING_METRICS)) {
                try (BufferedReader in = Files.newBufferedReader(f, StandardCharsets.UTF_8)) {
                    String line;
                    while ((line = in.readLine()) != null) if (!line.isBlank()) scheduling.add(line);
                }
            }
            List<JsonNode> rejected = read(parts, FileJobSinks.REJECTED);
            rejected.sort(
                    Comparator.<JsonNode, String>comparing(r -> r.get("source").asText())
                            .thenComparingLong(r -> lineOf(r.get("position").asText()))
                            .thenComparing(r -> r.get("position").asText()));
            writeLines(out.resolve("rejected.jsonl"), rejected);
            List<JsonNode> nodeEvents = read(parts, FileJobSinks.NODE_TIMELINE);
            nodeEvents.sort(
                    Comparator.comparingDouble(e -> e.get("time").asDouble())); // stable: one dispatcher's order
            writeLines(out.resolve(NODE_EVENTS), nodeEvents);
            Lines decisions = await(decisionsMerged);
            Summary summary = summarize(policy, accepted, jobs, decisions.count(), scheduling, rejected.size());
            JSON.writeValue(out.resolve("metrics.json").toFile(), metricsJson(summary, jobs));
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

    /**
     * An output line with its sort key: (time, number, sequence, text); {@code parsed}, what the key was read with, for
     * a consumer that needs more of the line than its key (the job metrics' tally), or null.
     */
    private record Keyed(double time, long number, long sequence, String text, String line, Object parsed) {
        Keyed(double time, long number, long sequence, String text, String line) {
            this(time, number, sequence, text, line, null);
        }
    }

    private static final Comparator<Keyed> ORDER = Comparator.comparingDouble(Keyed::time)
            .thenComparingLong(Keyed::number)
            .thenComparingLong(Keyed::sequence)
            .thenComparing(Keyed::text);

    /** A part-file line as an output line with its key, or null to leave it out. */
    private interface LineKey {
        Keyed apply(String line) throws IOException;
    }

    /** Takes the kept lines in key order and makes a result of them; a fresh one serves each attempt of {@link #inOrder}. */
    private interface Ordered<R> {
        void accept(Keyed line) throws IOException;

        /** Called once, at the end, also of an abandoned attempt: closes what it opened. */
        R result() throws IOException;
    }

    private interface OrderedFactory<R> {
        Ordered<R> create() throws IOException;
    }

    /**
     * Hands the kept lines of part files to a fresh {@link Ordered} in key order without holding them all: each part
     * file is in time order (a subtask's timers fire in time order), so the files are merged and only the lines of one
     * time are sorted in memory. A part file out of time order (late input in live mode) abandons the merge, whose
     * partial result is dropped, for a full in-memory sort handed to another fresh one.
     */
    private static <R> R inOrder(List<Path> files, LineKey key, OrderedFactory<R> fresh) throws IOException {
        Ordered<R> merged = fresh.create();
        boolean complete = false;
        try {
            complete = merge(files, key, merged);
        } finally {
            if (!complete) merged.result(); // abandoned (or failed): closed, its result dropped
        }
        if (complete) return merged.result();
        List<Keyed> all = new ArrayList<>();
        for (Path f : files) {
            try (BufferedReader in = Files.newBufferedReader(f, StandardCharsets.UTF_8)) {
                Keyed k;
                while ((k = next(in, key)) != null) all.add(k);
            }
        }
        all.sort(ORDER);
        Ordered<R> sorted = fresh.create();
        boolean done = false;
        try {
            for (Keyed k : all) sorted.accept(k);
            done = true;
        } finally {
            if (!done) sorted.result();
        }
        return sorted.result();
    }

    /** The merge of {@link #inOrder}: false when a part file turns out to be out of time order. */
    private static boolean merge(List<Path> files, LineKey key, Ordered<?> out) throws IOException {
        List<BufferedReader> readers = new ArrayList<>();
        try {
            Keyed[] heads = new Keyed[files.size()];
            for (int i = 0; i < files.size(); i++) {
                readers.add(Files.newBufferedReader(files.get(i), StandardCharsets.UTF_8));
                heads[i] = next(readers.get(i), key);
            }
            List<Keyed> group = new ArrayList<>();
            while (true) {
                double t = Double.POSITIVE_INFINITY;
                for (Keyed h : heads) if (h != null) t = Math.min(t, h.time());
                if (t == Double.POSITIVE_INFINITY) return true;
                group.clear();
                for (int i = 0; i < heads.length; i++) {
                    while (heads[i] != null && heads[i].time() == t) {
                        group.add(heads[i]);
                        heads[i] = next(readers.get(i), key);
                        if (heads[i] != null && heads[i].time() < t) return false;
                    }
                }
                group.sort(ORDER);
                for (Keyed k : group) out.accept(k);
            }
        } finally {
            for (BufferedReader r : readers) r.close();
        }
    }

    /** How many lines went to a file, and the first one's time. */
    private record Lines(long count, double firstTime) {}

    /** Writes the lines to a file (replacing it). */
    private static final class LinesTo implements Ordered<Lines> {
        private final BufferedWriter w;
        private long count;
        private double firstTime = Double.NaN;

        LinesTo(Path file) throws IOException {
            w = Files.newBufferedWriter(file, StandardCharsets.UTF_8);
        }

        @Override
        public void accept(Keyed k) throws IOException {
            if (count++ == 0) firstTime = k.time();
            w.write(k.line());
            w.write('\n');
        }

        @Override
        public Lines result() throws IOException {
            w.close();
            return new Lines(count, firstTime);
        }
    }

    /** The next kept line of a part file with its key, or null at the end. */
    private static Keyed next(BufferedReader in, LineKey key) throws IOException {
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isBlank()) continue;
            Keyed k = key.apply(line);
            if (k != null) return k;
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

    /** What the run summary needs from the job metrics, folded in (time, job) order. */
    private static final class JobsTally implements Ordered<JobsTally> {
        long completed, tardy, preemptions, migrations, resizes;
        /** Most moves (preemptions + migrations + resizes) of one completed job. */
        long maxMoves;

        double tardiness, jct;
        double lastCompletion = Double.NEGATIVE_INFINITY;

        @Override
        public void accept(Keyed k) {
            JobLine j = (JobLine) k.parsed();
            completed++;
            tardiness += j.tardinessCost;
            if (j.tardinessSeconds > 0) tardy++;
            jct += j.jctSeconds;
            lastCompletion = Math.max(lastCompletion, j.time);
            preemptions += j.preemptions;
            migrations += j.migrations;
            resizes += j.resizes;
            maxMoves = Math.max(maxMoves, (long) j.preemptions + j.migrations + j.resizes);
        }

        @Override
        public JobsTally result() {
            return this;
        }
    }

    /** The policy's reschedulings: execution cost accrued per controller and optimizer times. */
    private static final class SchedulingTally implements FieldReader {
        final String policy;
        final Map<Integer, Double> executionByController = new HashMap<>();
        long reschedulings;
        long[] nanos = new long[1024];
        int nanosCount;
        private String linePolicy;
        private int controller;
        private double accruedExecutionCost;
        private long optimizerNanos;

        SchedulingTally(String policy) {
            this.policy = policy;
        }

        void add(String line) throws IOException {
            linePolicy = null;
            fields(line, this);
            if (!policy.equals(linePolicy)) return;
            reschedulings++;
            executionByController.merge(controller, accruedExecutionCost, Math::max);
            if (optimizerNanos <= 0) return;
            if (nanosCount == nanos.length) nanos = Arrays.copyOf(nanos, nanosCount * 2);
            nanos[nanosCount++] = optimizerNanos;
        }

        @Override
        public void field(String name, JsonParser p) throws IOException {
            switch (name) {
                case "policy" -> linePolicy = p.getValueAsString();
                case "controller" -> controller = p.getValueAsInt();
                case "accruedExecutionCost" -> accruedExecutionCost = p.getValueAsDouble();
                case "optimizerNanos" -> optimizerNanos = p.getValueAsLong();
                default -> {}
            }
        }
    }

    /** The fields of a job-metrics line that the summary reads. */
    private static final class JobLine implements FieldReader {
        String policy, job;
        double time, tardinessCost, tardinessSeconds, jctSeconds;
        long preemptions, migrations, resizes;

        @Override
        public void field(String name, JsonParser p) throws IOException {
            switch (name) {
                case "policy" -> policy = p.getValueAsString();
                case "job" -> job = p.getValueAsString();
                case "time" -> time = p.getValueAsDouble();
                case "tardinessCost" -> tardinessCost = p.getValueAsDouble();
                case "tardinessSeconds" -> tardinessSeconds = p.getValueAsDouble();
                case "jctSeconds" -> jctSeconds = p.getValueAsDouble();
                case "preemptions" -> preemptions = p.getValueAsLong();
                case "migrations" -> migrations = p.getValueAsLong();
                case "resizes" -> resizes = p.getValueAsLong();
                default -> {}
            }
        }
    }

    /** Takes the top-level fields of a JSON object line, one at a time, the parser on the field's value. */
    private interface FieldReader {
        void field(String name, JsonParser p) throws IOException;
    }

    /** Streams a part-file line's top-level fields to a reader (nested values skipped), without building a tree. */
    private static void fields(String line, FieldReader reader) throws IOException {
        try (JsonParser p = LINE.getFactory().createParser(line)) {
            if (p.nextToken() != JsonToken.START_OBJECT)
                throw new IOException("part-file line is not a JSON object: " + line);
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                p.nextToken();
                reader.field(name, p);
                p.skipChildren();
            }
        }
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

    private static void writeRunJson(Path file, SchedulerConfig cfg, String policy, Map<String, Object> inputs)
            throws IOException {
        Map<String, Object> run = new LinkedHashMap<>();
        run.put("policy", policy);
        run.put("seed", cfg.seed());
        run.put("maxIterations", cfg.maxIterations());
        run.put("controllers", cfg.controllers());
        run.put(
                "dispatch",
                cfg.dispatch().name().toLowerCase(java.util.Locale.ROOT).replace('_', '-'));
        run.put("noise", cfg.noise());
        run.put("periodSeconds", cfg.periodSeconds());
        run.put("mode", cfg.mode().name().toLowerCase());
        run.put("policies", cfg.policies());
        Map<String, Object> objective = new LinkedHashMap<>();
        objective.put("rho", cfg.objective().rho());
        objective.put("horizonSeconds", cfg.objective().horizonSeconds());
        objective.put("mu", cfg.objective().mu());
        run.put("objective", objective);
        run.put(
                "moveCost",
                Map.of(
                        "snapshotIntervalSeconds", cfg.snapshotIntervalSeconds(),
                        "restartOverheadSeconds", cfg.moveOverheadSeconds()));
        run.putAll(inputs);
        Map<String, Object> owners = new LinkedHashMap<>();
        for (int i = 0; i < cfg.nodes().size(); i++)
            owners.put(cfg.nodes().get(i).id(), cfg.controllerOfNode(i));
        run.putAll(ClusterYaml.manifestView(cfg.cluster()));
        run.put("nodeController", owners);
        run.put("timeResolutionSeconds", 0.001);
        JSON.writeValue(file.toFile(), run);
    }

    /** A jobs.jsonl line: the trace format (times as {type: {gpus: seconds}}) plus extras and actualFactor. */
    static void writeJob(JsonGenerator g, JobSubmitted job) throws IOException {
        // Streamed, not built as a tree: this runs once per accepted job inside the replay.
        Map<String, List<ExecutionTime>> byType = new LinkedHashMap<>();
        for (ExecutionTime t : job.getTimes())
            byType.computeIfAbsent(t.getType(), k -> new ArrayList<>()).add(t);
        double actualFactor = job.getActualFactor() == null ? 1.0 : job.getActualFactor();
        g.writeStartObject();
        g.writeStringField("id", job.getId());
        g.writeNumberField("submit", job.getSubmit());
        g.writeNumberField("due", job.getDue());
        g.writeNumberField("weight", job.getWeight());
        g.writeObjectFieldStart("times");
        for (Map.Entry<String, List<ExecutionTime>> e : byType.entrySet()) {
            g.writeObjectFieldStart(e.getKey());
            for (ExecutionTime t : e.getValue()) g.writeNumberField(String.valueOf(t.getGpus()), t.getSeconds());
            g.writeEndObject();
        }
        g.writeEndObject();
        boolean factorWritten = false;
        if (job.getExtrasJson() != null) {
            // extrasJson is an object RecordParser wrote from parsed JSON, so it always reads back; copied token by
            // token
            try (JsonParser extras = LINE.getFactory().createParser(job.getExtrasJson())) {
                extras.nextToken();
                while (extras.nextToken() == JsonToken.FIELD_NAME) {
                    String name = extras.currentName();
                    extras.nextToken();
                    if (name.equals("actualFactor")) {
                        g.writeNumberField(
                                "actualFactor", actualFactor); // the factor the run used, in the extra's place
                        factorWritten = true;
                        extras.skipChildren();
                    } else {
                        g.writeFieldName(name);
                        g.copyCurrentStructure(extras);
                    }
                }
            }
        }
        if (!factorWritten) g.writeNumberField("actualFactor", actualFactor);
        g.writeEndObject();
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

    /**
     * The lines of the only non-empty part file, copied as they are when they are already in key order (the
     * dispatcher's accepted jobs: one key, so one part file, written in submission order); null otherwise, for a merge.
     */
    private static Lines copiedIfInOrder(List<Path> files, LineKey key, Path to) throws IOException {
        Path only = null;
        for (Path f : files) {
            if (Files.size(f) == 0) continue;
            if (only != null) return null;
            only = f;
        }
        if (only == null) return null;
        long count = 0;
        Keyed first = null, previous = null;
        try (BufferedReader in = Files.newBufferedReader(only, StandardCharsets.UTF_8)) {
            String line;
            while ((line = in.readLine()) != null) {
                if (line.isBlank()) return null;
                Keyed k = key.apply(line);
                if (k == null || (previous != null && ORDER.compare(previous, k) > 0)) return null;
                if (first == null) first = k;
                previous = k;
                count++;
            }
        }
        if (!endsWithNewline(only)) return null;
        Files.copy(only, to, StandardCopyOption.REPLACE_EXISTING);
        return new Lines(count, first.time());
    }

    private static boolean endsWithNewline(Path file) throws IOException {
        try (SeekableByteChannel c = Files.newByteChannel(file)) {
            ByteBuffer last = ByteBuffer.allocate(1);
            c.position(c.size() - 1);
            return c.read(last) == 1 && last.get(0) == '\n';
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

    private static Summary summarize(
            String policy, Lines accepted, JobsTally jobs, long decisions, SchedulingTally scheduling, long rejected) {
        double execution = scheduling.executionByController.values().stream()
                .mapToDouble(Double::doubleValue)
                .sum();
        double firstSubmit = accepted.count() == 0 ? 0 : accepted.firstTime(); // jobs.jsonl is in submission order
        long[] nanos = Arrays.copyOf(scheduling.nanos, scheduling.nanosCount);
        Arrays.sort(nanos);
        boolean none = jobs.completed == 0;
        return new Summary(
                policy,
                execution + jobs.tardiness,
                execution,
                jobs.tardiness,
                jobs.tardy,
                jobs.completed,
                accepted.count(),
                none ? 0 : jobs.jct / jobs.completed,
                none ? 0 : jobs.lastCompletion - firstSubmit,
                percentile(nanos, 0.5) / 1e6,
                percentile(nanos, 0.99) / 1e6,
                scheduling.reschedulings,
                decisions,
                rejected);
    }

    /** Nearest-rank percentile of sorted values, 0 when empty. */
    static double percentile(long[] sorted, double q) {
        if (sorted.length == 0) return 0;
        int rank = (int) Math.ceil(q * sorted.length);
        return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
    }

    private static Map<String, Object> metricsJson(Summary s, JobsTally jobs) {
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
        m.put("preemptions", jobs.preemptions);
        m.put("migrations", jobs.migrations);
        m.put("resizes", jobs.resizes);
        m.put(
                "movesPerJob",
                jobs.completed == 0
                        ? 0.0
                        : (double) (jobs.preemptions + jobs.migrations + jobs.resizes) / jobs.completed);
        m.put("maxMovesPerJob", jobs.maxMoves);
        m.put("rejected", s.rejected());
        return m;
    }
}
