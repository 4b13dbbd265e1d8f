package org.gpusched.cli;

import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.gpusched.audit.AuditInputException;
import org.gpusched.audit.AuditReport;
import org.gpusched.audit.RunAuditor;
import java.io.PrintWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code gpusched validate DIR}: the independent audit of a run directory. */
@Command(name = "validate", mixinStandardHelpOptions = true,
        description = {"Audits a run directory (run.json, jobs.jsonl, decisions.jsonl, metrics.json)",
                "from its files alone: GPU capacity never exceeded on any node, one placement",
                "per job at a time, no start before submission, each COMPLETE exactly when",
                "the work integrated over the job's placements (times x actualFactor) is",
                "done, every job completes, node types consistent, and metrics.json equal to",
                "the costs recomputed from the decisions (node: costPerHour[type][busy GPUs]",
                "while >= 1 job runs; job: weight x hours late). Prints the metrics side by",
                "side and every violation (time, job, node). Exit 0 = clean, 1 = violations,",
                "2 = unreadable run directory (docs/cli.md). Details: jobs/audit/README.md."})
public final class ValidateCommand implements Callable<Integer> {
    @Spec CommandSpec spec;

    @Parameters(index = "0", paramLabel = "DIR", description = "Run directory (as written by replay or compare).")
    Path dir;

    @Option(names = "--time-tolerance", paramLabel = "S", defaultValue = "0.01",
            description = "Seconds a COMPLETE may differ from the moment the work is done (default: ${DEFAULT-VALUE}).")
    double timeTolerance;

    @Option(names = "--cost-tolerance", paramLabel = "R", defaultValue = "1e-6",
            description = "Relative difference allowed between reported and recomputed totals (default: ${DEFAULT-VALUE}).")
    double costTolerance;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (!(timeTolerance >= 0) || !(costTolerance >= 0)) {
            err.println("gpusched validate: tolerances must be >= 0");
            return ExitCode.BAD_INPUT;
        }
        AuditReport report;
        try {
            report = RunAuditor.audit(dir, new RunAuditor.Tolerances(timeTolerance, costTolerance, 1e-6));
        } catch (AuditInputException e) {
            err.println("gpusched validate: " + e.getMessage());
            return ExitCode.BAD_INPUT;
        }
        out.print(report.format());
        out.flush();
        return report.ok() ? ExitCode.OK : ExitCode.FINDINGS;
    }
}
