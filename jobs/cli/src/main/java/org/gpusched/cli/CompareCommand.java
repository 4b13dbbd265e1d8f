package org.gpusched.cli;

import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.flink.configuration.Configuration;
import org.gpusched.audit.AuditInputException;
import org.gpusched.audit.AuditReport;
import org.gpusched.audit.RunAuditor;
import org.gpusched.formats.ClusterSpec;
import org.gpusched.formats.ClusterYaml;
import org.gpusched.formats.FormatException;
import org.gpusched.reports.Comparison;
import org.gpusched.reports.ReportInputException;
import org.gpusched.reports.Reports;
import org.gpusched.streaming.SchedulerConfig;
import org.gpusched.streaming.SchedulerOptions;
import org.gpusched.streaming.file.FileJobSources;
import org.gpusched.streaming.file.LocalRun;
import org.gpusched.streaming.file.RunDirectoryWriter;
import org.gpusched.streaming.file.StagedDirectory;
import org.gpusched.streaming.placement.PlacementOptions;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code gpusched compare}: with --trace/--cluster, scheduling policies; with --pods/--nodes, placement policies
 * ({@link PlacementCompare}). Scheduling: every policy over the same event stream in one Flink job per seed (the events are copied to
 * one keyed pipeline per policy by the dispatcher), a run directory per policy, comparison.csv, report.html and an
 * independent audit of every run directory.
 *
 * <p>Seeds run as separate Flink jobs, one after the other: the seed drives both the policies' random state and the
 * replay noise, so two seeds are two different real event streams when --noise is set; within a seed every policy sees
 * exactly the same events in the same pass.
 */
@Command(
        name = "compare",
        mixinStandardHelpOptions = true,
        defaultValueProvider = CommandConfiguration.Defaults.class,
        description = {
            "Runs several policies on the same trace in one pass: the events are",
            "broadcast to one keyed pipeline per policy in a single Flink job (one job",
            "per seed, since the seed also draws the noise). Writes:",
            "  DIR/POLICY/ (one seed) or DIR/seed-S/POLICY/ (several seeds):",
            "      run directories in the replay format",
            "  DIR/comparison.csv: per run total, execution and tardiness cost, tardy",
            "      jobs, mean JCT, makespan, optimizer p50/p99 ms, reduction vs the",
            "      best of fifo/edf/priority with the same seed, the instance's lower",
            "      bound on cost and how far the total is above it",
            "  DIR/report.html: cost per policy, cumulative cost over time, Gantt",
            "      chart of jobs on nodes (runs of at most 60 jobs)",
            "  DIR/audit.txt: the independent audit (gpusched validate) of every run",
            "Progress on stderr; the summary table and the audit results on stdout.",
            "",
            "With --pods and --nodes instead, compares placement policies (fgd, pwr,",
            "pwr-fgd per --alpha, bestfit, dotprod, gpu-packing, gpu-clustering, random)",
            "on an Alibaba pod list as place-replay does, every (policy, seed) in ONE",
            "Flink job over the same pods. Writes DIR/POLICY/ (DIR/seed-S/POLICY/ for",
            "several seeds) in the place-replay format, DIR/comparison.csv (placed,",
            "failed, rejected, mean/peak EOPC, energy, saving vs fgd, GPU allocation,",
            "fragmented GPUs) and DIR/report.html (EOPC per run; EOPC, allocation and",
            "fragmentation over trace time).",
            "",
            "With PowerFlow policies (powerflow, tiresias, gandiva, afs, tiresias+zeus,",
            "gandiva+zeus) and --trace a PowerFlow trace (generate --scenario powerflow),",
            "runs them in gpusched powerflow's simulator over the same jobs and telemetry",
            "noise: powerflow once per --eta, tiresias/gandiva/afs once per --limits.",
            "Writes DIR (DIR/seed-S/ for several seeds) as gpusched powerflow --out does,",
            "plus report.html (mean JCT against energy per policy, GPUs allocated and",
            "cluster power over time) and audit.txt (the energy audit of validate)."
        })
public final class CompareCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--trace", paramLabel = "FILE", description = "Scheduling: trace (JSON Lines, one job a line).")
    Path trace;

    @Option(
            names = "--cluster",
            paramLabel = "FILE",
            description = "Scheduling: cluster file (YAML: node types and nodes).")
    Path cluster;

    @Option(
            names = "--pods",
            paramLabel = "FILE",
            description = "Placement: Alibaba pod list CSV with times (as place-replay takes).")
    Path pods;

    @Option(
            names = "--nodes",
            paramLabel = "FILE",
            description = "Placement: Alibaba node list CSV (sn,cpu_milli,memory_mib,gpu,model).")
    Path nodes;

    @Option(
            names = "--policies",
            required = true,
            split = ",",
            splitSynopsisLabel = ",",
            paramLabel = "POLICY",
            description = {
                "Policies to compare, comma separated: scheduling policies with --trace/--cluster (e.g. fifo,edf,priority,greedy,andreas-rg,rg-ls), "
                        + "placement policies with --pods/--nodes (fgd,pwr,pwr-fgd,bestfit,dotprod,gpu-packing,gpu-clustering,random)."
            })
    List<String> policies;

    @Option(
            names = "--seeds",
            split = ",",
            splitSynopsisLabel = ",",
            paramLabel = "SEED",
            description =
                    "Seeds, comma separated (default: ${DEFAULT-VALUE}; placement policies: gpusched.placement.seed). Scheduling: one Flink job each; placement: all runs in one job.")
    List<Long> seeds;

    // --alpha sets a PlacementOptions key: read through scheduler.placementOptions(), never from this field
    @Option(
            names = "--alpha",
            split = ",",
            splitSynopsisLabel = ",",
            paramLabel = "A",
            description = "Placement: alpha of pwr-fgd, one run per value (default: ${DEFAULT-VALUE}).")
    List<String> alphas;

    @Mixin
    ReplaySchedulerOptions scheduler;

    @Mixin
    MetricsPortOption metricsPort;

    @Mixin
    PowerflowCompare.Options powerflow;

    @Option(names = "--title", paramLabel = "TEXT", description = "Report title (default: compare TRACE).")
    String title;

    @Option(
            names = "--out",
            required = true,
            paramLabel = "DIR",
            description = "Output directory: " + CliFiles.OUT_DIRECTORY)
    Path out;

    /** Placement (--pods/--nodes) or scheduling (--trace/--cluster): exactly one pair of inputs, and only its options. */
    private Slice slice() {
        return new Slice.Choice(
                        "--trace and --cluster",
                        "--trace/--cluster",
                        trace != null || cluster != null,
                        "--pods",
                        pods,
                        "--nodes",
                        nodes,
                        ReplaySchedulerOptions.NAMES)
                .resolve(spec.commandLine());
    }

    @Override
    public Integer call() throws Exception {
        PrintWriter err = spec.commandLine().getErr();
        metricsPort.validate();
        PrintWriter stdout = spec.commandLine().getOut();
        if (seeds.isEmpty()) throw new ParameterException(spec.commandLine(), "--seeds must name at least one seed");
        if (seeds.stream().distinct().count() != seeds.size())
            throw new ParameterException(spec.commandLine(), "--seeds lists a seed twice: " + seeds);
        if (PowerflowCompare.selected(spec.commandLine(), policies)) {
            if (cluster != null
                    || pods != null
                    || nodes != null
                    || spec.commandLine().getParseResult().hasMatchedOption("--alpha")
                    || metricsPort.ports != null)
                throw new ParameterException(
                        spec.commandLine(),
                        "PowerFlow policies take --trace (a PowerFlow trace), not --cluster, --pods, --nodes, --alpha"
                                + " or --metrics-port");
            CliFiles.rejectGiven(spec.commandLine(), ReplaySchedulerOptions.NAMES, "applies to scheduling policies");
            return PowerflowCompare.run(spec.commandLine(), trace, policies, seeds, powerflow, title, out);
        }
        return slice().dispatch(new Slice.Handler<>() {
            @Override
            public Integer scheduling() throws Exception {
                return compareScheduling();
            }

            @Override
            public Integer placement(Slice.Placement inputs) throws Exception {
                return comparePlacement(inputs);
            }
        });
    }

    private int comparePlacement(Slice.Placement inputs) throws Exception {
        Configuration options = scheduler.placementOptions();
        List<Long> placementSeeds = spec.commandLine().getParseResult().hasMatchedOption("--seeds")
                ? seeds
                : List.of(options.get(PlacementOptions.SEED));
        StagedDirectory staged = CliFiles.stage(spec.commandLine(), "compare", out, inputs.first(), inputs.second());
        if (staged == null) return ExitCode.BAD_INPUT;
        try (staged) {
            return PlacementCompare.run(
                    spec.commandLine(),
                    inputs.first(),
                    inputs.second(),
                    policies,
                    options.get(PlacementOptions.ALPHAS),
                    options.get(PlacementOptions.WATERMARK_INTERVAL),
                    placementSeeds,
                    title,
                    staged,
                    out);
        }
    }

    private int compareScheduling() throws Exception {
        PrintWriter err = spec.commandLine().getErr();
        PrintWriter stdout = spec.commandLine().getOut();
        scheduler.options();
        CliFiles.requireFile(spec.commandLine(), trace, "--trace");
        CliFiles.requireFile(spec.commandLine(), cluster, "--cluster");
        List<String> placementPolicies = PlacementCompare.placementOnly(policies);
        if (!placementPolicies.isEmpty())
            throw new ParameterException(
                    spec.commandLine(),
                    String.join(",", placementPolicies) + ": placement policies, which need --pods and --nodes "
                            + "(an Alibaba pod and node list) instead of --trace and --cluster (one kind per comparison)");
        ClusterSpec clusterSpec;
        try {
            clusterSpec = ClusterYaml.read(cluster);
            ClusterWarnings.print(err, "gpusched compare", cluster, clusterSpec);
        } catch (FormatException e) {
            err.println("gpusched compare: " + e.getMessage());
            return ExitCode.BAD_INPUT;
        }
        List<SchedulerConfig> configs = new ArrayList<>();
        Duration watermarks;
        try {
            watermarks = ReplaySchedulerOptions.watermarksFor(
                    err,
                    "gpusched compare",
                    trace,
                    null,
                    scheduler.replayConfig(clusterSpec).policies(policies).build());
        } catch (IllegalArgumentException e) {
            throw CommandConfiguration.usageError(spec.commandLine(), e);
        }
        if (!spec.commandLine().getParseResult().hasMatchedOption("--seeds"))
            seeds = List.of(scheduler.options().get(SchedulerOptions.SEED));
        for (long seed : seeds) {
            try {
                configs.add(scheduler
                        .replayConfig(clusterSpec)
                        .seed(seed)
                        .policies(policies)
                        .outOfOrderness(watermarks)
                        .build());
            } catch (IllegalArgumentException e) {
                throw CommandConfiguration.usageError(spec.commandLine(), e);
            }
        }

        long jobs = CliFiles.countLines(trace);
        if (jobs == 0) {
            err.println("gpusched compare: " + trace + ": empty trace, no job to replay");
            return ExitCode.BAD_INPUT;
        }
        StagedDirectory staged = CliFiles.stage(spec.commandLine(), "compare", out, trace, cluster);
        if (staged == null) return ExitCode.BAD_INPUT;
        try (staged) {
            return compare(err, stdout, configs, jobs, staged);
        }
    }

    private int compare(
            PrintWriter err, PrintWriter stdout, List<SchedulerConfig> configs, long jobs, StagedDirectory staged)
            throws Exception {
        Path dir = staged.dir();
        long expected = jobs * policies.size();
        long started = System.nanoTime();
        List<Path> runDirs = new ArrayList<>();
        List<RunDirectoryWriter.Summary> summaries = new ArrayList<>();
        for (int i = 0; i < configs.size(); i++) {
            SchedulerConfig cfg = configs.get(i);
            long seed = cfg.seed();
            String runLabel =
                    seeds.size() == 1 ? "" : String.format(Locale.ROOT, "seed %d (%d/%d), ", seed, i + 1, seeds.size());
            err.printf(
                    Locale.ROOT,
                    "compare: %s%d trace lines, %d nodes, policies %s, K=%d, noise %.2f, H=%.0fs%n",
                    runLabel,
                    jobs,
                    cfg.nodes().size(),
                    String.join(",", policies),
                    cfg.controllers(),
                    cfg.noise(),
                    cfg.periodSeconds());
            err.flush();
            Path base = seeds.size() == 1 ? dir : dir.resolve("seed-" + seed);
            Path parts = base.resolve(".parts");
            long seedStarted = System.nanoTime();
            ProgressLine progress = ProgressLine.forStderr(err);
            LocalRun.run(
                    cfg,
                    new FileJobSources(trace, null, null, null),
                    parts,
                    1,
                    "gpusched compare " + trace.getFileName() + " seed " + seed,
                    metricsPort.apply(new org.apache.flink.configuration.Configuration(), err),
                    p -> {
                        double s = (System.nanoTime() - seedStarted) / 1e9;
                        double done = p.finished() + (double) p.rejected() * policies.size();
                        progress.update(String.format(
                                Locale.ROOT,
                                "compare: %s%,d/%,d (job, policy) pairs finished, %,d rejected (%.0f%%), %.1f s",
                                runLabel,
                                p.finished(),
                                expected,
                                p.rejected(),
                                expected == 0 ? 100.0 : Math.min(100.0, 100.0 * done / expected),
                                s));
                    });
            progress.finish();
            Map<String, Object> inputs = new LinkedHashMap<>();
            inputs.put("trace", trace.toString());
            CliFiles.putCluster(inputs, cluster);
            long writing = CliFiles.writing(
                    err, "compare", parts, policies.size() == 1 ? "the run directory" : "the run directories");
            for (String policy : policies) {
                Path runDir = base.resolve(policy);
                summaries.add(RunDirectoryWriter.write(parts, runDir, cfg, policy, inputs));
                runDirs.add(runDir);
            }
            CliFiles.deleteParts(parts);
            CliFiles.written(
                    err, "compare", policies.size() == 1 ? "the run directory" : "the run directories", writing);
        }
        if (summaries.stream().allMatch(s -> s.acceptedJobs() == 0)) {
            err.println("gpusched compare: " + CliFiles.noValidJob(trace, runDirs.get(0)));
            return ExitCode.BAD_INPUT;
        }

        String command = "gpusched "
                + String.join(" ", spec.commandLine().getParseResult().originalArgs());
        List<Comparison.Row> rows;
        try {
            rows = Reports.write(
                    runDirs,
                    dir,
                    title != null ? title : "gpusched compare " + trace.getFileName(),
                    command,
                    RunLowerBound::forReport);
        } catch (ReportInputException | java.io.UncheckedIOException e) {
            err.println("gpusched compare: report: " + e.getMessage());
            return ExitCode.BAD_INPUT;
        }

        err.println("compare: auditing " + runDirs.size() + " run directories");
        err.flush();
        StringBuilder audit = new StringBuilder();
        long violations = 0;
        List<String> auditLines = new ArrayList<>();
        for (Path run : runDirs) {
            String name = dir.relativize(run).toString();
            try {
                AuditReport report = RunAuditor.audit(run);
                violations += report.violationCount();
                audit.append("== ")
                        .append(name)
                        .append('\n')
                        .append(report.format())
                        .append('\n');
                auditLines.add(String.format(
                        Locale.ROOT,
                        "  %-28s %s",
                        name,
                        report.ok() ? "clean" : report.violationCount() + " violations " + report.counts()));
            } catch (AuditInputException e) {
                violations++;
                audit.append("== ")
                        .append(name)
                        .append("\nunreadable: ")
                        .append(e.getMessage())
                        .append('\n');
                auditLines.add(String.format(Locale.ROOT, "  %-28s unreadable: %s", name, e.getMessage()));
            }
        }
        Files.writeString(dir.resolve("audit.txt"), audit.toString(), StandardCharsets.UTF_8);
        staged.commit();

        double seconds = (System.nanoTime() - started) / 1e9;
        stdout.print(Comparison.table(rows));
        stdout.println("audit (gpusched validate) of every run directory:");
        for (String l : auditLines) stdout.println(l);
        stdout.printf(
                Locale.ROOT,
                "%d runs (%d policies x %d seeds) in %.1f s; wrote %s, %s and %s%n",
                runDirs.size(),
                policies.size(),
                seeds.size(),
                seconds,
                out.resolve(Reports.CSV),
                out.resolve(Reports.HTML),
                out.resolve("audit.txt"));
        stdout.flush();
        long unfinished = summaries.stream()
                .filter(s -> s.completedJobs() != s.acceptedJobs())
                .count();
        if (unfinished > 0) {
            err.printf(Locale.ROOT, "compare: %d runs left accepted jobs unfinished%n", unfinished);
            err.flush();
            return ExitCode.FINDINGS;
        }
        if (violations > 0) {
            err.printf(
                    Locale.ROOT,
                    "compare: the audit found %d violations (see %s)%n",
                    violations,
                    out.resolve("audit.txt"));
            err.flush();
            return ExitCode.FINDINGS;
        }
        return ExitCode.OK;
    }
}
