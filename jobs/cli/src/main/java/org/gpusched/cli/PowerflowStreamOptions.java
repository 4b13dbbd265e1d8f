package org.gpusched.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.gpusched.streaming.EmbeddedFlink;
import org.gpusched.streaming.file.StagedDirectory;
import org.gpusched.streaming.powerflow.PowerflowFiles;
import org.gpusched.streaming.powerflow.PowerflowPipeline;
import org.gpusched.streaming.powerflow.PowerflowRunDirectory;
import org.gpusched.streaming.powerflow.PowerflowSettings;
import picocli.CommandLine;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * The options and wiring of {@code --policy powerflow} on {@code run} (Kafka) and {@code replay} (files): the streaming
 * powerflow scheduler ({@link PowerflowPipeline}) instead of the cluster-file scheduler.
 */
public final class PowerflowStreamOptions {
    @Option(
            names = "--eta",
            paramLabel = "ETA",
            description =
                    "With --policy powerflow: the energy budget, the GPUs may draw eta x G x P_max, (0, 1.5] (default: 0.5).")
    Double eta;

    @Option(
            names = "--gpus",
            paramLabel = "G",
            description = "With --policy powerflow: the cluster's GPUs, a multiple of the GPUs per node (default: 64).")
    Integer gpus;

    @Option(
            names = "--powerflow-config",
            paramLabel = "FILE",
            description =
                    "With --policy powerflow: hardware, scaling and telemetry settings (default: the bundled conf/powerflow.yaml).")
    Path hardware;

    @Option(
            names = "--budget-check",
            paramLabel = "node-boundary|strict",
            converter = PowerflowCommand.BudgetCheckConverter.class,
            description = "With --policy powerflow: node-boundary (Algorithm 1, the default) or strict (no decision"
                    + " step may exceed the budget).")
    org.gpusched.powerflow.policy.PowerFlowPolicy.BudgetCheck budgetCheck;

    @Option(
            names = "--start-limit",
            paramLabel = "efficient|least-energy",
            converter = PowerflowCommand.StartLimitConverter.class,
            description = "With --policy powerflow: the limit a job starts at before clocks are raised, efficient (the"
                    + " paper's, the default) or least-energy.")
    org.gpusched.powerflow.policy.PowerFlowPolicy.StartLimit startLimit;

    /** Whether the command runs the powerflow scheduler; powerflow cannot be combined with other policies. */
    static boolean selected(CommandLine cmd, List<String> policies, PowerflowStreamOptions options) {
        boolean any = policies.stream().anyMatch("powerflow"::equals);
        if (any && policies.size() > 1)
            throw new ParameterException(cmd, "--policy powerflow runs alone (its jobs are not the cluster file's)");
        if (!any
                && (options.eta != null
                        || options.gpus != null
                        || options.hardware != null
                        || options.budgetCheck != null
                        || options.startLimit != null))
            throw new ParameterException(
                    cmd,
                    "--eta, --gpus, --budget-check, --start-limit and --powerflow-config apply to --policy powerflow"
                            + " only");
        return any;
    }

    /** The settings, or a usage error naming the bad value. */
    PowerflowSettings settings(CommandLine cmd, boolean replay, long seed) {
        if (hardware != null) CliFiles.requireFile(cmd, hardware, "--powerflow-config");
        try {
            PowerflowSettings s =
                    PowerflowSettings.of(eta == null ? 0.5 : eta, gpus == null ? 64 : gpus, replay, seed, hardware);
            if (budgetCheck != null) s = s.withBudgetCheck(budgetCheck);
            return startLimit == null ? s : s.withStartLimit(startLimit);
        } catch (IllegalArgumentException | UncheckedIOException e) {
            throw new ParameterException(cmd, e.getMessage());
        }
    }

    /**
     * {@code replay --policy powerflow}: the trace through the scheduler with the simulated cluster, on the embedded
     * mini cluster; writes decisions.jsonl, telemetry.jsonl, models.jsonl, rejected.jsonl, job-energy.jsonl, power.jsonl
     * and the energy and JCT accounting that {@code validate} audits ({@link PowerflowRunDirectory}) to {@code out}.
     */
    int replay(CommandLine cmd, Path trace, long seed, Path out) throws Exception {
        PrintWriter err = cmd.getErr();
        if (trace == null)
            throw new ParameterException(cmd, "replay --policy powerflow needs --trace (a PowerFlow trace)");
        CliFiles.requireFile(cmd, trace, "--trace");
        PowerflowSettings cfg = settings(cmd, true, seed)
                .withStreaming(
                        java.time.Duration.ofMillis(-1),
                        java.time.Duration.ofSeconds(5),
                        java.time.Duration.ZERO,
                        java.time.Duration.ofMillis(20),
                        false);
        StagedDirectory staged = CliFiles.stage(cmd, "replay", out, trace);
        if (staged == null) return ExitCode.BAD_INPUT;
        try (staged) {
            Path parts = Files.createDirectories(staged.dir().resolve(".parts"));
            StreamExecutionEnvironment env = EmbeddedFlink.local(1, new Configuration());
            PowerflowPipeline.define(
                    env, new PowerflowFiles.Sources(trace, null, null), new PowerflowFiles.Sinks(parts), cfg);
            long started = System.nanoTime();
            env.execute("gpusched replay powerflow " + trace.getFileName());
            PowerflowRunDirectory.Written written = PowerflowRunDirectory.write(parts, staged.dir(), cfg, trace);
            deleteTree(parts);
            int decisions = written.lines().get(PowerflowFiles.DECISIONS),
                    rejected = written.lines().get(PowerflowFiles.REJECTED);
            if (decisions == 0) {
                err.println("gpusched replay: " + trace + ": no valid job (" + rejected + " rejected; see "
                        + out.resolve("rejected.jsonl") + ")");
                return ExitCode.BAD_INPUT;
            }
            staged.commit();
            cmd.getOut()
                    .printf(
                            Locale.ROOT,
                            "powerflow eta %s on %d GPUs: %d decisions, %d telemetry samples, %d fits, %d rejected in %.1f s -> %s%n",
                            cfg.eta(),
                            cfg.totalGpus(),
                            decisions,
                            written.lines().get(PowerflowFiles.TELEMETRY),
                            written.lines().get(PowerflowFiles.MODELS),
                            rejected,
                            (System.nanoTime() - started) / 1e9,
                            out);
            if (written.run() != null)
                cmd.getOut()
                        .printf(
                                Locale.ROOT,
                                "%d jobs: mean JCT %.1f s, energy %.3f kWh (idle %.3f kWh); audit: gpusched validate %s%n",
                                written.run().jobs(),
                                written.run().meanJctSeconds(),
                                written.run().energyKWh(),
                                written.run().idleKWh(),
                                out);
            else err.println("gpusched replay: " + written.noAccounting());
            return ExitCode.OK;
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        try (var paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) Files.delete(p);
        }
    }
}
