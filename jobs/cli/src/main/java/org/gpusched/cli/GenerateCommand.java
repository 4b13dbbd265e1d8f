package org.gpusched.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.function.LongConsumer;
import org.gpusched.formats.FormatException;
import org.gpusched.workloads.ApplicationCatalog;
import org.gpusched.workloads.GpuSchedulerConverter;
import org.gpusched.workloads.GpuSchedulerInstanceWriter;
import org.gpusched.workloads.GpuSchedulerScenario;
import org.gpusched.workloads.Scenario;
import org.gpusched.workloads.Scenarios;
import org.gpusched.workloads.WorkloadWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code gpusched generate}: a paper's workload protocol as a trace and a cluster file. */
@Command(
        name = "generate",
        mixinStandardHelpOptions = true,
        description = {
            "Writes DIR/trace.jsonl and DIR/cluster.yaml for a paper's experiment protocol:",
            "  hierarchical  cloud GPU-as-a-service: Table II VM catalog, N rightsizable",
            "                nodes, J = 10N jobs (AlexNet, ResNet, VGG, DeepSpeech),",
            "                Poisson arrivals (mean 45,000 s / N), due U[min t, 2 max t],",
            "                weight U[0.36, 1.08] $/h, rho 100, H 1 h, mu 1",
            "  andreas       on-premise energy: half V100, half T4 nodes (--shape small:",
            "                2xV100 | 1xT4, large: 4xV100 | 2xT4), 0.172 EUR/kWh x PUE 1.33,",
            "                node power measured by the ANDREAS authors (--energy),",
            "                J = 10N jobs (EfficientNet, ConvNet, LSTM), mixed-rate arrivals",
            "  armida        the 8 jobs of the ANDREAS paper's Table V on armida-05/06/07,",
            "                one every 1200 s",
            "  gpuscheduler  the hierarchical protocol written as an instance folder of the",
            "                ANDREAS authors' GPUScheduler C++ code (DIR/Lof_Selectjobs.csv,",
            "                SelectJobs_times.csv, tNodes.csv, their column layout) instead",
            "                of a trace: --catalog table2 (Table II's 9 VM types) or azure",
            "                (the 6 K80/M60 VMs their newer generator uses); --due-rule",
            "                hierarchical (the protocol's) or their (due U[min t, 3 min t],",
            "                weight 2 x U[0.0015, 0.0075] per second)",
            "  powerflow     PowerFlow's end-to-end trace: --jobs (default 1901) whole-GPU",
            "                jobs over 24 h, GPU counts and durations from --pods (the",
            "                Alibaba 2023 pod list), a Zeus workload and batch per job,",
            "                iterations from the duration and the measured throughput;",
            "                prints the GPUs the jobs would hold with no queue (1,901 jobs,",
            "                seeds 1-3: 74-89 on average, 114-140 at the peak): a smaller",
            "                cluster queues, as the paper's comparison needs (the",
            "                reproduction runs 48-72 GPUs); at the peak or more jobs hardly",
            "                wait",
            "  powerflow-random  PowerFlow's sensitivity traces: --jobs (default 100),",
            "                Poisson arrivals every --mean-gap s (default 600), --job-size",
            "                small (1-2 GPUs) | medium (1-8) | large (4-16), durations",
            "                log-uniform 30 min..8 h",
            "                The powerflow scenarios write DIR/trace.jsonl in the PowerFlow",
            "                trace format (gpusched powerflow --trace), no cluster file.",
            "Execution times: the application model of conf/applications.yaml (bundled; --apps to override), "
                    + "profiled per application and GPU model by default, --time-model amdahl for the earlier "
                    + "analytical model (docs/scheduling-fidelity.md). Existing traces keep their times.",
            "--jobs scales any scenario (e.g. 1000000) by sampling; the trace is streamed, memory stays flat. Same "
                    + "seed, same files. Details: jobs/workloads/README.md."
        })
public final class GenerateCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(
            names = "--scenario",
            required = true,
            paramLabel = "NAME",
            description =
                    "hierarchical, hierarchical-tight (due dates 8x tighter), andreas, armida, gpuscheduler, powerflow or powerflow-random.")
    String scenario;

    @Option(
            names = "--nodes",
            paramLabel = "N",
            description = "Number of nodes (required except for armida, which has 3).")
    Integer nodes;

    @Option(
            names = "--jobs",
            paramLabel = "J",
            description = "Number of jobs (default: the protocol's, 10N or Table V's 8).")
    Long jobs;

    @Option(
            names = "--seed",
            paramLabel = "S",
            defaultValue = "1",
            description = "Random seed (default: ${DEFAULT-VALUE}).")
    long seed;

    @Option(
            names = "--shape",
            paramLabel = "SHAPE",
            description = "andreas only: small (2xV100 | 1xT4, default) or large (4xV100 | 2xT4).")
    String shape;

    @Option(
            names = "--mean-gap",
            paramLabel = "SECONDS",
            description =
                    "hierarchical/andreas: mean inter-arrival instead of the protocol's, to vary the load (default: the protocol's).")
    Double meanGap;

    @Option(
            names = "--energy",
            paramLabel = "MODEL",
            description =
                    "andreas/armida node power: measured (default: the ANDREAS authors' figures, V100 node 530 W + 170 W per further busy GPU, T4 node 400 W + 70 W) or datasheet (host 100 W + GPUs at idle/max power).")
    String energy;

    @Option(
            names = "--catalog",
            paramLabel = "NAME",
            description =
                    "gpuscheduler only: table2 (default: the 9 VM types of the hierarchical paper's Table II) or azure (its 6 Azure VMs, K80 NC6/NC12/NC24 and M60 NV6/NV12/NV24, as the authors' newer generator).")
    String vmCatalog;

    @Option(
            names = "--due-rule",
            paramLabel = "RULE",
            description =
                    "gpuscheduler only: hierarchical (default: the protocol's due dates and weights) or their (the authors' generator: due = submission + U[min t, 3 min t], weight 2 x U[0.0015, 0.0075] per second late).")
    String dueRule;

    @Option(
            names = "--apps",
            paramLabel = "FILE",
            description = "Application model YAML (default: the bundled conf/applications.yaml).")
    Path apps;

    @Option(
            names = "--time-model",
            paramLabel = "MODEL",
            description =
                    "Execution times: profiled (default for a model file with profiles, as the bundled one: measured per-application, per-GPU speeds, data-parallel steps with an all-reduce, GPU memory and input limits) or amdahl (the earlier data-sheet mix with an Amdahl speed-up).")
    String timeModel;

    @Option(
            names = "--pods",
            paramLabel = "CSV",
            description = "powerflow only: the Alibaba 2023 pod list (openb_pod_list_default.csv) to sample from.")
    Path pods;

    @Option(
            names = "--job-size",
            paramLabel = "SIZE",
            defaultValue = "medium",
            description = "powerflow-random only: small, medium or large (default: ${DEFAULT-VALUE}).")
    String jobSize;

    @Option(names = "--out", required = true, paramLabel = "DIR", description = "Output directory (created).")
    Path outDir;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (scenario.startsWith("powerflow")) return PowerflowScenarios.generate(this, out, err);
        try {
            ApplicationCatalog catalog = apps == null ? ApplicationCatalog.defaults() : ApplicationCatalog.read(apps);
            if (timeModel != null) catalog = catalog.withTimeModel(ApplicationCatalog.TimeModel.parse(timeModel));
            Scenario sc = Scenarios.create(scenario, nodes, shape, meanGap, energy, vmCatalog, dueRule, catalog);
            boolean theirLayout = sc instanceof GpuSchedulerScenario;
            long count = jobs == null ? sc.defaultJobs() : jobs;
            if (count < 1) throw new FormatException("--jobs must be >= 1, got " + count, "jobs");
            long start = System.nanoTime();
            long[] nextReport = {count / 10};
            LongConsumer progress = n -> {
                if (count >= 200_000 && n >= nextReport[0]) {
                    err.printf(
                            Locale.ROOT,
                            "generate: %,d / %,d jobs (%.0f%%), %.1f s%n",
                            n,
                            count,
                            100.0 * n / count,
                            (System.nanoTime() - start) / 1e9);
                    nextReport[0] += count / 10;
                }
            };
            var summary = theirLayout
                    ? GpuSchedulerInstanceWriter.write(sc.cluster(), sc.jobs(count, seed), outDir, progress)
                    : WorkloadWriter.write(sc.cluster(), sc.jobs(count, seed), outDir, progress);
            double secs = (System.nanoTime() - start) / 1e9;
            out.println(sc.describe());
            out.printf(Locale.ROOT, "%-26s %s%n", "scenario", sc.name());
            out.printf(Locale.ROOT, "%-26s %d%n", "seed", seed);
            out.printf(
                    Locale.ROOT, "%-26s %s%n", "time model", catalog.timeModel().label());
            out.printf(Locale.ROOT, "%-26s %d%n", "nodes", summary.nodes());
            out.printf(Locale.ROOT, "%-26s %,d%n", "jobs", summary.jobs());
            out.printf(
                    Locale.ROOT,
                    "%-26s %,.0f s (%.1f days)%n",
                    "last submission",
                    summary.lastSubmit(),
                    summary.lastSubmit() / 86400);
            out.printf(Locale.ROOT, "%-26s %,.0f s%n", "mean fastest time", summary.meanFastestSeconds());
            out.printf(Locale.ROOT, "%-26s %,.0f s%n", "mean due - submit", summary.meanSlack());
            out.printf(Locale.ROOT, "%-26s %.3f%n", "mean weight per hour", summary.meanWeight());
            summary.perApplication().forEach((app, n) -> out.printf(Locale.ROOT, "  %-24s %,d%n", app, n));
            if (theirLayout)
                out.printf(
                        Locale.ROOT,
                        "wrote %s, %s and %s in %.1f s%n",
                        outDir.resolve(GpuSchedulerConverter.JOBS),
                        outDir.resolve(GpuSchedulerConverter.TIMES),
                        outDir.resolve(GpuSchedulerConverter.NODES),
                        secs);
            else
                out.printf(
                        Locale.ROOT,
                        "wrote %s and %s in %.1f s%n",
                        outDir.resolve(WorkloadWriter.TRACE),
                        outDir.resolve(WorkloadWriter.CLUSTER),
                        secs);
            return ExitCode.OK;
        } catch (FormatException | IllegalArgumentException | java.io.UncheckedIOException e) {
            err.println("gpusched generate: " + Failures.message(e));
            return ExitCode.BAD_INPUT;
        }
    }
}
