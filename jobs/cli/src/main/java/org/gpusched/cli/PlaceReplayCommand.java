package org.gpusched.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.flink.configuration.Configuration;
import org.gpusched.placement.experiment.PolicySpec;
import org.gpusched.placement.policy.PlacementPolicies;
import org.gpusched.streaming.file.StagedDirectory;
import org.gpusched.streaming.placement.PlacementOptions;
import org.gpusched.streaming.placement.ReplayRun;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code gpusched place-replay}: time-driven replay of an Alibaba pod list with a PWR/FGD-family placement policy. */
@Command(
        name = PlaceReplayCommand.NAME,
        mixinStandardHelpOptions = true,
        defaultValueProvider = CommandConfiguration.Defaults.class,
        description = {
            "Time-driven placement replay of an Alibaba GPU pod list (openb_pod_list_*.csv) as a bounded Flink stream: "
                    + "each task arrives at creation_time (event time), is placed by --policy on the node list, and leaves at "
                    + "deletion_time (an event-time timer frees it). Tasks never scheduled in the trace (empty scheduled_time) are "
                    + "skipped and counted; tasks cut off by the trace's end (empty deletion_time) leave at the end; CPU-only tasks "
                    + "are placed like the others; a task that fits nowhere fails and is not retried. A bad row (malformed CSV, "
                    + "missing or invalid value, impossible demand) is rejected with its line and reason and the replay goes on.",
            "Writes to --out: decisions.jsonl (time, task, action PLACE|FAIL|RELEASE, node, gpus, gpuMilli), metrics.csv "
                    + "(EOPC watts CPU/GPU, allocated GPU fraction, fragmented GPUs after every event), rejected.jsonl (one object "
                    + "per bad row: source, line, text, reason, field) and metrics.json (placed, failed, rejected, mean/peak EOPC, "
                    + "energy kWh integrated over trace time, mean GPU allocation and fragmentation). Progress on stderr, summary "
                    + "table on stdout. Several policies side by side: gpusched compare --pods --nodes."
        })
public final class PlaceReplayCommand implements Callable<Integer> {
    static final String NAME = "place-replay";

    @Spec
    CommandSpec spec;

    @Option(
            names = "--pods",
            required = true,
            paramLabel = "FILE",
            description =
                    "Pod list CSV with times (name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,...,creation_time,deletion_time,scheduled_time).")
    Path pods;

    @Option(
            names = "--nodes",
            required = true,
            paramLabel = "FILE",
            description = "Node list CSV (openb_node_list_gpu_node.csv: sn,cpu_milli,memory_mib,gpu,model).")
    Path nodes;

    @Option(
            names = "--policy",
            required = true,
            paramLabel = "NAME",
            description = "Placement policy: fgd, pwr, pwr-fgd, bestfit, dotprod, gpu-packing, gpu-clustering, random.")
    String policy;

    // --alpha and --seed set PlacementOptions keys: read through options() (flag, else --config file, else default)
    @Option(names = "--alpha", paramLabel = "A", description = "Alpha of pwr-fgd (default: ${DEFAULT-VALUE}).")
    String alpha;

    @Option(
            names = "--seed",
            paramLabel = "N",
            description = "Seed of the policy's tie-breaking random state (default: ${DEFAULT-VALUE}).")
    String seed;

    @Option(
            names = "--config",
            paramLabel = "PATH",
            description =
                    "A Flink configuration file (config.yaml, or its directory) whose gpusched.placement.* keys set "
                            + "these options (docs/configuration.md); a flag given here wins over the file.")
    Path config;

    @Option(
            names = "--out",
            required = true,
            paramLabel = "DIR",
            description = "Output directory: " + CliFiles.OUT_DIRECTORY)
    Path out;

    @Override
    public Integer call() throws Exception {
        Configuration options =
                CommandConfiguration.read(spec.commandLine(), config, PlacementOptions.ALL, new Configuration());
        List<Double> alphas = options.get(PlacementOptions.ALPHAS);
        if (alphas.size() != 1)
            throw new ParameterException(
                    spec.commandLine(), "--alpha takes one value here (compare --pods runs several), got " + alphas);
        return replay(
                spec.commandLine(),
                NAME,
                pods,
                nodes,
                policy,
                alphas.get(0),
                options.get(PlacementOptions.SEED),
                options.get(PlacementOptions.WATERMARK_INTERVAL),
                out);
    }

    /**
     * One placement replay: reads the inputs, runs the bounded stream, prints the table. Returns the exit code.
     */
    static int replay(
            CommandLine commandLine,
            String commandName,
            Path pods,
            Path nodes,
            String policy,
            double alpha,
            long seed,
            Duration watermarkInterval,
            Path out)
            throws Exception {
        PrintWriter err = commandLine.getErr();
        PolicySpec policySpec;
        try {
            policySpec = PlacementReplayRunner.policies(List.of(policy), List.of(alpha))
                    .get(0);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(commandLine, e.getMessage().replace("placement policy", "--policy"));
        }
        PlacementReplayRunner.Inputs inputs = PlacementReplayRunner.Inputs.read(err, commandName, nodes, pods);
        if (inputs == null) return ExitCode.BAD_INPUT;
        err.printf(
                Locale.ROOT, "%s: %s, policy %s seed %d%n", commandName, inputs.describe(), policySpec.label(), seed);
        err.flush();
        StagedDirectory staged = CliFiles.stage(commandLine, commandName, out, pods, nodes);
        if (staged == null) return ExitCode.BAD_INPUT;
        try (staged) {
            return replay(
                    commandLine,
                    commandName,
                    inputs,
                    pods,
                    nodes,
                    policySpec,
                    alpha,
                    seed,
                    watermarkInterval,
                    out,
                    staged);
        }
    }

    private static int replay(
            CommandLine commandLine,
            String commandName,
            PlacementReplayRunner.Inputs inputs,
            Path pods,
            Path nodes,
            PolicySpec policySpec,
            double alpha,
            long seed,
            Duration watermarkInterval,
            Path out,
            StagedDirectory staged)
            throws Exception {
        PrintWriter err = commandLine.getErr();
        long start = System.nanoTime();
        ReplayRun run = new ReplayRun(policySpec, seed);
        String command = "gpusched place-replay --pods " + pods + " --nodes " + nodes + " --policy " + policySpec.name()
                + (PlacementPolicies.takesAlpha(policySpec.name()) ? " --alpha " + alpha : "") + " --seed " + seed
                + " --out " + out;
        List<PlacementReplayRunner.Result> results = PlacementReplayRunner.run(
                err,
                command,
                inputs,
                pods,
                Map.of(run, staged.dir()),
                watermarkInterval,
                staged.dir().resolve(".parts"));
        staged.commit();
        PlacementReplayRunner.table(
                commandLine.getOut(), results, inputs.trace().rejected());
        err.printf(
                Locale.ROOT,
                "%s: %.1f s; wrote %s/{decisions.jsonl,metrics.csv,metrics.json,rejected.jsonl}%n",
                commandName,
                (System.nanoTime() - start) / 1e9,
                out);
        err.flush();
        return ExitCode.OK;
    }
}
