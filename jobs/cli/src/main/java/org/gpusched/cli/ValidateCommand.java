package org.gpusched.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.gpusched.audit.AuditInputException;
import org.gpusched.audit.AuditReport;
import org.gpusched.audit.PowerflowEnergyAudit;
import org.gpusched.audit.PowerflowTelemetryAudit;
import org.gpusched.audit.RunAuditor;
import org.gpusched.audit.RunDirectories;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code gpusched validate DIR}: the independent audit of a run directory. */
@Command(
        name = "validate",
        mixinStandardHelpOptions = true,
        description = {
            "Audits a run directory (run.json, jobs.jsonl, decisions.jsonl, metrics.json) from its files alone: GPU "
                    + "capacity never exceeded on any node, one placement per job at a time, no start before "
                    + "submission, each COMPLETE exactly when the work integrated over the job's placements (times x "
                    + "actualFactor) is done, every job completes, node types consistent, and metrics.json equal to "
                    + "the costs recomputed from the decisions (node: costPerHour[type][busy GPUs] while >= 1 job "
                    + "runs; job: weight x hours late). Prints the metrics side by side and every violation (time, "
                    + "job, node). Exit 0 = clean, 1 = violations, 2 = unreadable or incomplete run directory "
                    + "(docs/cli.md). Details: jobs/audit/README.md.",
            "DIR is a run directory of replay or run --out, or a compare directory, whose runs are audited one by "
                    + "one. Placement replays (place-replay, compare --pods) have no schedule to audit and are "
                    + "refused. A PowerFlow run directory (gpusched powerflow --out, replay --policy powerflow --out) "
                    + "is audited run by run: each job's progress, completion and energy, idle energy, power after "
                    + "each decision and the totals recomputed from decisions-RUN.csv and the ground truth "
                    + "(docs/powerflow.md); --cost-tolerance is then the relative energy tolerance. A live PowerFlow run "
                    + "directory (run --policy powerflow --bounded --out) has each job's energy recomputed from the "
                    + "telemetry it received and its decisions.",
            "jobs.jsonl is read as far as the decisions need it, so memory follows the jobs waiting or running, "
                    + "plus about 0.2 KB per job of the run (docs/cli.md#memory)."
        })
public final class ValidateCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(
            index = "0",
            paramLabel = "DIR",
            description = "Run directory (replay, run --out) or compare directory.")
    Path dir;

    @Option(
            names = "--time-tolerance",
            paramLabel = "S",
            defaultValue = "0.01",
            description = "Seconds a COMPLETE may differ from the moment the work is done (default: ${DEFAULT-VALUE}).")
    double timeTolerance;

    @Option(
            names = "--cost-tolerance",
            paramLabel = "R",
            defaultValue = "1e-6",
            description =
                    "Relative difference allowed between reported and recomputed totals (default: ${DEFAULT-VALUE}).")
    double costTolerance;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (!(timeTolerance >= 0) || !(costTolerance >= 0)) {
            err.println("gpusched validate: tolerances must be >= 0");
            return ExitCode.BAD_INPUT;
        }
        if (PowerflowEnergyAudit.isRunDirectory(dir)) return validatePowerflow(out, err);
        if (PowerflowTelemetryAudit.isRunDirectory(dir)) {
            AuditReport report;
            try {
                report = PowerflowTelemetryAudit.audit(dir, costTolerance, timeTolerance);
            } catch (AuditInputException e) {
                err.println("gpusched validate: " + e.getMessage());
                return ExitCode.BAD_INPUT;
            }
            out.print(report.format());
            out.flush();
            return report.ok() ? ExitCode.OK : ExitCode.FINDINGS;
        }
        List<RunDirectories.Run> runs;
        try {
            runs = RunDirectories.find(dir);
        } catch (AuditInputException e) {
            err.println("gpusched validate: " + e.getMessage());
            return ExitCode.BAD_INPUT;
        }
        List<Path> placement = runs.stream()
                .filter(RunDirectories.Run::placement)
                .map(RunDirectories.Run::dir)
                .toList();
        if (!placement.isEmpty()) {
            err.println("gpusched validate: " + placement.get(0)
                    + ": a placement replay (place-replay, compare --pods); validate audits "
                    + "scheduling runs (replay, compare --trace, run --out)");
            return ExitCode.BAD_INPUT;
        }
        boolean ok = true;
        for (RunDirectories.Run run : runs) {
            AuditReport report;
            try {
                report = RunAuditor.audit(run.dir(), new RunAuditor.Tolerances(timeTolerance, costTolerance, 1e-6));
            } catch (AuditInputException e) {
                err.println("gpusched validate: " + e.getMessage());
                return ExitCode.BAD_INPUT;
            }
            if (runs.size() > 1) out.println("== " + dir.relativize(run.dir()));
            out.print(report.format());
            ok &= report.ok();
        }
        out.flush();
        return ok ? ExitCode.OK : ExitCode.FINDINGS;
    }

    /** A PowerFlow run directory: every run's energy, completions and power recomputed from its decisions. */
    private int validatePowerflow(PrintWriter out, PrintWriter err) {
        Map<String, AuditReport> reports;
        try {
            reports =
                    PowerflowEnergyAudit.audit(dir, new PowerflowEnergyAudit.Tolerances(timeTolerance, costTolerance));
        } catch (AuditInputException e) {
            err.println("gpusched validate: " + e.getMessage());
            return ExitCode.BAD_INPUT;
        }
        boolean ok = true;
        for (var e : reports.entrySet()) {
            out.println("== " + e.getKey());
            out.print(e.getValue().format());
            ok &= e.getValue().ok();
        }
        out.flush();
        return ok ? ExitCode.OK : ExitCode.FINDINGS;
    }
}
