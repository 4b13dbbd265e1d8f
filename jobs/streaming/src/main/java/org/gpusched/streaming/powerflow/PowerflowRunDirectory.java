package org.gpusched.streaming.powerflow;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.gpusched.powerflow.sim.ClusterRun;
import org.gpusched.powerflow.sim.Experiment;
import org.gpusched.powerflow.sim.ModelSource;
import org.gpusched.powerflow.sim.RunSetup;
import org.gpusched.powerflow.sim.Simulation;
import org.gpusched.powerflow.sim.TraceFiles;
import org.gpusched.powerflow.sim.TraceJob;
import org.gpusched.powerflow.truth.GroundTruth;
import org.gpusched.streaming.file.RunDirectoryWriter;

/**
 * The run directory of a streaming powerflow replay: each output's part files merged into {@code NAME.jsonl} (time,
 * then sequence order), and the energy and JCT accounting in the files and format of {@code gpusched powerflow --out}
 * ({@link Experiment}): {@code results.csv}/{@code .json} and {@code summary.txt} (one run, {@code powerflow@etaE}),
 * {@code jobs-RUN.csv} (each job's JCT and true GPU energy, profiling included), {@code power-RUN.csv} (cluster power
 * with the idle GPUs of powered nodes, GPUs allocated and nodes on after each decision), {@code decisions-RUN.csv}
 * (every change of a job's GPU count or power limit) and the setup the independent audit ({@code gpusched validate})
 * replays them against: setup.json, powerflow.yaml and trace.jsonl (the trace's lines the replay accepted).
 */
public final class PowerflowRunDirectory {
    /** Line count per output, and the run's figures (null, with the reason, when there is no accounting). */
    public record Written(Map<String, Integer> lines, Experiment.Row run, String noAccounting) {}

    private static final List<String> OUTPUTS = List.of(
            PowerflowFiles.DECISIONS,
            PowerflowFiles.TELEMETRY,
            PowerflowFiles.MODELS,
            PowerflowFiles.REJECTED,
            PowerflowFiles.JOB_ENERGY,
            PowerflowFiles.POWER);

    private PowerflowRunDirectory() {}

    /** Merges the replay's part files in {@code parts} into {@code out} and writes the accounting beside them. */
    public static Written write(Path parts, Path out, PowerflowSettings cfg, Path trace) throws IOException {
        Map<String, List<JsonNode>> outputs = new LinkedHashMap<>();
        Map<String, Integer> lines = new LinkedHashMap<>();
        for (String name : OUTPUTS) {
            List<JsonNode> merged = merge(parts, name, out);
            outputs.put(name, merged);
            lines.put(name, merged.size());
        }
        GroundTruth truth = cfg.groundTruth();
        List<TraceJob> jobs;
        try {
            jobs = accepted(trace, outputs.get(PowerflowFiles.REJECTED), parts, truth);
        } catch (IllegalArgumentException e) {
            return new Written(lines, null, e.getMessage());
        }
        List<Simulation.JobResult> finished = new ArrayList<>();
        double jct = 0, energy = 0;
        for (JsonNode j : outputs.get(PowerflowFiles.JOB_ENERGY)) {
            Simulation.JobResult r = new Simulation.JobResult(
                    Long.parseLong(j.get("job").asText()),
                    j.get("workload").asText(),
                    j.get("submit").asDouble(),
                    j.get("time").asDouble(),
                    j.get("energyJoules").asDouble());
            finished.add(r);
            jct += r.jct();
            energy += r.energyJoules();
        }
        finished.sort(Comparator.comparingLong(Simulation.JobResult::id));
        List<Simulation.PowerSample> power = new ArrayList<>();
        double idle = 0, end = 0;
        for (JsonNode p : outputs.get(PowerflowFiles.POWER)) {
            power.add(new Simulation.PowerSample(
                    p.get("time").asDouble(),
                    p.get("watts").asDouble(),
                    p.get("gpusAllocated").asInt(),
                    p.get("nodesOn").asInt()));
            idle = p.get("idleEnergyJoules").asDouble();
            end = p.get("time").asDouble();
        }
        List<Simulation.Change> changes = new ArrayList<>();
        for (JsonNode d : outputs.get(PowerflowFiles.DECISIONS)) {
            String action = d.get("action").asText();
            if (action.equals("COMPLETE")) continue;
            boolean waits = action.equals("PREEMPT");
            changes.add(new Simulation.Change(
                    d.get("time").asDouble(),
                    Long.parseLong(d.get("job").asText()),
                    waits ? 0 : d.get("gpus").asInt(),
                    waits ? 0 : d.get("powerLimitWatts").asDouble()));
        }
        int n = finished.size();
        int refits = Math.max(0, lines.get(PowerflowFiles.MODELS) - jobs.size());
        double preRun = 0;
        for (TraceJob j : jobs) preRun += ClusterRun.preRunJoules(truth, j.workload(), j.batch());
        Simulation.Result result = new Simulation.Result(
                PowerflowSettings.POLICY,
                finished,
                energy + idle,
                idle,
                n == 0 ? Double.NaN : jct / n,
                end,
                power,
                changes,
                refits,
                preRun);
        Experiment.Row row = new Experiment.Row(
                Experiment.powerflowRun(cfg.eta()),
                PowerflowSettings.POLICY,
                cfg.eta(),
                n,
                result.meanJct(),
                result.totalEnergyJoules() / 3.6e6,
                idle / 3.6e6,
                end,
                refits,
                true,
                preRun / 3.6e6);
        Experiment.write(
                out,
                RunSetup.of(
                        cfg.totalGpus(),
                        cfg.seed(),
                        ModelSource.FITTED,
                        cfg.startLimit().label(),
                        java.util.Map.of()),
                truth.config(),
                jobs,
                row,
                result);
        return new Written(lines, row, null);
    }

    /** A live run's figures: completed jobs, their mean JCT and their energy from the telemetry received. */
    public record LiveSummary(Map<String, Integer> lines, int jobs, double meanJctSeconds, double energyKWh) {}

    /** The marker of a live run directory: the run's settings. */
    public static final String LIVE = "live.json";

    /**
     * The run directory of a live run ({@code run --policy powerflow --bounded --out}): decisions.jsonl, telemetry.jsonl
     * (the samples the scheduler received), models.jsonl, rejected.jsonl and job-energy.jsonl (each finished job's
     * energy from that telemetry), merged from {@code parts}, plus {@value #LIVE} (eta, GPUs, budget check, where the
     * inputs came from) and summary.txt. {@code gpusched validate} recomputes the energies from the telemetry and the
     * decisions.
     */
    public static LiveSummary writeLive(Path parts, Path out, PowerflowSettings cfg, String source) throws IOException {
        Map<String, Integer> lines = new LinkedHashMap<>();
        List<JsonNode> energies = List.of();
        for (String name : List.of(
                PowerflowFiles.DECISIONS,
                PowerflowFiles.TELEMETRY,
                PowerflowFiles.MODELS,
                PowerflowFiles.REJECTED,
                PowerflowFiles.JOB_ENERGY)) {
            List<JsonNode> merged = merge(parts, name, out);
            lines.put(name, merged.size());
            if (name.equals(PowerflowFiles.JOB_ENERGY)) energies = merged;
        }
        double jct = 0, energy = 0;
        for (JsonNode e : energies) {
            jct += e.get("jctSeconds").asDouble();
            energy += e.get("energyJoules").asDouble();
        }
        int n = energies.size();
        LiveSummary summary = new LiveSummary(lines, n, n == 0 ? Double.NaN : jct / n, energy / 3.6e6);
        Map<String, Object> setup = new LinkedHashMap<>();
        setup.put("eta", cfg.eta());
        setup.put("gpus", cfg.totalGpus());
        setup.put("budgetCheck", cfg.budgetCheck().label());
        setup.put("startLimit", cfg.startLimit().label());
        setup.put("source", source);
        new com.fasterxml.jackson.databind.ObjectMapper()
                .enable(com.fasterxml.jackson.databind.SerializationFeature.INDENT_OUTPUT)
                .writeValue(out.resolve(LIVE).toFile(), setup);
        Files.writeString(
                out.resolve("summary.txt"),
                String.format(
                        java.util.Locale.ROOT,
                        "live powerflow eta %s on %d GPUs: %d jobs completed, mean JCT %.1f s, energy %.6f kWh"
                                + " (from the telemetry received)%n",
                        cfg.eta(),
                        cfg.totalGpus(),
                        n,
                        summary.meanJctSeconds(),
                        summary.energyKWh()));
        return summary;
    }

    /** The trace's jobs whose lines the replay did not reject, read as the audit reads a trace. */
    private static List<TraceJob> accepted(Path trace, List<JsonNode> rejected, Path parts, GroundTruth truth)
            throws IOException {
        String prefix = trace.toString() + ":";
        Set<Integer> bad = new HashSet<>();
        for (JsonNode r : rejected) {
            String position = r.path("position").asText();
            if (position.startsWith(prefix)) bad.add(Integer.parseInt(position.substring(prefix.length())));
        }
        // a rejected line becomes blank (skipped by the reader), so that line numbers stay the trace's
        List<String> kept = new ArrayList<>();
        List<String> all = Files.readAllLines(trace);
        for (int i = 0; i < all.size(); i++) kept.add(bad.contains(i + 1) ? "" : all.get(i));
        Path file = parts.resolve("accepted-" + RunSetup.TRACE);
        Files.write(file, kept);
        try {
            return TraceFiles.read(file, truth);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    "no energy accounting: the accepted trace lines do not read as a PowerFlow trace ("
                            + e.getMessage().replace(file.toString(), trace.toString()) + ")");
        }
    }

    /** One output's part files as NAME.jsonl in time order (then sequence). */
    private static List<JsonNode> merge(Path parts, String name, Path dir) throws IOException {
        List<JsonNode> lines = new ArrayList<>(RunDirectoryWriter.read(parts, name));
        lines.sort(Comparator.comparingDouble((JsonNode n) -> n.path("time").asDouble())
                .thenComparingLong(n -> n.path("seq").asLong()));
        List<String> text = new ArrayList<>(lines.size());
        for (JsonNode n : lines) text.add(n.toString());
        Files.write(dir.resolve(name + ".jsonl"), text);
        return lines;
    }
}
