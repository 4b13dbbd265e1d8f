package org.gpusched.cli;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import org.gpusched.reports.Comparison;
import org.gpusched.reports.ReportInputException;
import org.gpusched.reports.Reports;
import java.io.PrintWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code gpusched report RUN_DIR...}: comparison.csv and report.html from run directories. */
@Command(name = "report", mixinStandardHelpOptions = true,
        description = {"Compares finished runs (directories written by replay or compare). Writes",
                "DIR/comparison.csv (per run: total, execution and tardiness cost, tardy jobs,",
                "mean JCT, makespan, optimizer p50/p99, reduction vs the best of",
                "fifo/edf/priority with the same seed) and DIR/report.html, a self-contained",
                "page: cost per policy, cumulative cost over time, and a Gantt chart of jobs",
                "on nodes for runs of at most 60 jobs. Prints the table."})
public final class ReportCommand implements Callable<Integer> {
    @Spec CommandSpec spec;

    @Parameters(arity = "1..*", paramLabel = "RUN_DIR", description = "Run directories to compare.")
    List<Path> runs;

    @Option(names = "--out", required = true, paramLabel = "DIR", description = "Output directory (created).")
    Path outDir;

    @Option(names = "--title", paramLabel = "TEXT", defaultValue = "gpusched policy comparison", description = "Page title (default: ${DEFAULT-VALUE}).")
    String title;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        try {
            String command = "gpusched report " + String.join(" ", runs.stream().map(Path::toString).toList()) + " --out " + outDir;
            var rows = Reports.write(runs, outDir, title, command);
            out.print(Comparison.table(rows));
            out.println("wrote " + outDir.resolve(Reports.CSV) + " and " + outDir.resolve(Reports.HTML));
            return ExitCode.OK;
        } catch (ReportInputException | java.io.UncheckedIOException e) {
            err.println("gpusched report: " + e.getMessage());
            return ExitCode.BAD_INPUT;
        }
    }
}
