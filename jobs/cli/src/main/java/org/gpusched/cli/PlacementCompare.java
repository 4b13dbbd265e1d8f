package org.gpusched.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.gpusched.core.policy.Policies;
import org.gpusched.placement.experiment.PolicySpec;
import org.gpusched.placement.policy.PlacementPolicies;
import org.gpusched.reports.PlacementComparison;
import org.gpusched.reports.ReportInputException;
import org.gpusched.reports.Reports;
import org.gpusched.streaming.file.StagedDirectory;
import org.gpusched.streaming.placement.ReplayRun;
import picocli.CommandLine;
import picocli.CommandLine.ParameterException;

/**
 * {@code gpusched compare --pods --nodes}: placement policies side by side on an Alibaba pod list, every (policy, seed)
 * a run of one Flink job over the same pods (copied to one keyed pipeline per run), a place-replay run directory per
 * run, comparison.csv and report.html. {@link CompareCommand} dispatches here when it is given a pod list.
 */
final class PlacementCompare {
    private PlacementCompare() {}

    /** The policy names that are scheduling policies and not placement policies, for the mixing error. */
    static List<String> schedulingOnly(List<String> names) {
        List<String> bad = new ArrayList<>();
        for (String n : names) {
            String name = n.trim().toLowerCase(Locale.ROOT);
            if (!PlacementPolicies.NAMES.contains(name) && Policies.names().contains(name)) bad.add(n);
        }
        return bad;
    }

    /** The policy names that are placement policies and not scheduling policies, for the mixing error. */
    static List<String> placementOnly(List<String> names) {
        List<String> bad = new ArrayList<>();
        for (String n : names) {
            String name = n.trim().toLowerCase(Locale.ROOT);
            if (PlacementPolicies.NAMES.contains(name) && !Policies.names().contains(name)) bad.add(n);
        }
        return bad;
    }

    static int run(
            CommandLine commandLine,
            Path pods,
            Path nodes,
            List<String> policies,
            List<Double> alphas,
            Duration watermarkInterval,
            List<Long> seeds,
            String title,
            StagedDirectory staged,
            Path out)
            throws Exception {
        PrintWriter err = commandLine.getErr();
        List<String> scheduling = schedulingOnly(policies);
        if (!scheduling.isEmpty())
            throw new ParameterException(
                    commandLine,
                    String.join(",", scheduling) + ": scheduling policies, which need --trace and --cluster; "
                            + "with --pods and --nodes compare takes placement policies " + PlacementPolicies.NAMES
                            + " (one kind per comparison)");
        List<PolicySpec> specs;
        try {
            specs = PlacementReplayRunner.policies(policies, alphas);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(commandLine, e.getMessage());
        }
        PlacementReplayRunner.Inputs inputs = PlacementReplayRunner.Inputs.read(err, "compare", nodes, pods);
        if (inputs == null) return ExitCode.BAD_INPUT;
        Map<ReplayRun, Path> dirs = new LinkedHashMap<>();
        for (long seed : seeds) {
            Path base = seeds.size() == 1 ? staged.dir() : staged.dir().resolve("seed-" + seed);
            for (PolicySpec p : specs) {
                ReplayRun r = new ReplayRun(p, seed);
                dirs.put(r, base.resolve(r.dirName()));
            }
        }
        err.printf(
                Locale.ROOT,
                "compare: %s, %d runs (%s x %d seeds) in one Flink job%n",
                inputs.describe(),
                dirs.size(),
                String.join(",", specs.stream().map(PolicySpec::label).toList()),
                seeds.size());
        err.flush();
        long started = System.nanoTime();
        String command =
                "gpusched " + String.join(" ", commandLine.getParseResult().originalArgs());
        List<PlacementReplayRunner.Result> results = PlacementReplayRunner.run(
                err,
                command,
                inputs,
                pods,
                dirs,
                watermarkInterval,
                staged.dir().resolve(".parts"));
        try {
            PlacementComparison.write(
                    results.stream().map(PlacementReplayRunner.Result::dir).toList(),
                    staged.dir(),
                    title != null ? title : "gpusched compare " + pods.getFileName(),
                    command);
        } catch (ReportInputException | java.io.UncheckedIOException e) {
            err.println("gpusched compare: report: " + e.getMessage());
            return ExitCode.BAD_INPUT;
        }
        staged.commit();
        PrintWriter stdout = commandLine.getOut();
        PlacementReplayRunner.table(stdout, results, inputs.trace().rejected());
        stdout.printf(
                Locale.ROOT,
                "%d runs (%d policies x %d seeds) in %.1f s; wrote %s and %s%n",
                results.size(),
                specs.size(),
                seeds.size(),
                (System.nanoTime() - started) / 1e9,
                out.resolve(Reports.CSV),
                out.resolve(Reports.HTML));
        stdout.flush();
        return ExitCode.OK;
    }
}
