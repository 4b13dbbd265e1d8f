package org.gpusched.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.gpusched.placement.experiment.PolicySpec;
import org.gpusched.placement.io.AlibabaTraceCsv;
import org.gpusched.placement.io.TraceFormatException;
import org.gpusched.placement.model.NodeSpec;
import org.gpusched.placement.policy.PlacementPolicies;
import org.gpusched.streaming.placement.PlacementReplay;
import org.gpusched.streaming.placement.ReplayOutput;
import org.gpusched.streaming.placement.ReplaySummary;
import org.gpusched.streaming.placement.ReplayTrace;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code gpusched place-replay}: time-driven replay of an Alibaba pod list with a PWR/FGD-family placement policy. */
@Command(name = "place-replay", mixinStandardHelpOptions = true,
        description = {"Time-driven placement replay of an Alibaba GPU pod list (openb_pod_list_*.csv) as a bounded Flink stream: "
                + "each task arrives at creation_time (event time), is placed by --policy on the node list, and leaves at "
                + "deletion_time (an event-time timer frees it). Tasks never scheduled in the trace (empty scheduled_time) are "
                + "skipped and counted; tasks cut off by the trace's end (empty deletion_time) leave at the end; CPU-only tasks "
                + "are placed like the others; a task that fits nowhere fails and is not retried.",
                "Writes to --out: decisions.jsonl (time, task, action PLACE|FAIL|RELEASE, node, gpus, gpuMilli), metrics.csv "
                + "(EOPC watts CPU/GPU, allocated GPU fraction, fragmented GPUs after every event) and metrics.json (placed, "
                + "failed, mean/peak EOPC, energy kWh integrated over trace time). Progress on stderr, summary table on stdout."},
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:replay finished", "1:an input could not be read (message names file and line)", "2:invalid options"})
public final class PlaceReplayCommand implements Callable<Integer> {
    @Spec CommandSpec spec;

    @Option(names = "--pods", required = true, paramLabel = "FILE",
            description = "Pod list CSV with times (name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,...,creation_time,deletion_time,scheduled_time).")
    Path pods;

    @Option(names = "--nodes", required = true, paramLabel = "FILE",
            description = "Node list CSV (openb_node_list_gpu_node.csv: sn,cpu_milli,memory_mib,gpu,model).")
    Path nodes;

    @Option(names = "--policy", required = true, paramLabel = "NAME",
            description = "Placement policy: fgd, pwr, pwr-fgd, bestfit, dotprod, gpu-packing, gpu-clustering, random.")
    String policy;

    @Option(names = "--alpha", paramLabel = "A", defaultValue = "0.1", description = "Alpha of pwr-fgd (default: ${DEFAULT-VALUE}).")
    double alpha;

    @Option(names = "--seed", paramLabel = "N", defaultValue = "42", description = "Seed of the policy's tie-breaking random state (default: ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--out", required = true, paramLabel = "DIR", description = "Output directory (created).")
    Path out;

    @Override
    public Integer call() throws Exception {
        PolicySpec policySpec;
        try {
            String name = policy.trim().toLowerCase(Locale.ROOT);
            if (!PlacementPolicies.NAMES.contains(name))
                throw new IllegalArgumentException("unknown --policy '" + policy + "', expected one of " + PlacementPolicies.NAMES);
            if (PlacementPolicies.takesAlpha(name) && !(alpha >= 0 && alpha <= 1))
                throw new IllegalArgumentException("--alpha must be in [0, 1], got " + alpha);
            policySpec = new PolicySpec(name, PlacementPolicies.takesAlpha(name) ? alpha : Double.NaN);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        List<NodeSpec> nodeList;
        ReplayTrace trace;
        try {
            nodeList = AlibabaTraceCsv.readNodes(nodes);
            trace = ReplayTrace.read(pods);
        } catch (TraceFormatException e) {
            System.err.println("gpusched place-replay: " + e.getMessage());
            return 1;
        }
        int total = trace.pods().size();
        System.err.printf(Locale.ROOT, "place-replay: %d nodes, %d pods replayed (%d never scheduled, skipped), trace time %d..%d s, policy %s seed %d%n",
                nodeList.size(), total, trace.unscheduled(), trace.startTime(), trace.endTime(), policySpec.label(), seed);
        long start = System.nanoTime();
        int every = Math.max(1, total / 10);
        ReplaySummary summary;
        try (ReplayOutput output = new ReplayOutput(out, nodeList, trace.tasks())) {
            PlacementReplay.run(new PlacementReplay.Config(nodeList, trace, policySpec, seed), e -> {
                output.accept(e);
                ReplaySummary s = output.summary();
                long arrived = s.placed() + s.failed();
                if (!e.action.equals("RELEASE") && (arrived % every == 0 || arrived == total))
                    System.err.printf(Locale.ROOT, "[%6d/%d] t=%d s  running %d  failed %d  EOPC %.0f W  GPU alloc %.3f  %.1f s%n",
                            arrived, total, e.time, e.running, s.failed(), e.eopcWatts(), e.allocatedGpuFraction,
                            (System.nanoTime() - start) / 1e9);
            });
            ObjectNode run = ReplayOutput.runInfo();
            run.put("command", "gpusched place-replay --pods " + pods + " --nodes " + nodes + " --policy " + policySpec.name()
                    + (PlacementPolicies.takesAlpha(policySpec.name()) ? " --alpha " + alpha : "") + " --seed " + seed + " --out " + out);
            run.put("policy", policySpec.label());
            run.put("seed", seed);
            run.put("nodes", nodeList.size());
            output.finish(run, trace.unscheduled());
            summary = output.summary();
        }
        if (summary.placed() + summary.failed() != total)
            throw new IllegalStateException("the stream ended with " + (summary.placed() + summary.failed()) + " of " + total + " pods decided");
        System.out.printf(Locale.ROOT, "%-16s %8s %7s %7s %9s %11s %11s %11s%n", "policy", "replayed", "placed", "failed", "released",
                "meanEOPC_W", "peakEOPC_W", "energy_kWh");
        System.out.printf(Locale.ROOT, "%-16s %8d %7d %7d %9d %11.0f %11.0f %11.3f%n", policySpec.label(), total, summary.placed(),
                summary.failed(), summary.released(), summary.meanWatts(), summary.peakWatts(), summary.energyKWh());
        System.err.printf(Locale.ROOT, "place-replay: %.1f s; wrote %s/{decisions.jsonl,metrics.csv,metrics.json}%n",
                (System.nanoTime() - start) / 1e9, out);
        return 0;
    }
}
