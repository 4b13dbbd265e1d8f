package org.gpusched.audit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The independent audit of a live PowerFlow run directory ({@code run --policy powerflow --bounded --out}): each
 * finished job's energy in job-energy.jsonl recomputed from the telemetry the scheduler received (telemetry.jsonl) and
 * its decisions (decisions.jsonl). The rule, written here again from its documentation (docs/powerflow.md) and
 * sharing no code with the scheduler: a job's samples of one time count as their mean {@code gpuPowerWatts} over the
 * time since its previous sample (or its submission), or since it last started after holding no GPU; they count while
 * the job has not yet started (its profiling) or holds GPUs just before that time, and not while it waits. Also checks
 * each JCT (completion - submit) and that every finished job has its COMPLETE decision.
 */
public final class PowerflowTelemetryAudit {
    /** The marker file of a live run directory. */
    public static final String LIVE = "live.json";

    private static final ObjectMapper JSON = new ObjectMapper();

    private PowerflowTelemetryAudit() {}

    public static boolean isRunDirectory(Path dir) {
        return Files.isRegularFile(dir.resolve(LIVE)) && Files.isRegularFile(dir.resolve("job-energy.jsonl"));
    }

    /** The audit: per job, the reported energy against the recomputed one, within {@code relative}. */
    public static AuditReport audit(Path dir, double relative, double timeSeconds) {
        List<JsonNode> energies = lines(dir.resolve("job-energy.jsonl"));
        List<JsonNode> telemetry = lines(dir.resolve("telemetry.jsonl"));
        List<JsonNode> decisions = lines(dir.resolve("decisions.jsonl"));
        Map<String, TreeMap<Long, double[]>> samples = new LinkedHashMap<>(); // job -> time ms -> [power sum, count]
        for (int i = 0; i < telemetry.size(); i++) {
            JsonNode t = telemetry.get(i);
            if (!t.hasNonNull("gpuPowerWatts") || !t.hasNonNull("stepSeconds")) continue;
            String where = "telemetry.jsonl:" + (i + 1);
            double[] g = samples.computeIfAbsent(text(t, "job", where), j -> new TreeMap<>())
                    .computeIfAbsent(millis(number(t, "time", where)), m -> new double[2]);
            g[0] += number(t, "gpuPowerWatts", where);
            g[1]++;
        }
        Map<String, List<double[]>> changes = new LinkedHashMap<>(); // job -> [time ms, gpus after]
        Map<String, Double> completed = new LinkedHashMap<>();
        for (int i = 0; i < decisions.size(); i++) {
            JsonNode d = decisions.get(i);
            String where = "decisions.jsonl:" + (i + 1);
            String job = text(d, "job", where), action = text(d, "action", where);
            double time = number(d, "time", where);
            if (action.equals("COMPLETE")) completed.put(job, time);
            else
                changes.computeIfAbsent(job, j -> new ArrayList<>())
                        .add(new double[] {millis(time), action.equals("PREEMPT") ? 0 : number(d, "gpus", where)});
        }
        List<Violation> violations = new ArrayList<>();
        Map<Violation.Kind, Long> counts = new EnumMap<>(Violation.Kind.class);
        double reported = 0, recomputed = 0, jct = 0;
        for (int i = 0; i < energies.size(); i++) {
            JsonNode e = energies.get(i);
            String where = "job-energy.jsonl:" + (i + 1);
            String job = text(e, "job", where);
            double submit = number(e, "submit", where), time = number(e, "time", where);
            double energy = number(e, "energyJoules", where);
            double expected =
                    energy(samples.getOrDefault(job, new TreeMap<>()), changes.getOrDefault(job, List.of()), submit);
            reported += energy;
            recomputed += expected;
            jct += time - submit;
            if (Math.abs(energy - expected) > 1e-6 + relative * Math.abs(expected))
                flag(
                        violations,
                        counts,
                        Violation.Kind.METRICS,
                        time,
                        job,
                        where + ": reported energy " + energy + " J, recomputed " + expected + " from its telemetry");
            if (Math.abs(number(e, "jctSeconds", where) - (time - submit)) > timeSeconds)
                flag(
                        violations,
                        counts,
                        Violation.Kind.METRICS,
                        time,
                        job,
                        where + ": jctSeconds is not time - submit");
            Double complete = completed.get(job);
            if (complete == null || Math.abs(complete - time) > timeSeconds)
                flag(
                        violations,
                        counts,
                        Violation.Kind.INCOMPLETE,
                        time,
                        job,
                        where + ": no COMPLETE decision at " + time + " s");
        }
        Map<String, Double> rec = new LinkedHashMap<>(), rep = new LinkedHashMap<>();
        int n = energies.size();
        rec.put("energyKWh", recomputed / 3.6e6);
        rep.put("energyKWh", reported / 3.6e6);
        rec.put("completedJobs", (double) n);
        rep.put("completedJobs", (double) completed.size());
        rec.put("meanJctSeconds", n == 0 ? Double.NaN : jct / n);
        return new AuditReport(violations, counts, rec, rep, n, 0, decisions.size());
    }

    /** The rule of the class comment, over one job's samples (time ms -> [power sum, count]) and its changes. */
    private static double energy(TreeMap<Long, double[]> samples, List<double[]> changes, double submit) {
        double energy = 0;
        long previous = millis(submit);
        for (var s : samples.entrySet()) {
            long at = s.getKey();
            long started = -1;
            double gpus = 0;
            for (double[] c : changes) {
                if (c[0] >= at) break;
                if (gpus == 0 && c[1] > 0) started = (long) c[0];
                gpus = c[1];
            }
            boolean draws = started < 0 || gpus > 0;
            long from = Math.max(previous, started);
            if (draws && at > from) energy += s.getValue()[0] / s.getValue()[1] * (at - from) / 1000.0;
            previous = Math.max(previous, at);
        }
        return energy;
    }

    /** Seconds to the stream's millisecond grid, as its parser rounds (up). */
    private static long millis(double seconds) {
        return (long) Math.ceil(seconds * 1000 - 1e-6);
    }

    private static void flag(
            List<Violation> out,
            Map<Violation.Kind, Long> counts,
            Violation.Kind kind,
            double t,
            String job,
            String m) {
        counts.merge(kind, 1L, Long::sum);
        if (out.size() < RunAuditor.MAX_LISTED) out.add(new Violation(kind, t, job, null, m));
    }

    private static List<JsonNode> lines(Path file) {
        if (!Files.isRegularFile(file)) throw new AuditInputException(file + ": no such file");
        List<JsonNode> out = new ArrayList<>();
        int line = 0;
        try {
            for (String l : Files.readAllLines(file)) {
                line++;
                if (!l.isBlank()) out.add(JSON.readTree(l));
            }
        } catch (IOException e) {
            throw new AuditInputException(file + ":" + line + ": unreadable (" + e.getMessage() + ")", e);
        }
        return out;
    }

    private static String text(JsonNode n, String field, String where) {
        if (!n.hasNonNull(field)) throw new AuditInputException(where + ": field '" + field + "' is missing");
        return n.get(field).asText();
    }

    private static double number(JsonNode n, String field, String where) {
        if (!n.hasNonNull(field) || !n.get(field).isNumber())
            throw new AuditInputException(where + ": field '" + field + "' is missing or not a number");
        return n.get(field).asDouble();
    }
}
