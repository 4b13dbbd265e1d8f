package org.gpusched.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.gpusched.formats.CsvFormatException;
import org.gpusched.formats.FormatException;
import org.gpusched.workloads.AlibabaConverter;
import org.gpusched.workloads.ApplicationCatalog;
import org.gpusched.workloads.GpuSchedulerConverter;
import org.gpusched.workloads.WorkloadWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code gpusched convert alibaba-2023}: the 2023 Alibaba GPU trace as a gpusched trace and cluster;
 * {@code gpusched convert gpuscheduler}: an instance folder of the GPUScheduler C++ code.
 */
@Command(
        name = "convert",
        mixinStandardHelpOptions = true,
        description = {
            "Converts a public trace into DIR/trace.jsonl and DIR/cluster.yaml.",
            "Format alibaba-2023: the openb GPU trace of the FGD/PWR papers. Rules",
            "(jobs/workloads/README.md): GPU tasks only; fractional GPUs rounded up to 1",
            "whole GPU; pending tasks skipped; duration = deletion - creation, scaled by",
            "GPU model speed; tasks cut off at 12,902,960 kept truncated with",
            "\"censored\": true (or dropped); due = submit + U[min t, F x max t];",
            "weight = GPUs x qos weight x U[0.5, 1.5] EUR/h; nodes typed MODELxGPUS with",
            "energy costs (0.172 EUR/kWh, PUE 1.33, the PWR paper's GPU power).",
            "Format gpuscheduler (--instance DIR): an instance folder of the GPUScheduler",
            "C++ code (Lof_Selectjobs.csv, SelectJobs_times.csv, tNodes.csv): one node type",
            "per VMtype leased whole at its cost per hour, one rightsizable node per row",
            "of tNodes.csv, weight = Tardinessweight x 3600 per hour late. As their code,",
            "it drops each file's first line and reads the columns by position, whatever",
            "the header calls them (a note says so); a header of another width or of",
            "another of the three files is an error. Bad rows exit 2 with file:line; a",
            "job without execution times is rejected by id."
        })
public final class ConvertCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "FORMAT", description = "Trace format: alibaba-2023 or gpuscheduler.")
    String format;

    @Option(
            names = "--pods",
            paramLabel = "FILE",
            description = "alibaba-2023: pod list CSV (openb_pod_list_*.csv with times).")
    Path pods;

    @Option(
            names = "--nodes",
            paramLabel = "FILE",
            description = "alibaba-2023: node list CSV (openb_node_list_gpu_node.csv).")
    Path nodes;

    @Option(
            names = "--instance",
            paramLabel = "DIR",
            description = "gpuscheduler: their instance folder (Lof_Selectjobs.csv, SelectJobs_times.csv, tNodes.csv).")
    Path instance;

    @Option(
            names = "--limit",
            paramLabel = "N",
            defaultValue = "0",
            description = "Keep only the first N converted tasks (default: all).")
    long limit;

    @Option(
            names = "--due-factor",
            paramLabel = "F",
            defaultValue = "2",
            description = "Due date = submit + U[min t, F x max t] (default: ${DEFAULT-VALUE}).")
    double dueFactor;

    @Option(
            names = "--censored",
            paramLabel = "keep|drop",
            defaultValue = "keep",
            description =
                    "Tasks still running at the trace cut-off: keep (truncated, flagged) or drop (default: ${DEFAULT-VALUE}).")
    String censored;

    @Option(
            names = "--seed",
            paramLabel = "S",
            defaultValue = "1",
            description = "Seed of the due dates and weights (default: ${DEFAULT-VALUE}).")
    long seed;

    @Option(
            names = "--apps",
            paramLabel = "FILE",
            description = "Application model YAML with the GPU table (default: bundled).")
    Path apps;

    @Option(names = "--out", required = true, paramLabel = "DIR", description = "Output directory (created).")
    Path outDir;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        try {
            if ("gpuscheduler".equalsIgnoreCase(format)) return convertGpuScheduler(out);
            if (!"alibaba-2023".equalsIgnoreCase(format))
                throw new FormatException(
                        "unknown trace format '" + format + "' (known: alibaba-2023, gpuscheduler)", "format");
            if (pods == null || nodes == null)
                throw new FormatException("alibaba-2023 needs --pods FILE and --nodes FILE", "pods");
            ApplicationCatalog catalog = apps == null ? ApplicationCatalog.defaults() : ApplicationCatalog.read(apps);
            var options =
                    new AlibabaConverter.Options(limit, dueFactor, seed, AlibabaConverter.Censored.parse(censored));
            var result = new AlibabaConverter(catalog).convert(pods, nodes, options);
            var summary = WorkloadWriter.write(result.cluster(), result.jobs().iterator(), outDir, null);
            var s = result.stats();
            out.printf(Locale.ROOT, "%-30s %,d%n", "pod rows read", s.rows());
            out.printf(Locale.ROOT, "%-30s %,d%n", "jobs written", s.kept());
            out.printf(Locale.ROOT, "%-30s %,d%n", "  fractional -> 1 GPU", s.fractionalRounded());
            out.printf(Locale.ROOT, "%-30s %,d%n", "  censored at cut-off (kept)", s.censoredKept());
            out.printf(Locale.ROOT, "%-30s %,d%n", "  zero-length -> 1 s", s.zeroLength());
            out.printf(Locale.ROOT, "%-30s %,d%n", "skipped: CPU-only", s.cpuOnly());
            out.printf(Locale.ROOT, "%-30s %,d%n", "skipped: pending (never ran)", s.pending());
            out.printf(Locale.ROOT, "%-30s %,d%n", "skipped: censored (dropped)", s.censoredDropped());
            out.printf(Locale.ROOT, "%-30s %,d%n", "skipped: no node type fits", s.unplaceable());
            if (limit > 0)
                out.printf(
                        Locale.ROOT,
                        "%-30s %,d%n",
                        "not read (past --limit)",
                        s.rows() - s.kept() - s.cpuOnly() - s.pending() - s.censoredDropped() - s.unplaceable());
            out.printf(Locale.ROOT, "%-30s %,d (%d types)%n", "nodes", s.nodes(), s.nodeTypes());
            out.printf(Locale.ROOT, "%-30s %,.0f s%n", "last submission", summary.lastSubmit());
            return wrote(out);
        } catch (FormatException | CsvFormatException | IllegalArgumentException | java.io.UncheckedIOException e) {
            err.println("gpusched convert: " + Failures.message(e));
            return ExitCode.BAD_INPUT;
        }
    }

    /** Bad input throws, for {@link #call} to report with its file and line. */
    private int convertGpuScheduler(PrintWriter out) {
        if (instance == null) throw new FormatException("gpuscheduler needs --instance DIR", "instance");
        if (pods != null || nodes != null)
            throw new FormatException(
                    "--pods and --nodes belong to alibaba-2023; gpuscheduler reads --instance DIR", "pods");
        var result = new GpuSchedulerConverter().convert(instance);
        for (String note : result.notes()) spec.commandLine().getErr().println("convert: note: " + note);
        var summary = WorkloadWriter.write(result.cluster(), result.jobs().iterator(), outDir, null);
        var s = result.stats();
        out.printf(Locale.ROOT, "%-30s %,d%n", "jobs written", s.jobs());
        out.printf(Locale.ROOT, "%-30s %,d%n", "execution-time rows read", s.timeRows());
        out.printf(Locale.ROOT, "%-30s %,d (rightsizable over %d VM types)%n", "nodes", s.nodes(), s.vmTypes());
        out.printf(Locale.ROOT, "%-30s %,.0f s%n", "last submission", summary.lastSubmit());
        return wrote(out);
    }

    private int wrote(PrintWriter out) {
        out.printf(
                Locale.ROOT,
                "wrote %s and %s%n",
                outDir.resolve(WorkloadWriter.TRACE),
                outDir.resolve(WorkloadWriter.CLUSTER));
        return ExitCode.OK;
    }
}
