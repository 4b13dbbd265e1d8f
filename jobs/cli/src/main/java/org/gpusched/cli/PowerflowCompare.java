package org.gpusched.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.gpusched.audit.AuditInputException;
import org.gpusched.audit.AuditReport;
import org.gpusched.audit.PowerflowEnergyAudit;
import org.gpusched.powerflow.policy.PowerFlowPolicy;
import org.gpusched.powerflow.policy.TimeSlicing;
import org.gpusched.powerflow.sim.Experiment;
import org.gpusched.powerflow.sim.ModelSource;
import org.gpusched.powerflow.sim.PolicySet;
import org.gpusched.powerflow.sim.TraceFiles;
import org.gpusched.powerflow.sim.TraceJob;
import org.gpusched.powerflow.truth.GroundTruth;
import org.gpusched.powerflow.truth.PowerflowConfig;
import org.gpusched.powerflow.truth.ZeusMeasurements;
import org.gpusched.reports.PowerflowReport;
import org.gpusched.reports.ReportInputException;
import org.gpusched.streaming.file.StagedDirectory;
import picocli.CommandLine;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * {@code compare --trace T --policies powerflow,tiresias,...}: PowerFlow and its baselines over one PowerFlow trace, in
 * the event-driven simulator of {@code gpusched powerflow} (every run sees the same jobs and the same per-job
 * telemetry noise), then the run directory's report.html and its energy audit.
 */
final class PowerflowCompare {
    /** The options that apply to PowerFlow policies only. */
    static final class Options {
        static final List<String> NAMES = List.of(
                "--gpus",
                "--eta",
                "--limits",
                "--powerflow-config",
                "--start-limit",
                "--gandiva-quantum",
                "--gandiva-resume");

        @Option(
                names = "--gpus",
                paramLabel = "G",
                defaultValue = "64",
                description =
                        "PowerFlow policies: cluster GPUs, a multiple of the node size (default: ${DEFAULT-VALUE}).")
        int gpus;

        @Option(
                names = "--eta",
                paramLabel = "ETA",
                split = ",",
                splitSynopsisLabel = ",",
                defaultValue = "0.2,0.3,0.4,0.5,0.6,0.8,1.0",
                description = "PowerFlow policies: powerflow's power budgets, fractions of G x P_max, one run each"
                        + " (default: ${DEFAULT-VALUE}).")
        List<Double> etas;

        @Option(
                names = "--limits",
                paramLabel = "W",
                split = ",",
                splitSynopsisLabel = ",",
                defaultValue = "150,200,250",
                description = "PowerFlow policies: cluster-wide power limits (W) of tiresias, gandiva and afs, one run"
                        + " each (default: ${DEFAULT-VALUE}).")
        List<Double> limits;

        @Option(
                names = "--powerflow-config",
                paramLabel = "FILE",
                description =
                        "PowerFlow policies: ground-truth configuration (default: the bundled conf/powerflow.yaml).")
        Path config;

        @Option(
                names = "--start-limit",
                paramLabel = "efficient|least-energy",
                defaultValue = "efficient",
                converter = PowerflowCommand.StartLimitConverter.class,
                description = "PowerFlow policies: the limit a powerflow job starts at before clocks are raised,"
                        + " efficient (the paper's) or least-energy (default: ${DEFAULT-VALUE}).")
        PowerFlowPolicy.StartLimit startLimit;

        @Option(
                names = "--gandiva-quantum",
                paramLabel = "SECONDS",
                defaultValue = "0",
                description = "PowerFlow policies: gandiva's time-slicing quantum, 0 for first come, first served"
                        + " (default: ${DEFAULT-VALUE}).")
        double gandivaQuantum;

        @Option(
                names = "--gandiva-resume",
                paramLabel = "SECONDS",
                defaultValue = "1",
                description = "PowerFlow policies: gandiva's overhead per resume when it time-slices (default:"
                        + " ${DEFAULT-VALUE}).")
        double gandivaResume;
    }

    private PowerflowCompare() {}

    /** Whether {@code policies} name PowerFlow policies; a mix with scheduling policies is a usage error. */
    static boolean selected(CommandLine cmd, List<String> policies) {
        List<String> energy =
                policies.stream().filter(PolicySet.NAMES::contains).toList();
        if (energy.isEmpty()) {
            CliFiles.rejectGiven(cmd, Options.NAMES, "applies to PowerFlow policies (" + PolicySet.NAMES + ") only");
            return false;
        }
        if (energy.size() != policies.size())
            throw new ParameterException(
                    cmd,
                    String.join(",", energy) + ": PowerFlow policies, which run on a PowerFlow trace without --cluster;"
                            + " they cannot be compared with "
                            + String.join(
                                    ",",
                                    policies.stream()
                                            .filter(p -> !PolicySet.NAMES.contains(p))
                                            .toList()));
        return true;
    }

    /**
     * Runs every policy per seed into {@code out} (one seed) or {@code out/seed-S}, each a PowerFlow run directory with
     * report.html and audit.txt; exit 0, 1 (audit findings) or 2.
     */
    static int run(
            CommandLine cmd, Path trace, List<String> policies, List<Long> seeds, Options o, String title, Path out)
            throws IOException {
        PrintWriter err = cmd.getErr(), stdout = cmd.getOut();
        if (trace == null) throw new ParameterException(cmd, "PowerFlow policies need --trace (a PowerFlow trace)");
        CliFiles.requireFile(cmd, trace, "--trace");
        if (o.config != null) CliFiles.requireFile(cmd, o.config, "--powerflow-config");
        GroundTruth truth;
        List<TraceJob> jobs;
        List<PolicySet.Run> runs;
        try {
            PowerflowConfig cfg = o.config == null ? PowerflowConfig.defaults() : PowerflowConfig.read(o.config);
            truth = new GroundTruth(cfg, ZeusMeasurements.v100());
            for (double l : o.limits)
                if (!cfg.gpu().powerLimits().contains(l))
                    throw new ParameterException(
                            cmd,
                            "--limits: " + l + " W is not a supported limit "
                                    + cfg.gpu().powerLimits());
            if (o.gpus <= 0 || o.gpus % cfg.gpu().gpusPerNode() != 0)
                throw new ParameterException(
                        cmd,
                        "--gpus must be a positive multiple of " + cfg.gpu().gpusPerNode() + ", got " + o.gpus);
            runs = PolicySet.expand(
                    policies,
                    o.etas,
                    o.limits,
                    PowerFlowPolicy.Normalizer.CLUSTER,
                    PowerFlowPolicy.BudgetCheck.NODE_BOUNDARY,
                    o.startLimit,
                    TimeSlicing.of(o.gandivaQuantum, o.gandivaResume));
        } catch (IllegalArgumentException e) {
            throw new ParameterException(cmd, e.getMessage());
        }
        try {
            jobs = TraceFiles.read(trace, truth);
        } catch (IllegalArgumentException e) {
            err.println("gpusched compare: " + e.getMessage());
            return ExitCode.BAD_INPUT;
        }
        if (jobs.isEmpty()) {
            err.println("gpusched compare: " + trace + ": empty trace, no job to replay");
            return ExitCode.BAD_INPUT;
        }
        StagedDirectory staged = CliFiles.stage(cmd, "compare", out, trace);
        if (staged == null) return ExitCode.BAD_INPUT;
        try (staged) {
            String command = "gpusched " + String.join(" ", cmd.getParseResult().originalArgs());
            long violations = 0;
            StringBuilder table = new StringBuilder();
            for (long seed : seeds) {
                Path dir = seeds.size() == 1 ? staged.dir() : staged.dir().resolve("seed-" + seed);
                err.printf(
                        Locale.ROOT,
                        "compare: seed %d, %d PowerFlow jobs on %d GPUs, %d runs (%s)%n",
                        seed,
                        jobs.size(),
                        o.gpus,
                        runs.size(),
                        String.join(",", policies));
                err.flush();
                List<Experiment.Row> rows =
                        Experiment.run(truth, jobs, o.gpus, seed, ModelSource.FITTED, runs, dir, err);
                if (seeds.size() > 1) table.append("seed ").append(seed).append('\n');
                table.append(Experiment.table(rows, Experiment.versus(rows)));
                try {
                    PowerflowReport.write(
                            dir,
                            dir,
                            title != null ? title : "gpusched compare " + trace.getFileName() + " seed " + seed,
                            command);
                } catch (ReportInputException | java.io.UncheckedIOException e) {
                    err.println("gpusched compare: report: " + e.getMessage());
                    return ExitCode.BAD_INPUT;
                }
                violations += audit(dir, table);
            }
            staged.commit();
            stdout.print(table);
            stdout.printf(
                    Locale.ROOT,
                    "%d runs x %d seeds; wrote %s (report.html and audit.txt %s)%n",
                    runs.size(),
                    seeds.size(),
                    out,
                    seeds.size() == 1 ? "in it" : "per seed-S/");
            stdout.flush();
            if (violations > 0) {
                err.printf(Locale.ROOT, "compare: the energy audit found %d violations (see audit.txt)%n", violations);
                err.flush();
                return ExitCode.FINDINGS;
            }
            return ExitCode.OK;
        }
    }

    /** The energy audit of one run directory into its audit.txt, a line per run appended to {@code table}. */
    private static long audit(Path dir, StringBuilder table) throws IOException {
        StringBuilder text = new StringBuilder();
        long violations = 0;
        table.append("energy audit (gpusched validate):\n");
        try {
            Map<String, AuditReport> reports =
                    PowerflowEnergyAudit.audit(dir, new PowerflowEnergyAudit.Tolerances(0.01, 1e-6));
            for (var e : reports.entrySet()) {
                AuditReport r = e.getValue();
                violations += r.violationCount();
                text.append("== ").append(e.getKey()).append('\n').append(r.format());
                table.append(String.format(
                        Locale.ROOT,
                        "  %-22s %s%n",
                        e.getKey(),
                        r.ok() ? "clean" : r.violationCount() + " violations " + r.counts()));
            }
        } catch (AuditInputException e) {
            violations++;
            text.append("unreadable: ").append(e.getMessage()).append('\n');
            table.append("  unreadable: ").append(e.getMessage()).append('\n');
        }
        Files.writeString(dir.resolve("audit.txt"), text.toString(), StandardCharsets.UTF_8);
        return violations;
    }
}
