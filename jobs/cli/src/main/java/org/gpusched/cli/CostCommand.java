package org.gpusched.cli;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.gpusched.core.model.Job;
import org.gpusched.core.objective.CostLowerBound;
import org.gpusched.formats.FormatException;
import org.gpusched.formats.TraceJob;
import org.gpusched.workloads.GpuSchedulerConverter;
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
            "counted, not priced. Bad input exits 2.",
            "Beside each cost: the instance's lower bound (the sum over its jobs of the",
            "cheapest share of node cost any configuration pays: time x GPUs x the type's",
            "cheapest price per busy GPU-hour, over the types the cluster has; a VM leased",
            "whole: price x g / G x hours; where that share would end after the job's due",
            "date, the least of its lateness and of a faster mix of configurations that ends",
            "on time) and how far the cost is above it. A run directory gives its instance",
            "(run.json, jobs.jsonl); a schedule CSV needs --instance."
        })
public final class CostCommand implements Callable<Integer> {
    static final String HEADER =
            "schedule,total,nodeCost,tardinessCost,nodeHours,jobs,tardyJobs,unfinishedJobs,steps,lowerBound,overBoundPercent";

    @Spec
    CommandSpec spec;

    @Parameters(
            arity = "1..*",
            paramLabel = "SCHEDULE",
            description = "Run directories or GPUScheduler schedule CSV files.")
    List<Path> schedules;

    @Option(names = "--csv", description = "Print CSV: " + HEADER + ".")
    boolean csv;

    @Option(
            names = "--instance",
            paramLabel = "DIR",
            description =
                    "The GPUScheduler instance folder (Lof_Selectjobs.csv, SelectJobs_times.csv, tNodes.csv) the schedule CSVs were made for: their lower bound. Without it a schedule CSV's bound is left blank.")
    Path instance;

    @Option(
            names = "--by-vm",
            description = "Also print node hours and node cost per VM type (the VM mix of each schedule).")
    boolean byVm;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        try {
            double instanceBound = instance == null ? Double.NaN : instanceLowerBound(instance);
            if (csv) out.println(HEADER);
            else
                out.printf(
                        Locale.ROOT,
                        "%-50s %12s %12s %12s %10s %6s %6s %10s %12s %10s%n",
                        "schedule",
                        "total",
                        "nodes",
                        "tardiness",
                        "node h",
                        "jobs",
                        "tardy",
                        "unfinished",
                        "lower bound",
                        "over bound");
            boolean unbounded = false;
            for (Path s : schedules) {
                var t = CommonRuleCost.of(s);
                double bound = Files.isDirectory(s) ? RunLowerBound.of(s) : instanceBound;
                unbounded |= Double.isNaN(bound);
                double over = overBoundPercent(t.total(), bound);
                if (csv) {
                    out.printf(
                            Locale.ROOT,
                            "%s,%.6f,%.6f,%.6f,%.6f,%d,%d,%d,%d,%s,%s%n",
                            s,
                            t.total(),
                            t.nodeCost(),
                            t.tardinessCost(),
                            t.nodeHours(),
                            t.jobs(),
                            t.tardyJobs(),
                            t.unfinishedJobs(),
                            t.steps(),
                            Double.isNaN(bound) ? "" : String.format(Locale.ROOT, "%.6f", bound),
                            Double.isNaN(over) ? "" : String.format(Locale.ROOT, "%.4f", over));
                } else {
                    out.printf(
                            Locale.ROOT,
                            "%-50s %12.4f %12.4f %12.4f %10.2f %6d %6d %10d %12s %10s%n",
                            s,
                            t.total(),
                            t.nodeCost(),
                            t.tardinessCost(),
                            t.nodeHours(),
                            t.jobs(),
                            t.tardyJobs(),
                            t.unfinishedJobs(),
                            Double.isNaN(bound) ? "-" : String.format(Locale.ROOT, "%.4f", bound),
                            Double.isNaN(over) ? "-" : String.format(Locale.ROOT, "%+.2f%%", over));
                }
                if (byVm) {
                    // CSV: one more row per VM type, schedule#VM with its node cost and node hours
                    t.byVmType().forEach((vm, v) -> {
                        if (csv) out.printf(Locale.ROOT, "%s#%s,%.6f,%.6f,0,%.6f,,,,,,%n", s, vm, v[1], v[1], v[0]);
                        else out.printf(Locale.ROOT, "  %-48s %12.4f %12.4f %12s %10.2f%n", vm, v[1], v[1], "", v[0]);
                    });
                }
                out.flush();
            }
            if (unbounded && !csv)
                out.println("lower bound: a schedule CSV needs --instance DIR (the instance folder it was made for)");
            return ExitCode.OK;
        } catch (FormatException e) {
            spec.commandLine().getErr().println("gpusched cost: " + e.getMessage());
            return ExitCode.BAD_INPUT;
        }
    }

    /** How far {@code total} is above {@code bound}, in percent of the bound; NaN without a positive bound. */
    static double overBoundPercent(double total, double bound) {
        return bound > 0 ? 100 * (total - bound) / bound : Double.NaN;
    }

    /** The lower bound of a GPUScheduler instance folder, read as {@code convert gpuscheduler} reads it. */
    static double instanceLowerBound(Path dir) {
        var converted = new GpuSchedulerConverter().convert(dir);
        List<Job> jobs = converted.jobs().stream().map(TraceJob::job).toList();
        return CostLowerBound.of(converted.cluster().cluster(), jobs);
    }
}
