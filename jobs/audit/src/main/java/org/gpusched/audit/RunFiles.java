package org.gpusched.audit;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.gpusched.rundir.JsonLines;
import org.gpusched.rundir.RunLayout;

/**
 * The auditor's own reading of a run directory (deliberately not the producer's format classes, so a bug there
 * cannot hide itself): {@code run.json} (nodes, nodeTypes, moveCost), {@code node-events.jsonl} (the nodes added, retyped, failed
 * and removed during the run; absent in runs without node events), {@code metrics.json}. {@code decisions.jsonl} is
 * streamed by {@link RunAuditor}, and {@code jobs.jsonl} read by it as far as the decisions need ({@link JobReader}),
 * so that a run of a million jobs is audited at the default heap.
 */
final class RunFiles {
    static final String RUN = RunLayout.RUN;
    static final String JOBS = RunLayout.JOBS;
    static final String DECISIONS = RunLayout.DECISIONS;
    static final String METRICS = RunLayout.METRICS;
    static final String NODE_EVENTS = RunLayout.NODE_EVENTS;

    static final ObjectMapper JSON = new ObjectMapper();

    record NodeType(String name, int gpus, double[] costPerHour) {}

    /** A node slot: fixed ({@code fixedType} set) or rightsizable ({@code allowed} = permitted types, null = any). */
    record NodeSlot(String id, String fixedType, Set<String> allowed) {}

    /** A change of the cluster at {@code time}: ADDED (fixedType, or allowed types), TYPE_CHANGED, FAILED, REMOVED. */
    record NodeChange(double time, String node, String kind, NodeSlot slot, String where) {}

    /**
     * A job of jobs.jsonl; its execution times as three parallel arrays (type, GPUs, seconds), a few hundred bytes for
     * the dozens of configurations a job of a large cluster has, where maps of boxed numbers took kilobytes.
     */
    record JobSpec(
            String id,
            double submit,
            double due,
            double weight,
            String[] types,
            int[] gpus,
            double[] seconds,
            double actualFactor) {
        private static final String[] NO_TYPES = {};
        private static final int[] NO_GPUS = {};
        private static final double[] NO_SECONDS = {};

        double seconds(String type, int gpuCount) {
            for (int i = 0; i < gpus.length; i++)
                if (gpus[i] == gpuCount && types[i].equals(type)) return seconds[i] * actualFactor;
            return Double.NaN;
        }

        /** The job without its execution times, all a completed job needs to be audited to the end. */
        JobSpec completed() {
            return new JobSpec(id, submit, due, weight, NO_TYPES, NO_GPUS, NO_SECONDS, actualFactor);
        }
    }

    final Map<String, NodeType> types = new LinkedHashMap<>();
    final Map<String, NodeSlot> nodes = new LinkedHashMap<>();
    private Path jobsFile;
    /** In time order. */
    final List<NodeChange> nodeChanges = new ArrayList<>();

    JsonNode metrics;
    /** run.json's moveCost: snapshot interval and restart overhead in seconds (absent: 0, moves are free). */
    double snapshotIntervalSeconds, restartOverheadSeconds;

    static RunFiles read(Path dir) {
        if (!Files.isDirectory(dir)) throw new AuditInputException(dir + ": not a run directory (no such directory)");
        RunDirectories.requireComplete(dir);
        RunFiles f = new RunFiles();
        f.readRun(dir.resolve(RUN));
        f.readNodeEvents(dir.resolve(NODE_EVENTS));
        f.jobsFile = dir.resolve(JOBS);
        if (!Files.isRegularFile(f.jobsFile)) throw new AuditInputException(f.jobsFile + ": missing");
        f.metrics = readTree(dir.resolve(METRICS));
        if (!f.metrics.isObject()) throw new AuditInputException(dir.resolve(METRICS) + ": must be a JSON object");
        if (!Files.isRegularFile(dir.resolve(DECISIONS)))
            throw new AuditInputException(dir.resolve(DECISIONS) + ": missing");
        return f;
    }

    private static double nonNegative(JsonNode moveCost, String field, Path file) {
        JsonNode v = moveCost.get(field);
        if (v == null) return 0;
        if (!v.isNumber() || !(v.asDouble() >= 0) || Double.isInfinite(v.asDouble()))
            throw new AuditInputException(file + ": moveCost." + field + " must be a number >= 0");
        return v.asDouble();
    }

    private void readRun(Path file) {
        JsonNode run = readTree(file);
        JsonNode moveCost = run.path("moveCost");
        snapshotIntervalSeconds = nonNegative(moveCost, "snapshotIntervalSeconds", file);
        restartOverheadSeconds = nonNegative(moveCost, "restartOverheadSeconds", file);
        JsonNode nodeTypes = run.get("nodeTypes");
        if (nodeTypes == null || !nodeTypes.isObject() || nodeTypes.isEmpty())
            throw new AuditInputException(file + ": field 'nodeTypes' is missing or empty");
        for (Iterator<Map.Entry<String, JsonNode>> it = nodeTypes.fields(); it.hasNext(); ) {
            var e = it.next();
            String where = file + ": nodeTypes." + e.getKey();
            JsonNode gpus = e.getValue().get("gpus");
            JsonNode cost = e.getValue().get("costPerHour");
            if (gpus == null || !gpus.canConvertToInt() || gpus.asInt() < 1)
                throw new AuditInputException(where + ".gpus must be an integer >= 1");
            if (cost == null || !cost.isArray() || cost.size() != gpus.asInt() + 1) {
                throw new AuditInputException(where + ".costPerHour must be a list of " + (gpus.asInt() + 1)
                        + " rates (0.." + gpus.asInt() + " busy GPUs)");
            }
            double[] rates = new double[cost.size()];
            for (int g = 0; g < rates.length; g++) {
                if (!cost.get(g).isNumber() || cost.get(g).asDouble() < 0)
                    throw new AuditInputException(where + ".costPerHour[" + g + "] must be a number >= 0");
                rates[g] = cost.get(g).asDouble();
            }
            types.put(e.getKey(), new NodeType(e.getKey(), gpus.asInt(), rates));
        }
        JsonNode nodeList = run.get("nodes");
        if (nodeList == null || !nodeList.isArray() || nodeList.isEmpty())
            throw new AuditInputException(file + ": field 'nodes' is missing or empty");
        for (int i = 0; i < nodeList.size(); i++) {
            JsonNode n = nodeList.get(i);
            String where = file + ": nodes[" + i + "]";
            if (n.get("id") == null || !n.get("id").isTextual())
                throw new AuditInputException(where + ".id is missing");
            String id = n.get("id").asText();
            String fixed = n.hasNonNull("type") ? n.get("type").asText() : null;
            if (fixed != null && !types.containsKey(fixed))
                throw new AuditInputException(where + " (" + id + "): unknown type '" + fixed + "'");
            Set<String> allowed = null;
            if (n.hasNonNull("types")) {
                allowed = new HashSet<>();
                for (JsonNode t : n.get("types")) allowed.add(t.asText());
            }
            if (nodes.put(id, new NodeSlot(id, fixed, allowed)) != null)
                throw new AuditInputException(where + ": node id '" + id + "' appears twice");
        }
    }

    private void readNodeEvents(Path file) {
        if (!Files.exists(file)) return;
        double[] previous = {Double.NEGATIVE_INFINITY};
        try {
            JsonLines.forEach(file, JSON, AuditInputException::new, (e, where) -> {
                JsonNode time = e.get("time");
                if (time == null || !time.isNumber())
                    throw new AuditInputException(where + ": field 'time' is missing or not a number");
                if (time.asDouble() < previous[0])
                    throw new AuditInputException(where + ": time goes back from " + previous[0]);
                previous[0] = time.asDouble();
                if (!e.hasNonNull("node") || !e.get("node").isTextual())
                    throw new AuditInputException(where + ": field 'node' is missing");
                String node = e.get("node").asText();
                String kind = e.hasNonNull("kind") ? e.get("kind").asText() : "";
                NodeSlot slot = null;
                switch (kind) {
                    case "ADDED", "TYPE_CHANGED" -> {
                        String type = e.hasNonNull("type") ? e.get("type").asText() : null;
                        if (type != null && !types.containsKey(type))
                            throw new AuditInputException(where + ": node " + node + ": unknown type '" + type + "'");
                        if (type == null && kind.equals("TYPE_CHANGED"))
                            throw new AuditInputException(where + ": node " + node + ": TYPE_CHANGED without a type");
                        Set<String> allowed = null;
                        if (type == null
                                && e.hasNonNull("allowedTypes")
                                && !e.get("allowedTypes").isEmpty()) {
                            allowed = new HashSet<>();
                            for (JsonNode t : e.get("allowedTypes")) allowed.add(t.asText());
                        }
                        slot = new NodeSlot(node, type, allowed);
                    }
                    case "FAILED", "REMOVED" -> {}
                    default ->
                        throw new AuditInputException(where + ": node " + node + ": unknown kind '" + kind
                                + "' (ADDED, TYPE_CHANGED, FAILED or REMOVED)");
                }
                nodeChanges.add(new NodeChange(time.asDouble(), node, kind, slot, where));
            });
        } catch (IOException e) {
            throw new AuditInputException(file + ": cannot read (" + e.getMessage() + ")", e);
        }
    }

    /** jobs.jsonl, one job at a time, in file order. */
    JobReader openJobs() {
        try {
            return new JobReader(JsonLines.TreeReader.open(jobsFile, JSON, AuditInputException::new));
        } catch (NoSuchFileException e) {
            throw new AuditInputException(jobsFile + ": missing");
        } catch (IOException e) {
            throw new AuditInputException(jobsFile + ": cannot read (" + e.getMessage() + ")", e);
        }
    }

    /** Reads and checks the jobs of jobs.jsonl one by one; a malformed line is an {@link AuditInputException}. */
    final class JobReader implements AutoCloseable {
        private final JsonLines.TreeReader in;
        /** The type names of run.json, so that every job's configurations share one string per type. */
        private final Map<String, String> typeNames = new HashMap<>();

        private JobReader(JsonLines.TreeReader in) {
            this.in = in;
            types.keySet().forEach(t -> typeNames.put(t, t));
        }

        /** The next job, or null at the end of the file. */
        JobSpec next() {
            JsonNode j;
            try {
                j = in.next();
            } catch (IOException e) {
                throw new AuditInputException(jobsFile + ": cannot read (" + e.getMessage() + ")", e);
            }
            return j == null ? null : job(j, in.where());
        }

        /** FILE:LINE of the job {@link #next()} returned last. */
        String where() {
            return in.where();
        }

        private JobSpec job(JsonNode j, String where) {
            String id = j.hasNonNull("id") ? j.get("id").asText() : null;
            if (id == null || id.isBlank()) throw new AuditInputException(where + ": field 'id' is missing");
            double submit = number(j, "submit", where, id);
            double due = number(j, "due", where, id);
            double weight = number(j, "weight", where, id);
            double factor = j.hasNonNull("actualFactor") ? number(j, "actualFactor", where, id) : 1.0;
            if (!(factor > 0)) throw new AuditInputException(where + ": job " + id + ": actualFactor must be > 0");
            JsonNode times = j.get("times");
            if (times == null || !times.isObject())
                throw new AuditInputException(where + ": job " + id + ": field 'times' is missing or not an object");
            int n = 0;
            for (JsonNode perGpus : times) n += perGpus.size();
            String[] typeOf = new String[n];
            int[] gpus = new int[n];
            double[] seconds = new double[n];
            int i = 0;
            for (Iterator<Map.Entry<String, JsonNode>> it = times.fields(); it.hasNext(); ) {
                var byType = it.next();
                String type = typeNames.computeIfAbsent(byType.getKey(), k -> k);
                for (Iterator<Map.Entry<String, JsonNode>> g = byType.getValue().fields(); g.hasNext(); ) {
                    var e = g.next();
                    try {
                        gpus[i] = Integer.parseInt(e.getKey());
                    } catch (NumberFormatException ex) {
                        throw new AuditInputException(where + ": job " + id + ": times." + byType.getKey()
                                + " has GPU count '" + e.getKey() + "'");
                    }
                    typeOf[i] = type;
                    seconds[i++] = e.getValue().asDouble();
                }
            }
            return new JobSpec(id, submit, due, weight, typeOf, gpus, seconds, factor);
        }

        @Override
        public void close() {
            try {
                in.close();
            } catch (IOException e) {
                // read-only: nothing was lost
            }
        }
    }

    private static double number(JsonNode j, String field, String where, String id) {
        JsonNode v = j.get(field);
        if (v == null || !v.isNumber())
            throw new AuditInputException(where + ": job " + id + ": field '" + field + "' is missing or not a number");
        return v.asDouble();
    }

    static JsonNode readTree(Path file) {
        try {
            JsonNode n = JSON.readTree(Files.readString(file));
            if (n == null || n.isMissingNode()) throw new AuditInputException(file + ": empty");
            return n;
        } catch (NoSuchFileException e) {
            throw new AuditInputException(file + ": missing");
        } catch (JsonProcessingException e) {
            var loc = e.getLocation();
            throw new AuditInputException(file + (loc == null ? "" : ":" + loc.getLineNr()) + ": not valid JSON ("
                    + e.getOriginalMessage() + ")");
        } catch (IOException e) {
            throw new AuditInputException(file + ": cannot read (" + e.getMessage() + ")", e);
        }
    }
}
