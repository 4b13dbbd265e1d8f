package org.gpusched.audit;

import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.dataformat.csv.CsvMapper;
import com.fasterxml.jackson.dataformat.csv.CsvSchema;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.gpusched.powerflow.sim.RunSetup;
import org.gpusched.powerflow.sim.TraceFiles;
import org.gpusched.powerflow.sim.TraceJob;
import org.gpusched.powerflow.truth.GroundTruth;
import org.gpusched.powerflow.truth.PowerflowConfig;
import org.gpusched.powerflow.truth.ZeusMeasurements;

/**
 * The independent audit of a PowerFlow run directory ({@code gpusched powerflow --out DIR}): for every run in
 * results.csv, replays decisions-RUN.csv (each change of a job's GPU count and power limit) against the ground truth
 * of the directory's powerflow.yaml and the bundled Zeus measurements, with the jobs of trace.jsonl, and recomputes
 * what the simulator reported: each job's progress, completion time and GPU energy (the offline pre-run on one GPU at
 * every limit included when the run profiled: its energy, no progress; profiling on the cluster is in the decisions), the idle GPUs' energy of the powered nodes (power-RUN.csv's node count,
 * checked against the GPUs in use), the cluster's power after each decision, total energy and mean JCT. A run that
 * time-slices (setup.json's {@code timeSlicing}, Gandiva) charges each resume after a suspension: the job's GPUs are
 * powered for the resume overhead and it makes no progress. It shares no code with the simulator beyond the ground
 * truth itself.
 */
public final class PowerflowEnergyAudit {
    /** Allowed differences: seconds for times, relative (and absolute, in J or W) for energies and powers. */
    public record Tolerances(double timeSeconds, double energyRelative) {}

    private static final CsvMapper CSV = new CsvMapper();

    private PowerflowEnergyAudit() {}

    public static boolean isRunDirectory(Path dir) {
        return RunSetup.isRunDirectory(dir);
    }

    /** Every run of the directory, by name, in results.csv order. */
    public static Map<String, AuditReport> audit(Path dir, Tolerances tol) {
        RunSetup setup;
        GroundTruth truth;
        List<TraceJob> trace;
        try {
            setup = RunSetup.read(dir);
            truth = new GroundTruth(PowerflowConfig.read(dir.resolve(RunSetup.CONFIG)), ZeusMeasurements.v100());
            trace = TraceFiles.read(dir.resolve(RunSetup.TRACE), truth);
        } catch (IOException | IllegalArgumentException e) {
            throw new AuditInputException(dir + ": " + e.getMessage(), e);
        }
        Map<String, AuditReport> out = new LinkedHashMap<>();
        for (Map<String, String> row : rows(dir.resolve("results.csv"), "run", "energy_kwh", "idle_kwh", "profiled"))
            out.put(row.get("run"), new Replay(dir, row, setup, truth, trace, tol).run());
        return out;
    }

    private static final class JobState {
        final TraceJob trace;
        final double ready;
        double done, energy, finish = Double.NaN, step, watts, resumeEnd = Double.NEGATIVE_INFINITY;
        int gpus;
        boolean arrived, ran;

        JobState(TraceJob trace, double ready) {
            this.trace = trace;
            this.ready = ready;
        }

        double remaining() {
            return Math.max(0, trace.iterations() - done);
        }

        /**
         * Its work is done: what is left takes under a microsecond on its GPUs, or is rounding noise. Not a share of
         * the job: the simulated cluster ends a job at the first millisecond its work is done, and a long job's
         * last fraction of a millisecond is still within a relative 1e-6 of its iterations.
         */
        boolean complete() {
            double left = remaining();
            return left <= 1e-9 * trace.iterations() || (gpus > 0 && left * step <= 1e-6);
        }
    }

    private static final class Replay {
        final Path dir;
        final String run;
        final Map<String, String> result;
        final RunSetup setup;
        final GroundTruth truth;
        final Tolerances tol;
        final PowerflowConfig.Gpu gpu;
        final boolean profiled;
        final double resume;
        final Map<Long, JobState> jobs = new LinkedHashMap<>();
        final List<Violation> violations = new ArrayList<>();
        final Map<Violation.Kind, Long> counts = new EnumMap<>(Violation.Kind.class);

        Replay(
                Path dir,
                Map<String, String> result,
                RunSetup setup,
                GroundTruth truth,
                List<TraceJob> trace,
                Tolerances tol) {
            this.dir = dir;
            this.run = result.get("run");
            this.result = result;
            this.setup = setup;
            this.truth = truth;
            this.tol = tol;
            this.gpu = truth.config().gpu();
            this.profiled = Boolean.parseBoolean(result.get("profiled"));
            this.resume = setup.timeSlicing(run).resumeSeconds();
            double profile = profiled
                    ? truth.config().telemetry().profileSecondsPerLimit()
                            * gpu.powerLimits().size()
                    : 0;
            for (TraceJob t : trace) jobs.put(t.id(), new JobState(t, t.submit() + profile));
        }

        AuditReport run() {
            List<Map<String, String>> power = rows(dir.resolve("power-" + run + ".csv"), "time_s", "watts", "nodes_on");
            List<Map<String, String>> changes =
                    rows(dir.resolve("decisions-" + run + ".csv"), "time_s", "job", "gpus", "power_limit_w");
            int gpn = gpu.gpusPerNode(), nodes = setup.gpus() / gpn;
            double now = 0, idle = 0;
            int nodesOn = 0, allocated = 0, c = 0;
            for (int k = 0; k < power.size(); k++) {
                String where = "power-" + run + ".csv:" + (k + 2);
                double t = number(power.get(k), "time_s", where);
                if (t < now) flag(Violation.Kind.TIME_ORDER, t, null, where + ": time goes back from " + now);
                double dt = t - now;
                idle += dt * gpu.idleWatts() * (nodesOn * gpn - allocated);
                for (JobState j : jobs.values()) {
                    if (j.gpus == 0) continue;
                    double end = Math.max(now, j.resumeEnd) + j.remaining() * j.step;
                    if (end < t - tol.timeSeconds())
                        flag(Violation.Kind.COMPLETION_TIME, t, j, "its work was done at " + end + " s, it ran on");
                    // a resume's overhead: powered, no progress
                    j.done += (t - Math.max(now, Math.min(t, j.resumeEnd))) / j.step;
                    j.energy += dt * j.watts;
                }
                now = t;
                for (JobState j : jobs.values())
                    if (j.gpus > 0 && j.complete()) {
                        j.finish = now;
                        j.gpus = 0;
                    }
                // within the time tolerance: the streaming replay decides at whole milliseconds
                for (JobState j : jobs.values())
                    if (!j.arrived && j.ready <= now + tol.timeSeconds()) {
                        j.arrived = true;
                        if (profiled) profile(j);
                        if (j.complete()) j.finish = now;
                    }
                for (; c < changes.size(); c++) {
                    Map<String, String> ch = changes.get(c);
                    String at = "decisions-" + run + ".csv:" + (c + 2);
                    double ct = number(ch, "time_s", at);
                    if (ct > now) break;
                    if (ct < now) {
                        flag(Violation.Kind.TIME_ORDER, ct, null, at + ": no decision was taken at this time");
                        continue;
                    }
                    apply(ch, at, now);
                }
                allocated = 0;
                double watts = 0;
                for (JobState j : jobs.values()) {
                    allocated += j.gpus;
                    if (j.gpus > 0) watts += j.watts;
                }
                nodesOn = (int) number(power.get(k), "nodes_on", where);
                if (allocated > setup.gpus())
                    flag(Violation.Kind.CAPACITY, now, null, allocated + " GPUs in use of " + setup.gpus());
                if (nodesOn * gpn < allocated || nodesOn > nodes)
                    flag(Violation.Kind.CAPACITY, now, null, nodesOn + " nodes on for " + allocated + " GPUs in use");
                watts += gpu.idleWatts() * (nodesOn * gpn - allocated);
                double reportedWatts = number(power.get(k), "watts", where);
                if (Math.abs(reportedWatts - watts) > 0.051 + tol.energyRelative() * watts)
                    flag(
                            Violation.Kind.METRICS,
                            now,
                            null,
                            where + ": power " + reportedWatts + " W, recomputed " + watts);
            }
            for (; c < changes.size(); c++)
                flag(
                        Violation.Kind.TIME_ORDER,
                        Double.NaN,
                        null,
                        "decisions-" + run + ".csv:" + (c + 2) + ": after the last decision");
            return report(idle, power.size());
        }

        private void apply(Map<String, String> ch, String at, double now) {
            long id = (long) number(ch, "job", at);
            JobState j = jobs.get(id);
            if (j == null) {
                flag(Violation.Kind.UNKNOWN_JOB, now, null, at + ": job " + id + " is not in trace.jsonl");
                return;
            }
            int gpus = (int) number(ch, "gpus", at);
            double limit = number(ch, "power_limit_w", at);
            if (gpus > 0 && (!j.arrived || !Double.isNaN(j.finish))) {
                flag(
                        Violation.Kind.START_BEFORE_SUBMIT,
                        now,
                        j,
                        at + ": GPUs given to a job "
                                + (j.arrived ? "already complete" : "not ready until " + j.ready));
                return;
            }
            if (gpus > 0 && j.gpus == 0 && j.ran && resume > 0) j.resumeEnd = now + resume;
            j.gpus = gpus;
            if (gpus > 0) {
                j.ran = true;
                try {
                    GroundTruth.Outcome o = truth.at(j.trace.workload(), gpus, j.trace.batch(), limit);
                    j.step = o.stepTime();
                    j.watts = o.power();
                } catch (IllegalArgumentException e) {
                    flag(Violation.Kind.NO_CONFIGURATION, now, j, at + ": " + e.getMessage());
                    j.gpus = 0;
                }
            }
        }

        /** The offline pre-run: one GPU at every limit for the profiling time each; energy, no progress. */
        private void profile(JobState j) {
            for (double limit : gpu.powerLimits()) {
                GroundTruth.Outcome o = truth.at(j.trace.workload(), 1, j.trace.batch(), limit);
                j.energy += truth.config().telemetry().profileSecondsPerLimit() * o.power();
            }
        }

        private AuditReport report(double idle, long decisions) {
            Map<Long, Map<String, String>> reportedJobs = new HashMap<>();
            for (Map<String, String> r : rows(dir.resolve("jobs-" + run + ".csv"), "id", "finish_s", "energy_j"))
                reportedJobs.put((long) number(r, "id", "jobs-" + run + ".csv"), r);
            double energy = idle, jct = 0;
            int completed = 0;
            for (JobState j : jobs.values()) {
                energy += j.energy;
                if (Double.isNaN(j.finish)) {
                    flag(Violation.Kind.INCOMPLETE, Double.NaN, j, j.remaining() + " iterations never run");
                    continue;
                }
                completed++;
                jct += j.finish - j.trace.submit();
                Map<String, String> r = reportedJobs.get(j.trace.id());
                if (r == null) {
                    flag(Violation.Kind.INCOMPLETE, j.finish, j, "complete, but not in jobs-" + run + ".csv");
                    continue;
                }
                double finish = number(r, "finish_s", "jobs-" + run + ".csv"),
                        e = number(r, "energy_j", "jobs-" + run + ".csv");
                if (Math.abs(finish - j.finish) > tol.timeSeconds())
                    flag(Violation.Kind.COMPLETION_TIME, j.finish, j, "reported finish " + finish + " s");
                if (Math.abs(e - j.energy) > 0.001 + tol.energyRelative() * j.energy)
                    flag(Violation.Kind.METRICS, j.finish, j, "reported energy " + e + " J, recomputed " + j.energy);
            }
            if (reportedJobs.size() != completed)
                flag(
                        Violation.Kind.INCOMPLETE,
                        Double.NaN,
                        null,
                        "jobs-" + run + ".csv lists " + reportedJobs.size() + " jobs, " + completed + " completed");
            Map<String, Double> recomputed = new LinkedHashMap<>(), reported = new LinkedHashMap<>();
            recomputed.put("energyKWh", energy / 3.6e6);
            recomputed.put("idleKWh", idle / 3.6e6);
            recomputed.put("meanJctSeconds", completed == 0 ? Double.NaN : jct / completed);
            recomputed.put("completedJobs", (double) completed);
            String at = "results.csv (" + run + ")";
            reported.put("energyKWh", number(result, "energy_kwh", at));
            reported.put("idleKWh", number(result, "idle_kwh", at));
            reported.put("meanJctSeconds", number(result, "mean_jct_s", at));
            reported.put("completedJobs", number(result, "jobs", at));
            for (String m : List.of("energyKWh", "idleKWh")) {
                double a = recomputed.get(m), b = reported.get(m);
                if (Math.abs(a - b) > 1e-6 + tol.energyRelative() * Math.abs(a))
                    flag(Violation.Kind.METRICS, Double.NaN, null, m + ": reported " + b + ", recomputed " + a);
            }
            if (Math.abs(recomputed.get("meanJctSeconds") - reported.get("meanJctSeconds")) > tol.timeSeconds())
                flag(
                        Violation.Kind.METRICS,
                        Double.NaN,
                        null,
                        "meanJctSeconds: reported " + reported.get("meanJctSeconds"));
            if (!recomputed.get("completedJobs").equals(reported.get("completedJobs")))
                flag(Violation.Kind.METRICS, Double.NaN, null, "jobs: reported " + reported.get("completedJobs"));
            return new AuditReport(
                    violations, counts, recomputed, reported, jobs.size(), setup.gpus() / gpu.gpusPerNode(), decisions);
        }

        private void flag(Violation.Kind kind, double time, JobState j, String message) {
            counts.merge(kind, 1L, Long::sum);
            if (violations.size() < RunAuditor.MAX_LISTED)
                violations.add(
                        new Violation(kind, time, j == null ? null : String.valueOf(j.trace.id()), null, message));
        }
    }

    private static List<Map<String, String>> rows(Path file, String... required) {
        if (!Files.isRegularFile(file)) throw new AuditInputException(file + ": no such file");
        List<Map<String, String>> out = new ArrayList<>();
        try (MappingIterator<Map<String, String>> it = CSV.readerForMapOf(String.class)
                .with(CsvSchema.emptySchema().withHeader())
                .readValues(file.toFile())) {
            while (it.hasNextValue()) {
                Map<String, String> r = it.nextValue();
                for (String f : required)
                    if (r.get(f) == null)
                        throw new AuditInputException(file + ":" + (out.size() + 2) + ": field '" + f + "' is missing");
                out.add(r);
            }
        } catch (IOException | RuntimeException e) {
            if (e instanceof AuditInputException a) throw a;
            throw new AuditInputException(file + ":" + (out.size() + 2) + ": unreadable (" + e.getMessage() + ")", e);
        }
        return out;
    }

    private static double number(Map<String, String> row, String field, String where) {
        String v = row.get(field);
        try {
            return Double.parseDouble(v);
        } catch (RuntimeException e) {
            throw new AuditInputException(where + ": field '" + field + "' is not a number: '" + v + "'");
        }
    }
}
