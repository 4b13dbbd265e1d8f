package org.gpusched.cli;

import com.fasterxml.jackson.databind.SequenceWriter;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.gpusched.formats.FormatException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code gpusched export gpuscheduler}: a run directory's schedule in the layout of the GPUScheduler schedule CSV. */
@Command(
        name = "export",
        mixinStandardHelpOptions = true,
        description = {
            "Writes a run directory's schedule in another tool's format.",
            "Format gpuscheduler: the schedule CSV of the GPUScheduler C++ code as its",
            "SMALL_SYSTEM build writes it (n_iterate, sim_time, job columns, ExecutionTime,",
            "CompletionPercent, StartTime, FinishTime, Nodes, VMType, GpuType, GpuNumber,",
            "cost, Tardiness, VMcost, TardinessCost, TotalCost): one row per job per step,",
            "a step being the interval between two events (submission or decision) of the",
            "run; Tardinessweight per second; cost = the node type's price per hour at the",
            "node's busy GPUs. Their analysis and Gantt scripts read it.",
            "Bad input exits 2 with file:line."
        })
public final class ExportCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "FORMAT", description = "Output format: gpuscheduler.")
    String format;

    @Option(
            names = "--run",
            required = true,
            paramLabel = "DIR",
            description = "Run directory (replay or compare output).")
    Path run;

    @Option(names = "--out", required = true, paramLabel = "FILE", description = "CSV file to write.")
    Path out;

    @Override
    public Integer call() {
        PrintWriter err = spec.commandLine().getErr();
        try {
            if (!"gpuscheduler".equalsIgnoreCase(format))
                throw new FormatException("unknown export format '" + format + "' (known: gpuscheduler)", "format");
            long[] rows = {0};
            CommonRuleCost cost = new CommonRuleCost();
            if (out.toAbsolutePath().getParent() != null)
                Files.createDirectories(out.toAbsolutePath().getParent());
            try (Writer w = Files.newBufferedWriter(out, StandardCharsets.UTF_8);
                    SequenceWriter csv = GpuSchedulerScheduleCsv.writer(w)) {
                RunScheduleSteps.rows(run, row -> {
                    GpuSchedulerScheduleCsv.write(csv, row);
                    cost.accept(row);
                    rows[0]++;
                });
            }
            var t = cost.totals();
            spec.commandLine()
                    .getOut()
                    .printf(
                            Locale.ROOT,
                            "wrote %s: %,d rows over %,d steps, %,d jobs (%,d unfinished); common-rule cost %.4f (nodes %.4f, tardiness %.4f)%n",
                            out,
                            rows[0],
                            t.steps(),
                            t.jobs(),
                            t.unfinishedJobs(),
                            t.total(),
                            t.nodeCost(),
                            t.tardinessCost());
            return ExitCode.OK;
        } catch (FormatException e) {
            err.println("gpusched export: " + e.getMessage());
            return ExitCode.BAD_INPUT;
        } catch (IOException | UncheckedIOException e) {
            err.println("gpusched export: cannot write " + out + " (" + e.getMessage() + ")");
            return ExitCode.BAD_INPUT;
        }
    }
}
