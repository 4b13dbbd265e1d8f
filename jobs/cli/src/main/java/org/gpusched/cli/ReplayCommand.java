package org.gpusched.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import org.gpusched.core.policy.Policies;
import org.gpusched.formats.ClusterSpec;
import org.gpusched.formats.ClusterYaml;
import org.gpusched.formats.FormatException;
import org.gpusched.streaming.SchedulerConfig;
import org.gpusched.streaming.SchedulerOptions;
import org.gpusched.streaming.file.FileJobSources;
import org.gpusched.streaming.file.LocalRun;
import org.gpusched.streaming.file.RunDirectoryWriter;
import org.gpusched.streaming.file.StagedDirectory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code gpusched replay}: the scheduler job on a local Flink mini cluster over files, writing a run directory. */
@Command(
        name = "replay",
        mixinStandardHelpOptions = true,
        defaultValueProvider = CommandConfiguration.Defaults.class,
        description = {
            "Replays a trace through the scheduler on an embedded Flink mini cluster (no Kafka): the trace is read as a "
                    + "bounded stream, completions are simulated at each job's real end (predicted time x actualFactor), and the run "
                    + "directory --out receives run.json, jobs.jsonl, decisions.jsonl, metrics.json and rejected.jsonl. "
                    + "Malformed trace lines are rejected with file:line and the reason; the run goes on. "
                    + "Progress on stderr, a summary table on stdout.",
            "With --pods and --nodes instead of --trace and --cluster it is an alias of gpusched place-replay, given the same "
                    + "arguments (its options and defaults: see its --help)."
        })
public final class ReplayCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--trace", paramLabel = "FILE", description = "Trace (JSON Lines, one job a line); with --cluster.")
    Path trace;

    @Option(
            names = "--cluster",
            paramLabel = "FILE",
            description = "Cluster file (YAML: node types and nodes); with --trace.")
    Path cluster;

    @Option(
            names = "--pods",
            paramLabel = "FILE",
            description = "Alias: the same arguments are given to gpusched place-replay (with --nodes).")
    Path pods;

    @Option(names = "--nodes", hidden = true, paramLabel = "FILE")
    Path nodes;

    // given to place-replay with the other arguments; only whether it was given counts here
    @Option(names = "--alpha", hidden = true, paramLabel = "A")
    String alpha;

    @Option(
            names = "--policy",
            required = true,
            paramLabel = "NAME",
            completionCandidates = SchedulingPolicies.class,
            description =
                    "Scheduling policy (${COMPLETION-CANDIDATES}), powerflow (a PowerFlow trace, with --eta and --gpus) or, with --pods, placement policy (fgd, pwr, pwr-fgd, ...).")
    String policy;

    /** Every scheduling policy's name, from the one registry ({@link Policies}), for --help. */
    static final class SchedulingPolicies implements Iterable<String> {
        @Override
        public Iterator<String> iterator() {
            return Policies.names().iterator();
        }
    }

    @Option(
            names = "--seed",
            paramLabel = "N",
            description = "Seed of the policy's random state and of the noise (default: ${DEFAULT-VALUE}).")
    String seed;

    @Mixin
    ReplaySchedulerOptions scheduler;

    @Mixin
    MetricsPortOption metricsPort;

    @Mixin
    PowerflowStreamOptions powerflow;

    @Option(
            names = "--node-events",
            paramLabel = "FILE",
            description =
                    "Optional node events (JSON Lines: time, node, kind ADDED|REMOVED|FAILED|TYPE_CHANGED, type).")
    Path nodeEvents;

    @Option(
            names = "--parallelism",
            paramLabel = "N|auto",
            defaultValue = AUTO,
            description = "Flink parallelism of the local run. auto: 1 with one controller; with K > 1 controllers,"
                    + " min(K, processors) subtasks share the controllers, and each call's optimizer runs on"
                    + " processors / subtasks threads unless --optimizer-threads says otherwise (small calls use"
                    + " the processors better side by side than split). The decisions are the same for any N"
                    + " (default: ${DEFAULT-VALUE}).")
    String parallelism;

    static final String AUTO = "auto";
    /** The parallelism the run uses ({@link #fixedParallelism} or {@link #autoParallelism}). */
    private int runParallelism;

    @Option(
            names = "--out",
            required = true,
            paramLabel = "DIR",
            description = "Run directory to write: " + CliFiles.OUT_DIRECTORY)
    Path out;

    @Override
    public Integer call() throws Exception {
        PrintWriter err = spec.commandLine().getErr();
        metricsPort.validate();
        PrintWriter stdout = spec.commandLine().getOut();
        if (PowerflowStreamOptions.selected(spec.commandLine(), List.of(policy), powerflow))
            return powerflow.replay(
                    spec.commandLine(), trace, scheduler.options().get(SchedulerOptions.SEED), out);
        if (pods != null || nodes != null) return placeReplay();
        scheduler.options();
        if (spec.commandLine().getParseResult().hasMatchedOption("--alpha"))
            throw new ParameterException(
                    spec.commandLine(), "--alpha applies to placement policies (--pods), not to scheduling");
        if (trace == null || cluster == null)
            throw new ParameterException(spec.commandLine(), "a scheduling replay needs both --trace and --cluster");
        CliFiles.requireFile(spec.commandLine(), trace, "--trace");
        CliFiles.requireFile(spec.commandLine(), cluster, "--cluster");
        if (nodeEvents != null) CliFiles.requireFile(spec.commandLine(), nodeEvents, "--node-events");
        Integer fixedParallelism = fixedParallelism();
        ClusterSpec clusterSpec;
        try {
            clusterSpec = ClusterYaml.read(cluster);
            ClusterWarnings.print(err, "gpusched replay", cluster, clusterSpec);
        } catch (FormatException e) {
            err.println("gpusched replay: " + e.getMessage());
            return ExitCode.BAD_INPUT;
        }
        SchedulerConfig cfg;
        try {
            SchedulerConfig.Builder builder = scheduler.replayConfig(clusterSpec);
            int subtasks = fixedParallelism != null
                    ? fixedParallelism
                    : autoParallelism(scheduler.options().get(SchedulerOptions.CONTROLLERS), processors());
            if (subtasks > 1 && !scheduler.options().contains(SchedulerOptions.OPTIMIZER_THREADS))
                builder.optimizerThreads(Math.max(1, processors() / subtasks));
            runParallelism = subtasks;
            Duration watermarks =
                    ReplaySchedulerOptions.watermarksFor(err, "gpusched replay", trace, nodeEvents, builder.build());
            cfg = builder.outOfOrderness(watermarks).build();
        } catch (IllegalArgumentException e) {
            throw CommandConfiguration.usageError(spec.commandLine(), e);
        }
        long jobs = CliFiles.countLines(trace);
        if (jobs == 0) {
            err.println("gpusched replay: " + trace + ": empty trace, no job to replay");
            return ExitCode.BAD_INPUT;
        }
        StagedDirectory staged = CliFiles.stage(spec.commandLine(), "replay", out, trace, cluster, nodeEvents);
        if (staged == null) return ExitCode.BAD_INPUT;
        try (staged) {
            return replay(err, stdout, cfg, jobs, staged);
        }
    }

    /** {@code replay --pods ...}: place-replay run on the same arguments, so both are one path with one set of options. */
    private int placeReplay() {
        List<String> args = spec.commandLine().getParseResult().originalArgs();
        int at = args.indexOf(spec.name());
        CommandLine parent = spec.commandLine().getParent();
        CommandLine placeReplay = parent != null
                ? parent.getSubcommands().get("place-replay")
                : new CommandLine(new PlaceReplayCommand());
        return placeReplay.execute(args.subList(at + 1, args.size()).toArray(String[]::new));
    }

    private int replay(PrintWriter err, PrintWriter stdout, SchedulerConfig cfg, long jobs, StagedDirectory staged)
            throws Exception {
        Path parts = staged.dir().resolve(".parts");
        long started = System.nanoTime();
        err.printf(
                Locale.ROOT,
                "replay: %d trace lines, %d nodes, policy %s, seed %d, K=%d (%d subtask%s, %d optimizer thread%s%s),"
                        + " noise %.2f, H=%.0fs%n",
                jobs,
                cfg.nodes().size(),
                policy,
                cfg.seed(),
                cfg.controllers(),
                runParallelism,
                runParallelism == 1 ? "" : "s",
                cfg.optimizerThreads(),
                cfg.optimizerThreads() == 1 ? "" : "s",
                runParallelism == 1 ? "" : " each",
                cfg.noise(),
                cfg.periodSeconds());
        err.flush();
        ProgressLine progress = ProgressLine.forStderr(err);
        ProgressRate rate = new ProgressRate();
        var result = LocalRun.run(
                cfg,
                new FileJobSources(trace, nodeEvents, null, null),
                parts,
                runParallelism,
                "gpusched replay " + trace.getFileName(),
                metricsPort.apply(new org.apache.flink.configuration.Configuration(), err),
                p -> progress.update(progressLine("replay", p, jobs, (System.nanoTime() - started) / 1e9, rate)));
        progress.finish();
        err.printf(
                Locale.ROOT,
                "replay: job runtime %.2f s (the Flink job alone, without start-up and the run directory)%n",
                result.getNetRuntime() / 1000.0);
        err.flush();
        Map<String, Object> inputs = new LinkedHashMap<>();
        inputs.put("trace", trace.toString());
        CliFiles.putCluster(inputs, cluster);
        if (nodeEvents != null) inputs.put("nodeEvents", nodeEvents.toString());
        long writing = CliFiles.writing(err, "replay", parts, "the run directory " + out);
        RunDirectoryWriter.Summary s = RunDirectoryWriter.write(parts, staged.dir(), cfg, policy, inputs);
        CliFiles.deleteParts(parts);
        CliFiles.written(err, "replay", "the run directory", writing);
        if (s.acceptedJobs() == 0) {
            err.println("gpusched replay: " + CliFiles.noValidJob(trace, staged.dir()));
            return ExitCode.BAD_INPUT;
        }
        staged.commit();
        double seconds = (System.nanoTime() - started) / 1e9;
        printSummary(stdout, List.of(s));
        stdout.printf(
                Locale.ROOT,
                "%d jobs accepted, %d completed, %d rejected lines (see %s), %d decisions in %.1f s; run directory %s%n",
                s.acceptedJobs(),
                s.completedJobs(),
                s.rejected(),
                out.resolve("rejected.jsonl"),
                s.decisions(),
                seconds,
                out);
        stdout.flush();
        if (s.completedJobs() != s.acceptedJobs()) {
            err.printf(
                    Locale.ROOT,
                    "replay: %d accepted jobs never completed (no node of their controller could run them, or the policy left them waiting)%n",
                    s.acceptedJobs() - s.completedJobs());
            err.flush();
            return ExitCode.FINDINGS;
        }
        return ExitCode.OK;
    }

    /**
     * "replay: 310/4,000 jobs finished, 12 rejected (8%), 3.1 s, 95 jobs/s, ETA 38 s": rejected lines and jobs are done
     * but not finished, the percentage counts both against the trace's lines, and the rate and the time left are those
     * of the last half minute ({@link ProgressRate}).
     */
    static String progressLine(String command, LocalRun.Progress p, long lines, double seconds, ProgressRate rate) {
        long done = p.finished() + p.rejected();
        double percent = lines == 0 ? 100.0 : Math.min(100.0, 100.0 * done / lines);
        return String.format(
                        Locale.ROOT,
                        "%s: %,d/%,d jobs finished, %,d rejected (%.0f%%), %.1f s",
                        command,
                        p.finished(),
                        lines,
                        p.rejected(),
                        percent,
                        seconds)
                + rate.after(seconds, done, lines, "jobs");
    }

    /** The parallelism --parallelism names, or null for {@value #AUTO}; out of range or not a number: usage error. */
    private Integer fixedParallelism() {
        if (AUTO.equals(parallelism)) return null;
        int n;
        try {
            n = Integer.parseInt(parallelism.strip());
        } catch (NumberFormatException e) {
            throw new ParameterException(
                    spec.commandLine(), "--parallelism must be a whole number or auto, got '" + parallelism + "'");
        }
        if (n < 1 || n > maxLocalParallelism()) {
            throw new ParameterException(
                    spec.commandLine(),
                    "--parallelism must be between 1 and " + maxLocalParallelism()
                            + " (4 per core of this machine, at least 8: the mini cluster runs every subtask here), got "
                            + parallelism);
        }
        return n;
    }

    /**
     * {@value #AUTO}: one subtask for one controller (its calls are large and use every processor by themselves), else
     * one per processor, at most one per controller (a controller is one key: it never spans subtasks).
     */
    static int autoParallelism(int controllers, int processors) {
        return Math.max(1, Math.min(controllers, processors));
    }

    private static int processors() {
        return Runtime.getRuntime().availableProcessors();
    }

    /** More subtasks than this only add overhead on one machine, and far more exhaust the mini cluster's memory. */
    static int maxLocalParallelism() {
        return Math.max(8, 4 * processors());
    }

    /** The summary table: one row per policy. */
    static void printSummary(PrintWriter out, List<RunDirectoryWriter.Summary> rows) {
        String header = String.format(
                Locale.ROOT,
                "%-12s %12s %12s %12s %6s %10s %13s %13s %10s %10s",
                "policy",
                "total cost",
                "execution",
                "tardiness",
                "tardy",
                "completed",
                "mean JCT (s)",
                "makespan (s)",
                "opt p50 ms",
                "opt p99 ms");
        out.println(header);
        out.println("-".repeat(header.length()));
        List<RunDirectoryWriter.Summary> sorted = new ArrayList<>(rows);
        for (RunDirectoryWriter.Summary s : sorted) {
            out.println(String.format(
                    Locale.ROOT,
                    "%-12s %12.4f %12.4f %12.4f %6d %10d %13.1f %13.1f %10.3f %10.3f",
                    s.policy(),
                    s.totalCost(),
                    s.executionCost(),
                    s.tardinessCost(),
                    s.tardyJobs(),
                    s.completedJobs(),
                    s.meanJctSeconds(),
                    s.makespanSeconds(),
                    s.optimizerMedianMs(),
                    s.optimizerP99Ms()));
        }
    }
}
