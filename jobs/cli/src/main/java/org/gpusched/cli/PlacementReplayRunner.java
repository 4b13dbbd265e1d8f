package org.gpusched.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.gpusched.formats.CsvFormatException;
import org.gpusched.placement.experiment.PolicySpec;
import org.gpusched.placement.io.AlibabaTraceCsv;
import org.gpusched.placement.model.NodeSpec;
import org.gpusched.placement.policy.PlacementPolicies;
import org.gpusched.streaming.placement.PlacementConfig;
import org.gpusched.streaming.placement.PlacementReplay;
import org.gpusched.streaming.placement.ReplayOutput;
import org.gpusched.streaming.placement.ReplayRun;
import org.gpusched.streaming.placement.ReplaySummary;
import org.gpusched.streaming.placement.ReplayTrace;

/**
 * Runs placement replays (one Flink job for all runs) for place-replay and compare: progress on stderr, one run
 * directory per run (decisions.jsonl, metrics.csv, rejected.jsonl, metrics.json), and the summary table.
 */
final class PlacementReplayRunner {
    private PlacementReplayRunner() {}

    /** A command's inputs: the node list and the scanned pod list. */
    record Inputs(List<NodeSpec> nodes, ReplayTrace trace) {
        /** Reads both; on a located error prints "gpusched COMMAND: file:line: ..." and returns null (exit 1). */
        static Inputs read(PrintWriter err, String command, Path nodes, Path pods) {
            try {
                return new Inputs(AlibabaTraceCsv.readNodes(nodes), ReplayTrace.scan(pods));
            } catch (CsvFormatException e) {
                err.println("gpusched " + command + ": " + e.getMessage());
                err.flush();
                return null;
            }
        }

        /** "N nodes, M pods to replay (...), trace time a..b s" for the first progress line. */
        String describe() {
            return String.format(
                    Locale.ROOT,
                    "%d nodes, %d pods to replay (%d never scheduled, skipped; %d bad rows, rejected), trace time %d..%d s",
                    nodes.size(),
                    trace.replayable(),
                    trace.unscheduled(),
                    trace.rejected(),
                    trace.startTime(),
                    trace.endTime());
        }
    }

    /** A finished run: where it was written and its summary. */
    record Result(ReplayRun run, Path dir, ReplaySummary summary) {}

    /**
     * The policies named (case-insensitive), pwr-fgd once per alpha (checked by {@link
     * org.gpusched.streaming.placement.PlacementOptions#ALPHAS}'s rule). @throws IllegalArgumentException naming the bad
     * one
     */
    static List<PolicySpec> policies(List<String> names, List<Double> alphas) {
        List<PolicySpec> specs = new ArrayList<>();
        for (String raw : names) {
            String name = raw.trim().toLowerCase(Locale.ROOT);
            if (!PlacementPolicies.NAMES.contains(name))
                throw new IllegalArgumentException(
                        "unknown placement policy '" + raw + "', expected one of " + PlacementPolicies.NAMES);
            if (!PlacementPolicies.takesAlpha(name)) {
                specs.add(new PolicySpec(name, Double.NaN));
                continue;
            }
            for (double a : alphas) {
                specs.add(new PolicySpec(name, a));
            }
        }
        if (specs.stream().distinct().count() != specs.size())
            throw new IllegalArgumentException("a policy is named twice: " + names);
        return specs;
    }

    /**
     * Runs every run of {@code dirs} (in its order) over the same pods in one job, the rejected rows' part files in
     * {@code work}. Returns the results in the order of {@code dirs}.
     */
    static List<Result> run(
            PrintWriter err,
            String command,
            Inputs inputs,
            Path pods,
            Map<ReplayRun, Path> dirs,
            Duration watermarkInterval,
            Path work)
            throws Exception {
        List<NodeSpec> nodes = inputs.nodes();
        ReplayTrace trace = inputs.trace();
        List<ReplayRun> runs = new ArrayList<>(dirs.keySet());
        Map<String, ReplayOutput> outputs = new LinkedHashMap<>();
        for (ReplayRun r : runs) outputs.put(r.key(), new ReplayOutput(dirs.get(r), nodes));
        long total = (long) trace.replayable() * runs.size();
        long every = Math.max(1, total / 10);
        long started = System.nanoTime();
        long[] decided = {0};
        try {
            List<ObjectNode> rejected = PlacementReplay.run(
                    PlacementConfig.boundedReplay(
                            nodes, trace, runs, Runtime.getRuntime().availableProcessors(), watermarkInterval),
                    pods,
                    work,
                    e -> {
                        ReplayOutput output = outputs.get(e.run);
                        output.accept(e);
                        if (e.action.equals("RELEASE")) return;
                        long n = ++decided[0];
                        if (n % every == 0 || n == total) {
                            ReplaySummary s = output.summary();
                            err.printf(
                                    Locale.ROOT,
                                    "[%6d/%d] %s t=%d s  running %d  failed %d  EOPC %.0f W  GPU alloc %.3f  %.1f s%n",
                                    n,
                                    total,
                                    runs.size() == 1 ? "" : e.run,
                                    e.time,
                                    e.running,
                                    s.failed(),
                                    e.eopcWatts(),
                                    e.allocatedGpuFraction,
                                    (System.nanoTime() - started) / 1e9);
                            err.flush();
                        }
                    });
            List<Result> results = new ArrayList<>();
            for (ReplayRun r : runs) {
                ReplayOutput output = outputs.get(r.key());
                ObjectNode m = ReplayOutput.runInfo();
                m.put("command", command);
                m.put("policy", r.policy().label());
                if (!r.policy().alphaText().isEmpty()) m.put("alpha", r.policy().alpha());
                m.put("seed", r.seed());
                m.put("nodes", nodes.size());
                m.put("pods", pods.toString());
                output.finish(m, trace.unscheduled(), rejected);
                ReplaySummary s = output.summary();
                if (s.placed() + s.failed() != trace.replayable())
                    throw new IllegalStateException(r.key() + ": the stream ended with " + (s.placed() + s.failed())
                            + " of " + trace.replayable() + " pods decided");
                results.add(new Result(r, dirs.get(r), s));
            }
            return results;
        } finally {
            for (ReplayOutput o : outputs.values()) closeQuietly(o);
        }
    }

    private static void closeQuietly(ReplayOutput o) {
        try {
            o.close();
        } catch (IOException ignored) {
            // already closed by finish, or the run failed and its error is the one to report
        }
    }

    /** The summary table: one row per run. */
    static void table(PrintWriter out, List<Result> results, int rejected) {
        out.printf(
                Locale.ROOT,
                "%-18s %6s %8s %7s %7s %9s %11s %11s %11s %9s %9s%n",
                "policy",
                "seed",
                "replayed",
                "placed",
                "failed",
                "released",
                "meanEOPC_W",
                "peakEOPC_W",
                "energy_kWh",
                "gpuAlloc",
                "fragGPUs");
        for (Result r : results) {
            ReplaySummary s = r.summary();
            out.printf(
                    Locale.ROOT,
                    "%-18s %6d %8d %7d %7d %9d %11.0f %11.0f %11.3f %9.4f %9.2f%n",
                    r.run().policy().label(),
                    r.run().seed(),
                    s.placed() + s.failed(),
                    s.placed(),
                    s.failed(),
                    s.released(),
                    s.meanWatts(),
                    s.peakWatts(),
                    s.energyKWh(),
                    s.meanAllocatedGpuFraction(),
                    s.meanFragmentedGpus());
        }
        out.printf(Locale.ROOT, "rejected rows: %d%s%n", rejected, rejected == 0 ? "" : " (see rejected.jsonl)");
        out.flush();
    }
}
