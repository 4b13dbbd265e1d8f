package org.gpusched.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.gpusched.core.policy.PolicyConfig;
import org.gpusched.formats.ClusterSpec;
import org.gpusched.formats.TimeOrder;
import org.gpusched.streaming.SchedulerConfig;
import picocli.CommandLine.Option;

/** The scheduler options every file-replay command takes (replay, compare), and the replay config they make. */
final class ReplaySchedulerOptions {
    /** The options of this mixin, which mean nothing to a placement run. */
    static final List<String> NAMES = List.of(
            "--iterations",
            "--optimizer-threads",
            "--controllers",
            "--dispatch",
            "--noise",
            "--period",
            "--stability",
            "--move-overhead",
            "--snapshot-interval");

    @Option(
            names = "--iterations",
            paramLabel = "N",
            defaultValue = "1000",
            description = "MaxIt of the randomized policies (default: ${DEFAULT-VALUE}).")
    int iterations;

    @Option(
            names = "--optimizer-threads",
            paramLabel = "N",
            description = "Threads that run one andreas-rg or rg-ls call's randomized iterations; the decisions are "
                    + "the same for any N (default: the processors the JVM sees).")
    int optimizerThreads = PolicyConfig.DEFAULT_THREADS;

    @Option(
            names = "--controllers",
            paramLabel = "K",
            defaultValue = "1",
            description =
                    "Local controllers; jobs are dispatched round robin, node i belongs to controller i mod K (default: ${DEFAULT-VALUE} = centralized).")
    int controllers;

    @Option(
            names = "--dispatch",
            paramLabel = "RULE",
            defaultValue = "round-robin",
            description =
                    "How jobs are dealt to the K controllers: round-robin (the hierarchical paper) or gpu-weighted (round robin in proportion to each controller's GPUs) (default: ${DEFAULT-VALUE}).")
    String dispatch;

    @Option(
            names = "--noise",
            paramLabel = "F",
            defaultValue = "0",
            description =
                    "Prediction noise: real duration = predicted x U[1-F, 1+F], drawn per job from the seed (default: ${DEFAULT-VALUE}).")
    double noise;

    @Option(
            names = "--period",
            paramLabel = "SECONDS",
            description =
                    "H, the periodic rescheduling interval (default: the cluster file's objective.horizonSeconds, else 3600).")
    Double period;

    @Option(
            names = "--stability",
            paramLabel = "MODE",
            defaultValue = "stable",
            description =
                    "stable: an optimizer moves a running job only when the move pays for its overhead, on nodes matched to the running ones; paper: plans as the optimizer gives them, as in the papers (for the papers' free moves add --move-overhead 0 --snapshot-interval 0) (default: ${DEFAULT-VALUE}).")
    String stability;

    @Option(
            names = "--move-overhead",
            paramLabel = "SECONDS",
            defaultValue = "300",
            description =
                    "Time a job spends restoring its last snapshot after a migration or resize, or when it starts again after a preemption (GPUs held and charged; f_OBJ sees it; --stability stable also asks a move to gain this much) (default: ${DEFAULT-VALUE}).")
    double moveOverhead;

    @Option(
            names = "--snapshot-interval",
            paramLabel = "SECONDS",
            defaultValue = "600",
            description =
                    "A running job snapshots every SECONDS of progress on its placement; a preempted, migrated or resized job loses the progress since its last snapshot (0: none lost) (default: ${DEFAULT-VALUE}).")
    double snapshotInterval;

    /** A replay-mode config over a bounded input (watermark only at its end); policies and seed are the caller's. */
    SchedulerConfig.Builder replayConfig(ClusterSpec cluster, long seed) {
        SchedulerConfig.Builder b = SchedulerConfig.builder()
                .cluster(cluster)
                .seed(seed)
                .maxIterations(iterations)
                .optimizerThreads(optimizerThreads)
                .controllers(controllers)
                .dispatch(dispatchRule(dispatch))
                .noise(noise)
                .mode(SchedulerConfig.Mode.REPLAY)
                .stability(stabilityMode(stability))
                .moveOverheadSeconds(moveOverhead)
                .snapshotIntervalSeconds(snapshotInterval)
                .outOfOrderness(SchedulerConfig.END_OF_INPUT_WATERMARK);
        if (period != null) b.periodSeconds(period);
        return b;
    }

    /** The --stability value; an unknown one is an IllegalArgumentException naming the choices. */
    static SchedulerConfig.Stability stabilityMode(String value) {
        return switch (value) {
            case "stable" -> SchedulerConfig.Stability.STABLE;
            case "paper" -> SchedulerConfig.Stability.PAPER;
            default -> throw new IllegalArgumentException("--stability must be stable or paper, got '" + value + "'");
        };
    }

    /** The --dispatch value as a rule; an unknown one is an IllegalArgumentException naming the choices. */
    static SchedulerConfig.Dispatch dispatchRule(String value) {
        return switch (value) {
            case "round-robin" -> SchedulerConfig.Dispatch.ROUND_ROBIN;
            case "gpu-weighted" -> SchedulerConfig.Dispatch.GPU_WEIGHTED;
            default ->
                throw new IllegalArgumentException(
                        "--dispatch must be round-robin or gpu-weighted, got '" + value + "'");
        };
    }

    /**
     * The out-of-orderness of a file replay: watermarks follow the input when every input file is in time order, so
     * it streams through in bounded memory and scheduling starts at once; otherwise one watermark at the end of the
     * input, the whole input buffered so that events are still handled in time order (with a note saying so). The
     * decisions are the same either way.
     */
    static Duration watermarksFor(PrintWriter err, String command, Path trace, Path nodeEvents) throws IOException {
        long traceLine = TimeOrder.firstLineOutOfOrder(trace, "submit");
        long nodeLine = nodeEvents == null ? 0 : TimeOrder.firstLineOutOfOrder(nodeEvents, "time");
        if (traceLine == 0 && nodeLine == 0) return Duration.ZERO;
        String where = traceLine != 0 ? trace + ":" + traceLine + " (submit)" : nodeEvents + ":" + nodeLine + " (time)";
        err.println(command + ": " + where
                + " is earlier than a line before it: the whole input is buffered before the first"
                + " event is handled (sort the file by time to stream it)");
        return SchedulerConfig.END_OF_INPUT_WATERMARK;
    }
}
