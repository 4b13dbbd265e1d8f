package org.gpusched.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.gpusched.audit.AuditInputException;
import org.gpusched.audit.PowerflowEnergyAudit;
import org.gpusched.audit.RunDirectories;
import org.gpusched.reports.Comparison;
import org.gpusched.reports.PlacementComparison;
import org.gpusched.reports.PowerflowReport;
import org.gpusched.reports.ReportInputException;
import org.gpusched.reports.Reports;
import org.gpusched.reports.ResultsSummary;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code gpusched report RUN_DIR...}: comparison.csv and report.html from run directories. */
@Command(
        name = "report",
        mixinStandardHelpOptions = true,
        description = {
            "Compares finished runs: run directories of replay, run --out or place-replay, or compare directories "
                    + "(every run in them); scheduling and placement runs are not mixed. Writes DIR/comparison.csv "
                    + "(per run: total, execution and tardiness cost, tardy jobs, mean JCT, makespan, optimizer "
                    + "p50/p99, reduction vs the best of fifo/edf/priority with the same seed, the instance's lower bound on "
                    + "cost and how far the total is above it) and DIR/report.html, "
                    + "a self-contained page: cost per policy, cumulative cost over time, GPUs busy and jobs waiting "
                    + "over time, completion times, tardiness and moves per job, and a Gantt chart of jobs on nodes "
                    + "for runs of at most 60 jobs (placement runs: EOPC, allocation and fragmentation, as compare "
                    + "--pods). Prints the table. Every run appears in every section, labelled by what sets it apart "
                    + "(K=4, dir=...); a run given twice is reported once and named on stderr (exit 2). Both files "
                    + "are written or neither.",
            "A PowerFlow run directory (gpusched powerflow --out) gets the paper's plots instead: mean JCT against "
                    + "total energy per policy, GPUs allocated and cluster power over time.",
            "With --summary RESULTS_DIR instead: the markdown summary of the experiment CSVs bin/reproduce-results "
                    + "writes (main, milp, controllers, dispatch, noise, tight, energy, freemoves, cheapmoves .csv) on "
                    + "stdout, or to --out FILE: cost reductions vs the best queue baseline (and the *-fastest "
                    + "baselines), the runs of other settings, optimizers against each other, tardiness and optimizer "
                    + "time, MILP gaps, K controllers, dispatch rules, noise and tight due dates; with --instances DIR "
                    + "also the cost ceilings of the generated hierarchical instances."
        })
public final class ReportCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(arity = "0..*", paramLabel = "RUN_DIR", description = "Run directories or compare directories.")
    List<Path> runs;

    @Option(
            names = "--out",
            paramLabel = "DIR",
            description = "Output directory (created); with --summary the markdown file to write (default: stdout).")
    Path outDir;

    @Option(
            names = "--summary",
            paramLabel = "RESULTS_DIR",
            description = "Summarize the experiment CSVs of bin/reproduce-results in RESULTS_DIR (markdown) instead.")
    Path summary;

    @Option(
            names = "--instances",
            paramLabel = "DIR",
            description =
                    "With --summary: the generated instances (bin/reproduce-results' RUNS/instances), for the cost ceilings.")
    Path instances;

    @Option(
            names = "--title",
            paramLabel = "TEXT",
            defaultValue = "gpusched policy comparison",
            description = "Page title (default: ${DEFAULT-VALUE}).")
    String title;

    @Override
    public Integer call() throws java.io.IOException {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (summary != null) return summary(out, err);
        if (runs == null || runs.isEmpty())
            throw new ParameterException(spec.commandLine(), "give RUN_DIR... --out DIR, or --summary RESULTS_DIR");
        if (outDir == null) throw new ParameterException(spec.commandLine(), "missing --out DIR for the report");
        if (instances != null) throw new ParameterException(spec.commandLine(), "--instances applies to --summary");
        try {
            String command = "gpusched report "
                    + String.join(" ", runs.stream().map(Path::toString).toList()) + " --out " + outDir;
            if (runs.stream().anyMatch(PowerflowEnergyAudit::isRunDirectory)) {
                if (runs.size() != 1) {
                    err.println("gpusched report: a PowerFlow run directory is reported alone (one per report)");
                    return ExitCode.BAD_INPUT;
                }
                var pf = PowerflowReport.write(runs.get(0), outDir, title, command);
                out.println("wrote " + outDir.resolve(Reports.HTML) + " (" + pf.size() + " PowerFlow runs)");
                return ExitCode.OK;
            }
            List<RunDirectories.Run> found = new ArrayList<>();
            Map<Path, Path> given = new HashMap<>(); // a run's real path -> the argument that first named it
            boolean duplicates = false;
            for (Path dir : runs) {
                for (RunDirectories.Run run : RunDirectories.find(dir)) {
                    Path first = given.putIfAbsent(run.dir().toRealPath(), dir);
                    if (first == null) {
                        found.add(run);
                    } else {
                        err.println("gpusched report: " + run.dir() + " is given twice"
                                + (first.equals(dir) ? "" : " (" + first + " holds it too)") + "; reported once");
                        duplicates = true;
                    }
                }
            }
            List<Path> dirs = found.stream().map(RunDirectories.Run::dir).toList();
            long placement =
                    found.stream().filter(RunDirectories.Run::placement).count();
            if (placement > 0 && placement < found.size()) {
                err.println("gpusched report: scheduling runs and placement replays cannot be compared in one report: "
                        + found.stream()
                                .filter(RunDirectories.Run::placement)
                                .findFirst()
                                .orElseThrow()
                                .dir() + " is a placement replay, "
                        + found.stream()
                                .filter(r -> !r.placement())
                                .findFirst()
                                .orElseThrow()
                                .dir() + " a scheduling run");
                return ExitCode.BAD_INPUT;
            }
            if (placement > 0) {
                PlacementComparison.write(dirs, outDir, title, command);
                out.println("wrote " + outDir.resolve(Reports.CSV) + " and " + outDir.resolve(Reports.HTML) + " ("
                        + dirs.size() + " placement runs)");
                return duplicates ? ExitCode.BAD_INPUT : ExitCode.OK;
            }
            var rows = Reports.write(dirs, outDir, title, command, RunLowerBound::forReport);
            out.print(Comparison.table(rows));
            out.println("wrote " + outDir.resolve(Reports.CSV) + " and " + outDir.resolve(Reports.HTML));
            return duplicates ? ExitCode.BAD_INPUT : ExitCode.OK;
        } catch (AuditInputException e) {
            err.println("gpusched report: " + e.getMessage());
            return ExitCode.BAD_INPUT;
        } catch (ReportInputException | java.io.UncheckedIOException e) {
            err.println("gpusched report: " + e.getMessage());
            return ExitCode.BAD_INPUT;
        }
    }

    /** --summary: the markdown summary of an experiment's CSVs. */
    private int summary(PrintWriter out, PrintWriter err) throws java.io.IOException {
        if (runs != null && !runs.isEmpty())
            throw new ParameterException(spec.commandLine(), "--summary takes no RUN_DIR: " + runs.get(0));
        if (!java.nio.file.Files.isDirectory(summary)) {
            err.println("gpusched report: --summary " + summary + ": not a directory");
            return ExitCode.BAD_INPUT;
        }
        if (instances != null && !java.nio.file.Files.isDirectory(instances)) {
            err.println("gpusched report: --instances " + instances + ": not a directory");
            return ExitCode.BAD_INPUT;
        }
        String markdown;
        try {
            markdown = ResultsSummary.markdown(summary, instances);
        } catch (ReportInputException | java.io.UncheckedIOException e) {
            err.println("gpusched report: " + e.getMessage());
            return ExitCode.BAD_INPUT;
        }
        if (outDir == null) {
            out.print(markdown);
            out.flush();
        } else {
            java.nio.file.Files.writeString(outDir, markdown, java.nio.charset.StandardCharsets.UTF_8);
            err.println("wrote " + outDir);
        }
        return ExitCode.OK;
    }
}
