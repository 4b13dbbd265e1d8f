package org.gpusched.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;
import org.gpusched.core.model.MoveCost;
import org.gpusched.formats.FormatException;
import org.gpusched.rundir.JsonLines;

/**
 * A run directory's schedule as the steps of the GPUScheduler simulator: the steps are the intervals between
 * consecutive event times (a submission or a decision), and each step has one row for every job submitted and not
 * yet finished at its start, with the placement it holds during the step (run.json, jobs.jsonl, decisions.jsonl).
 * Done fractions are integrated over the placements at 1 / (times[type][gpus] x actualFactor), with the moves
 * charged as run.json's {@code moveCost} says and as the run itself charged them (the audit's reading): a job
 * PREEMPTed, MIGRATEd or RESIZEd falls back to its last snapshot, and a job placed again progresses only after the
 * restore time, its GPUs busy meanwhile. Only the step in which a job's COMPLETE falls at its end carries
 * CompletionPercent 100, its FinishTime and its tardiness; an earlier step shows at most {@link #UNFINISHED_PERCENT},
 * so that no rounding makes the cost rule take a job for finished before it is.
 */
final class RunScheduleSteps {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** Below {@link CommonRuleCost#FINISHED_PERCENT} and below what 6 significant digits print as 100. */
    static final double UNFINISHED_PERCENT = 99.9999;

    private record VmType(String gpuModel, double[] costPerHour) {}

    private static final class JobRun {
        final String id;
        final double submit, due, weightPerHour, factor;
        final Map<String, Map<Integer, Double>> times;
        final String application, images, epochs, batchSize, profiledJob;
        String node = "", type = "";
        int gpus;
        double done, firstStart = Double.NaN, completedAt = Double.NaN;
        /** When the job begins (or, restoring a snapshot, will begin) to progress on its current placement. */
        double progressFrom;

        JobRun(
                String id,
                double submit,
                double due,
                double weightPerHour,
                double factor,
                Map<String, Map<Integer, Double>> times,
                JsonNode line) {
            this.id = id;
            this.submit = submit;
            this.due = due;
            this.weightPerHour = weightPerHour;
            this.factor = factor;
            this.times = times;
            application = extra(line, "application");
            images = extra(line, "images");
            epochs = extra(line, "epochs");
            batchSize = extra(line, "batchSize");
            profiledJob = extra(line, "profiledJob");
        }

        double seconds(String t, int g) {
            Map<Integer, Double> byGpus = times.get(t);
            Double s = byGpus == null ? null : byGpus.get(g);
            return s == null ? Double.NaN : s * factor;
        }
    }

    private record Decision(double time, String job, String action, String node, String type, int gpus, String where) {}

    private RunScheduleSteps() {}

    /** Streams the rows of every step of the run in {@code runDir} to {@code sink}, step by step. */
    static void rows(Path runDir, Consumer<GpuSchedulerScheduleCsv.Row> sink) {
        if (!Files.isDirectory(runDir))
            throw new FormatException(runDir + ": not a run directory (no such directory)", null);
        JsonNode run = tree(runDir.resolve("run.json"));
        Map<String, VmType> types = readTypes(run, runDir.resolve("run.json"));
        MoveCost moves = readMoveCost(run, runDir.resolve("run.json"));
        Map<String, JobRun> jobs = readJobs(runDir.resolve("jobs.jsonl"));
        List<Decision> decisions = readDecisions(runDir.resolve("decisions.jsonl"), jobs, types);
        for (Decision d : decisions) if (d.action().equals("COMPLETE")) jobs.get(d.job()).completedAt = d.time();

        TreeSet<Double> times = new TreeSet<>();
        jobs.values().forEach(j -> times.add(j.submit));
        decisions.forEach(d -> times.add(d.time()));
        List<JobRun> bySubmit = new ArrayList<>(jobs.values());
        bySubmit.sort(java.util.Comparator.comparingDouble(j -> j.submit));
        Set<JobRun> queue = new LinkedHashSet<>();
        int nextJob = 0, nextDecision = 0;
        long step = 0;
        Double[] boundaries = times.toArray(Double[]::new);
        for (int k = 0; k < boundaries.length; k++) {
            double now = boundaries[k];
            while (nextJob < bySubmit.size() && bySubmit.get(nextJob).submit <= now) queue.add(bySubmit.get(nextJob++));
            while (nextDecision < decisions.size()
                    && decisions.get(nextDecision).time() <= now) {
                Decision d = decisions.get(nextDecision++);
                JobRun j = jobs.get(d.job());
                switch (d.action()) {
                    case "START" -> place(j, d, now, moves);
                    case "RESIZE", "MIGRATE" -> {
                        stop(j, now, moves);
                        place(j, d, now, moves);
                    }
                    case "PREEMPT" -> stop(j, now, moves);
                    case "COMPLETE" -> {
                        unplace(j);
                        queue.remove(j);
                    }
                    default -> {}
                }
            }
            if (k + 1 == boundaries.length || queue.isEmpty()) continue;
            double end = boundaries[k + 1], dt = end - now;
            step++;
            Map<String, Integer> busy = new HashMap<>();
            for (JobRun j : queue) if (!j.node.isEmpty()) busy.merge(j.node, j.gpus, Integer::sum);
            for (JobRun j : queue) sink.accept(row(j, step, now, end, dt, busy, types));
        }
    }

    private static GpuSchedulerScheduleCsv.Row row(
            JobRun j,
            long step,
            double now,
            double end,
            double dt,
            Map<String, Integer> busy,
            Map<String, VmType> types) {
        double min = Double.POSITIVE_INFINITY, max = 0;
        for (var byType : j.times.entrySet()) {
            for (var e : byType.getValue().entrySet()) {
                double s = e.getValue() * j.factor * (1 - j.done);
                min = Math.min(min, s);
                max = Math.max(max, s);
            }
        }
        boolean placed = !j.node.isEmpty();
        double seconds = 0, price = 0, vmCost = 0;
        String gpuModel = "";
        if (placed) {
            seconds = dt;
            VmType vm = types.get(j.type);
            int onNode = busy.get(j.node);
            price = vm.costPerHour()[Math.min(onNode, vm.costPerHour().length - 1)];
            vmCost = dt * price / 3600 * j.gpus / onNode;
            gpuModel = vm.gpuModel();
            j.done += Math.max(0, end - Math.max(now, j.progressFrom)) / j.seconds(j.type, j.gpus);
        }
        boolean finishes = j.completedAt == end;
        double percent = finishes ? 100 : Math.min(UNFINISHED_PERCENT, 100 * j.done);
        double tardiness = finishes ? Math.max(0, end - j.due) : 0;
        double weightPerSecond = j.weightPerHour / 3600;
        return new GpuSchedulerScheduleCsv.Row(
                step,
                end,
                j.application,
                j.images,
                j.epochs,
                j.batchSize,
                j.profiledJob,
                j.id,
                j.submit,
                j.due,
                weightPerSecond,
                min,
                max,
                seconds,
                percent,
                Double.isNaN(j.firstStart) ? now : j.firstStart,
                finishes ? end : 0,
                j.node,
                j.type,
                gpuModel,
                j.gpus,
                price,
                tardiness,
                vmCost,
                tardiness * weightPerSecond);
    }

    /** Places the job; a job placed again (after a move, or started after having run) first restores its snapshot. */
    private static void place(JobRun j, Decision d, double now, MoveCost moves) {
        j.node = d.node();
        j.type = d.type();
        j.gpus = d.gpus();
        j.progressFrom = Double.isNaN(j.firstStart) ? now : now + moves.restartOverheadSeconds();
        if (Double.isNaN(j.firstStart)) j.firstStart = now;
    }

    /**
     * Ends the job's placement at {@code now}: it falls back to its last snapshot, losing the progress made since
     * (counted in whole milliseconds, run.json's time resolution, as the run and the audit count it).
     */
    private static void stop(JobRun j, double now, MoveCost moves) {
        if (!j.node.isEmpty()) {
            long progressing = Math.round(Math.max(0, now - j.progressFrom) * 1000);
            double lost = moves.lostMillis(progressing) / 1000.0;
            j.done = Math.max(0, Math.min(j.done, 1) - lost / j.seconds(j.type, j.gpus));
        }
        unplace(j);
    }

    private static void unplace(JobRun j) {
        j.node = "";
        j.type = "";
        j.gpus = 0;
    }

    private static String extra(JsonNode line, String field) {
        JsonNode v = line.get(field);
        return v == null || v.isNull() ? "" : v.asText();
    }

    /** run.json's {@code moveCost}; absent (a run of before moves were charged): free moves. */
    private static MoveCost readMoveCost(JsonNode run, Path file) {
        JsonNode m = run.path("moveCost");
        try {
            return new MoveCost(
                    m.path("snapshotIntervalSeconds").asDouble(0),
                    m.path("restartOverheadSeconds").asDouble(0));
        } catch (IllegalArgumentException e) {
            throw new FormatException(file + ": moveCost: " + e.getMessage(), "moveCost");
        }
    }

    private static Map<String, VmType> readTypes(JsonNode run, Path file) {
        JsonNode nodeTypes = run.get("nodeTypes");
        if (nodeTypes == null || !nodeTypes.isObject())
            throw new FormatException(file + ": field 'nodeTypes' is missing", "nodeTypes");
        Map<String, VmType> types = new HashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = nodeTypes.fields(); it.hasNext(); ) {
            var e = it.next();
            JsonNode cost = e.getValue().get("costPerHour");
            if (cost == null || !cost.isArray() || cost.isEmpty())
                throw new FormatException(file + ": nodeTypes." + e.getKey() + ".costPerHour is missing", "nodeTypes");
            double[] rates = new double[cost.size()];
            for (int g = 0; g < rates.length; g++) rates[g] = cost.get(g).asDouble();
            types.put(e.getKey(), new VmType(e.getValue().path("gpuModel").asText(e.getKey()), rates));
        }
        return types;
    }

    private static Map<String, JobRun> readJobs(Path file) {
        Map<String, JobRun> jobs = new LinkedHashMap<>();
        lines(file, (line, where) -> {
            String id = line.path("id").asText("");
            if (id.isEmpty()) throw new FormatException(where + ": field 'id' is missing", "id");
            JsonNode times = line.get("times");
            if (times == null || !times.isObject())
                throw new FormatException(where + ": job " + id + ": field 'times' is missing", "times");
            Map<String, Map<Integer, Double>> parsed = new HashMap<>();
            for (Iterator<Map.Entry<String, JsonNode>> it = times.fields(); it.hasNext(); ) {
                var byType = it.next();
                Map<Integer, Double> byGpus = new HashMap<>();
                for (Iterator<Map.Entry<String, JsonNode>> g = byType.getValue().fields(); g.hasNext(); ) {
                    var e = g.next();
                    try {
                        byGpus.put(Integer.parseInt(e.getKey()), e.getValue().asDouble());
                    } catch (NumberFormatException ex) {
                        throw new FormatException(
                                where + ": job " + id + ": times." + byType.getKey() + " has GPU count '" + e.getKey()
                                        + "'",
                                "times");
                    }
                }
                parsed.put(byType.getKey(), byGpus);
            }
            double factor = line.hasNonNull("actualFactor") ? number(line, "actualFactor", where) : 1;
            if (jobs.put(
                            id,
                            new JobRun(
                                    id,
                                    number(line, "submit", where),
                                    number(line, "due", where),
                                    number(line, "weight", where),
                                    factor,
                                    parsed,
                                    line))
                    != null) {
                throw new FormatException(where + ": job " + id + " appears twice", "id");
            }
        });
        return jobs;
    }

    private static List<Decision> readDecisions(Path file, Map<String, JobRun> jobs, Map<String, VmType> types) {
        List<Decision> out = new ArrayList<>();
        lines(file, (d, where) -> {
            double time = number(d, "time", where);
            if (!out.isEmpty() && time < out.get(out.size() - 1).time())
                throw new FormatException(
                        where + ": time goes back from "
                                + out.get(out.size() - 1).time(),
                        "time");
            String job = d.path("job").asText("");
            JobRun j = jobs.get(job);
            if (j == null) throw new FormatException(where + ": job '" + job + "' is not in jobs.jsonl", "job");
            String action = d.path("action").asText("");
            String node = d.path("node").asText(""), type = d.path("type").asText("");
            int gpus = d.path("gpus").asInt(0);
            if (Set.of("START", "RESIZE", "MIGRATE").contains(action)) {
                if (node.isEmpty() || !types.containsKey(type) || Double.isNaN(j.seconds(type, gpus))) {
                    throw new FormatException(
                            where + ": " + action + " of job " + job
                                    + " needs a node and a (type, gpus) of its times, got node '" + node + "', type '"
                                    + type + "', gpus " + gpus,
                            "type");
                }
            } else if (!Set.of("PREEMPT", "COMPLETE").contains(action)) {
                throw new FormatException(where + ": unknown action '" + action + "'", "action");
            }
            out.add(new Decision(time, job, action, node, type, gpus, where));
        });
        return out;
    }

    private static void lines(Path file, JsonLines.TreeHandler handler) {
        try {
            JsonLines.forEach(file, JSON, message -> new FormatException(message, null), handler);
        } catch (NoSuchFileException e) {
            throw new FormatException(file + ": missing", null);
        } catch (IOException e) {
            throw new FormatException(file + ": cannot read (" + e.getMessage() + ")", null, e);
        }
    }

    /** A run-directory JSON file; missing or malformed, a {@link FormatException} naming it. */
    static JsonNode tree(Path file) {
        try {
            return JSON.readTree(Files.readString(file));
        } catch (NoSuchFileException e) {
            throw new FormatException(file + ": missing", null);
        } catch (IOException e) {
            throw new FormatException(
                    file + ": not valid JSON ("
                            + e.getMessage().lines().findFirst().orElse("") + ")",
                    null);
        }
    }

    private static double number(JsonNode j, String field, String where) {
        JsonNode v = j.get(field);
        if (v == null || !v.isNumber())
            throw new FormatException(where + ": field '" + field + "' is missing or not a number", field);
        return v.asDouble();
    }
}
