package org.gpusched.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.gpusched.formats.FormatException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code gpusched cost}: the common cost rule applied to product runs and GPUScheduler schedules alike. */
@Command(
        name = "cost",
        mixinStandardHelpOptions = true,
        description = {
            "Prices schedules under one rule, whoever produced them: a node costs its VM's",
            "price per hour for every second it hosts a running job; a job costs its weight",
            "per hour times the hours it finished late. Each SCHEDULE is a run directory",
            "of gpusched or a schedule CSV of the GPUScheduler C++ code (METHOD_schedule*.csv",
            "of its SMALL_SYSTEM build); both are read as steps of one job per row and",
            "priced by the same code. Prints one line per schedule (--csv: CSV with a",
            "header; --by-vm adds node hours and cost per VM type). Unfinished jobs are",
            "counted, not priced. Bad input exits 2."
        })
public final class CostCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(
            arity = "1..*",
            paramLabel = "SCHEDULE",
            description = "Run directories or GPUScheduler schedule CSV files.")
    List<Path> schedules;

    @Option(
            names = "--csv",
            description =
                    "Print CSV: schedule,total,nodeCost,tardinessCost,nodeHours,jobs,tardyJobs,unfinishedJobs,steps.")
    boolean csv;

    @Option(
            names = "--by-vm",
            description = "Also print node hours and node cost per VM type (the VM mix of each schedule).")
    boolean byVm;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        try {
            if (csv) out.println("schedule,total,nodeCost,tardinessCost,nodeHours,jobs,tardyJobs,unfinishedJobs,steps");
            else
                out.printf(
                        Locale.ROOT,
                        "%-50s %12s %12s %12s %10s %6s %6s %10s%n",
                        "schedule",
                        "total",
                        "nodes",
                        "tardiness",
                        "node h",
                        "jobs",
                        "tardy",
                        "unfinished");
            for (Path s : schedules) {
                var t = CommonRuleCost.of(s);
                if (csv) {
                    out.printf(
                            Locale.ROOT,
                            "%s,%.6f,%.6f,%.6f,%.6f,%d,%d,%d,%d%n",
                            s,
                            t.total(),
                            t.nodeCost(),
                            t.tardinessCost(),
                            t.nodeHours(),
                            t.jobs(),
                            t.tardyJobs(),
                            t.unfinishedJobs(),
                            t.steps());
                } else {
                    out.printf(
                            Locale.ROOT,
                            "%-50s %12.4f %12.4f %12.4f %10.2f %6d %6d %10d%n",
                            s,
                            t.total(),
                            t.nodeCost(),
                            t.tardinessCost(),
                            t.nodeHours(),
                            t.jobs(),
                            t.tardyJobs(),
                            t.unfinishedJobs());
                }
                if (byVm) {
                    // CSV: one more row per VM type, schedule#VM with its node cost and node hours
                    t.byVmType().forEach((vm, v) -> {
                        if (csv) out.printf(Locale.ROOT, "%s#%s,%.6f,%.6f,0,%.6f,,,,%n", s, vm, v[1], v[1], v[0]);
                        else out.printf(Locale.ROOT, "  %-48s %12.4f %12.4f %12s %10.2f%n", vm, v[1], v[1], "", v[0]);
                    });
                }
                out.flush();
            }
            return ExitCode.OK;
        } catch (FormatException e) {
            spec.commandLine().getErr().println("gpusched cost: " + e.getMessage());
            return ExitCode.BAD_INPUT;
        }
    }
}
