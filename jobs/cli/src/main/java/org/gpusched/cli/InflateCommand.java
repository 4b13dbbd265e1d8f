package org.gpusched.cli;

import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.gpusched.formats.CsvFormatException;
import org.gpusched.placement.experiment.CurveSummary;
import org.gpusched.placement.experiment.ExperimentOutput;
import org.gpusched.placement.experiment.InflationExperiment;
import org.gpusched.placement.experiment.InflationRun;
import org.gpusched.placement.experiment.PolicySpec;
import org.gpusched.placement.experiment.ReportHtml;
import org.gpusched.placement.experiment.SeedList;
import org.gpusched.placement.experiment.SimulatorComparison;
import org.gpusched.placement.io.AlibabaTraceCsv;
import org.gpusched.placement.model.NodeSpec;
import org.gpusched.placement.model.Task;
import org.gpusched.placement.policy.PlacementPolicies;
import org.gpusched.streaming.placement.StreamingInflation;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code gpusched inflate}: the PWR paper's Monte-Carlo inflation experiment on an Alibaba-format trace. */
@Command(
        name = "inflate",
        mixinStandardHelpOptions = true,
        description = {
            "Monte-Carlo workload inflation (PWR/FGD papers): the trace shuffled, then clones drawn with replacement "
                    + "(as the FGD simulator does) are placed in arrival order, never leaving, until the requested GPU capacity reaches --load x the cluster's; one run per "
                    + "policy and seed. Writes curve.csv, report.html (power saving vs FGD, GRAR) and summary.txt to --out; "
                    + "progress on stderr, summary table on stdout."
        })
public final class InflateCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(
            names = "--pods",
            required = true,
            paramLabel = "FILE",
            description =
                    "Pod list CSV (openb_pod_list_*.csv: name,cpu_milli,memory_mib,num_gpu,gpu_milli[,gpu_spec,...]).")
    Path pods;

    @Option(
            names = "--nodes",
            required = true,
            paramLabel = "FILE",
            description = "Node list CSV (openb_node_list_gpu_node.csv: sn,cpu_milli,memory_mib,gpu,model).")
    Path nodes;

    @Option(
            names = "--policies",
            split = ",",
            paramLabel = "LIST",
            defaultValue = "fgd,pwr,pwr-fgd,bestfit,dotprod,gpu-packing,gpu-clustering,random",
            description =
                    "Policies, comma-separated: the FGD simulator's fgd, pwr, pwr-fgd, bestfit, dotprod, gpu-packing, gpu-clustering, random, "
                            + "or the variants fgd-exact, pwr-exact, pwr-fgd-exact, bestfit-3d, dotprod-3d, gpu-packing-tight, gpu-clustering-demand, "
                            + "random-tightest (default: ${DEFAULT-VALUE}).")
    List<String> policies;

    @Option(
            names = "--alpha",
            split = ",",
            paramLabel = "LIST",
            defaultValue = "0.05,0.1,0.2",
            description = "Alpha values for pwr-fgd, one run per value (default: ${DEFAULT-VALUE}, the paper's best).")
    List<Double> alphas;

    @Option(
            names = "--seeds",
            paramLabel = "SEEDS",
            defaultValue = "42-51",
            description = "Seeds: N, N-M or a comma list (default: ${DEFAULT-VALUE}).")
    String seeds;

    @Option(
            names = "--load",
            paramLabel = "X",
            defaultValue = "1.3",
            description = "Stop when requested GPU capacity reaches X times the cluster's (default: ${DEFAULT-VALUE}).")
    double load;

    @Option(
            names = "--step",
            paramLabel = "X",
            defaultValue = "0.01",
            description = "Requested-capacity grid of the curve (default: ${DEFAULT-VALUE}).")
    double step;

    @Option(
            names = "--threads",
            paramLabel = "N",
            defaultValue = "1",
            description = "Runs in parallel (default: ${DEFAULT-VALUE}); results do not depend on it.")
    int threads;

    /** Where the runs execute; both give identical results (StreamingInflationIT). */
    enum Engine {
        plain,
        flink
    }

    @Option(
            names = "--engine",
            paramLabel = "ENGINE",
            defaultValue = "plain",
            description =
                    "plain: a Java loop per run; flink: a bounded stream through the Flink placement operator on a local mini cluster, parallelism --threads (default: ${DEFAULT-VALUE}).")
    Engine engine;

    @Option(
            names = "--expected",
            paramLabel = "DIR",
            description =
                    "Also compare with the FGD simulator's published curves in DIR (analysis_allo_discrete.csv, "
                            + "analysis_frag_discrete.csv; workload = the pod file's base name): writes simulator-comparison.md and prints it.")
    Path expected;

    @Option(
            names = "--ignore-memory",
            description =
                    "Drop the tasks' memory demand (condition 2), as the FGD simulator's resource model (CPU and GPU only) does.")
    boolean ignoreMemory;

    @Option(names = "--out", required = true, paramLabel = "DIR", description = "Output directory (created).")
    Path out;

    @Override
    public Integer call() throws Exception {
        List<PolicySpec> specs = new ArrayList<>();
        List<Long> seedList;
        try {
            for (String name : policies) {
                String n = name.trim().toLowerCase(Locale.ROOT);
                if (PlacementPolicies.takesAlpha(n)) for (double a : alphas) specs.add(new PolicySpec(n, a));
                else specs.add(new PolicySpec(n, Double.NaN));
            }
            seedList = SeedList.parse(seeds);
            if (!(load > 0 && load <= 5)) throw new IllegalArgumentException("--load must be in (0, 5], got " + load);
            if (!(step > 0 && step <= load))
                throw new IllegalArgumentException("--step must be in (0, --load], got " + step);
            if (threads < 1) throw new IllegalArgumentException("--threads must be >= 1");
            if (expected != null && !Files.isDirectory(expected))
                throw new IllegalArgumentException("--expected: no such directory " + expected);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        List<NodeSpec> nodeList;
        List<Task> trace;
        try {
            nodeList = AlibabaTraceCsv.readNodes(nodes);
            trace = AlibabaTraceCsv.readPods(pods);
            if (ignoreMemory) trace = trace.stream().map(Task::withoutMemory).toList();
        } catch (CsvFormatException e) {
            System.err.println("gpusched inflate: " + e.getMessage());
            return ExitCode.BAD_INPUT;
        }
        Files.createDirectories(out);
        int total = specs.size() * seedList.size();
        System.err.printf(
                Locale.ROOT,
                "inflate: %d nodes, %d trace tasks, %d policies x %d seeds = %d runs, load %.2f%n",
                nodeList.size(),
                trace.size(),
                specs.size(),
                seedList.size(),
                total,
                load);
        long start = System.nanoTime();
        AtomicInteger done = new AtomicInteger();
        InflationExperiment.Result result;
        InflationExperiment.Config config =
                new InflationExperiment.Config(nodeList, trace, specs, seedList, load, step, threads);
        Consumer<InflationRun.Result> report = r -> System.err.printf(
                Locale.ROOT,
                "[%3d/%d] %-16s seed %-4d %6d tasks %5d failed  GRAR@end %.4f  %4.0f us/task  %5.0f s%n",
                done.incrementAndGet(),
                total,
                r.policy().label(),
                r.seed(),
                r.tasks(),
                r.failed(),
                r.curve().isEmpty()
                        ? Double.NaN
                        : r.curve().get(r.curve().size() - 1).grar(),
                r.placeNanos() / 1e3 / r.tasks(),
                (System.nanoTime() - start) / 1e9);
        try {
            result = engine == Engine.flink
                    ? StreamingInflation.run(config, report)
                    : InflationExperiment.run(config, report);
        } catch (IllegalArgumentException e) {
            System.err.println("gpusched inflate: " + e.getMessage());
            return ExitCode.BAD_INPUT;
        }
        CurveSummary summary = new CurveSummary(result);
        String table = ExperimentOutput.summaryTable(summary);
        String command =
                "gpusched inflate --pods " + pods + " --nodes " + nodes + " --policies " + String.join(",", policies)
                        + " --alpha "
                        + alphas.stream()
                                .map(String::valueOf)
                                .reduce((a, b) -> a + "," + b)
                                .orElse("")
                        + " --seeds " + seeds + " --load " + load + " --step " + step
                        + (engine == Engine.flink ? " --engine flink" : "") + (ignoreMemory ? " --ignore-memory" : "")
                        + (expected != null ? " --expected " + expected : "") + " --out " + out;
        ExperimentOutput.writeCurve(result, out.resolve("curve.csv"));
        Files.writeString(out.resolve("summary.txt"), command + "\n\n" + table);
        ReportHtml.write(
                result, summary, "PWR/FGD inflation: " + pods.getFileName(), command, out.resolve("report.html"));
        System.out.print(table);
        if (expected != null) {
            String workload = pods.getFileName().toString().replaceFirst("\\.csv$", "");
            double gpus = nodeList.stream().mapToInt(NodeSpec::gpuCount).sum();
            String comparison;
            try {
                comparison =
                        SimulatorComparison.markdown(SimulatorComparison.compare(result, expected, workload, gpus));
            } catch (IllegalArgumentException | UncheckedIOException e) {
                System.err.println("gpusched inflate: --expected: " + e.getMessage());
                return ExitCode.BAD_INPUT;
            }
            Files.writeString(
                    out.resolve("simulator-comparison.md"),
                    "Workload " + workload + ", " + command + "\n\n" + comparison);
            System.out.print("\n" + comparison);
        }
        System.err.printf(
                Locale.ROOT,
                "inflate: %d runs in %.1f s; wrote %s/{curve.csv,report.html,summary.txt}%n",
                total,
                (System.nanoTime() - start) / 1e9,
                out);
        return ExitCode.OK;
    }
}
