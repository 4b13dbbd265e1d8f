package org.gpusched.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.ToDoubleFunction;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ReadableConfig;
import org.gpusched.formats.ClusterSpec;
import org.gpusched.formats.TimeOrder;
import org.gpusched.streaming.RecordParser;
import org.gpusched.streaming.SchedulerConfig;
import org.gpusched.streaming.SchedulerOptions;
import org.gpusched.streaming.Topics;
import org.gpusched.streaming.placement.PlacementOptions;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * The options of the scheduling model every scheduler command takes (replay, compare, run), and the configuration file
 * they may come from. The flags restate no default ({@link CommandConfiguration}): each sets its
 * {@link org.gpusched.streaming.SchedulerOptions} key when given.
 */
final class ReplaySchedulerOptions {
    /** The options of this mixin, which mean nothing to a placement run. */
    static final List<String> NAMES = List.of(
            "--iterations",
            "--iterations-without-gain",
            "--optimizer-threads",
            "--controllers",
            "--dispatch",
            "--noise",
            "--period",
            "--stability",
            "--optimizer-scope",
            "--move-overhead",
            "--snapshot-interval");

    @Spec(Spec.Target.MIXEE)
    CommandSpec spec;

    @Option(
            names = "--config",
            paramLabel = "PATH",
            description =
                    "A Flink configuration file (config.yaml, or its directory) whose gpusched.* keys set these options "
                            + "(docs/configuration.md); a flag given here wins over the file.")
    Path config;

    @Option(
            names = "--iterations",
            paramLabel = "N",
            description = "MaxIt of the randomized policies (default: ${DEFAULT-VALUE}).")
    String iterations;

    @Option(
            names = "--iterations-without-gain",
            paramLabel = "N",
            description = "A randomized policy's call stops once N iterations in a row have built nothing better "
                    + "than its best so far (checked every 8 iterations); 0: all MaxIt run, as in the papers; auto: "
                    + "three tenths of MaxIt with --controllers above 1 on a cluster of rightsizable nodes (VMs), else 0 (default: "
                    + "${DEFAULT-VALUE}).")
    String iterationsWithoutGain;

    @Option(
            names = "--optimizer-threads",
            paramLabel = "N",
            description = "Threads that run one andreas-rg or rg-ls call's randomized iterations and, in a call of 256 "
                    + "jobs or more, the preparation of its jobs; the decisions are "
                    + "the same for any N (default: ${DEFAULT-VALUE}, the processors the JVM sees).")
    String optimizerThreads;

    @Option(
            names = "--controllers",
            paramLabel = "K",
            description =
                    "Local controllers; jobs are dispatched round robin, node i belongs to controller i mod K (default: ${DEFAULT-VALUE} = centralized).")
    String controllers;

    @Option(
            names = "--dispatch",
            paramLabel = "RULE",
            description =
                    "How jobs are dealt to the K controllers: round-robin (the hierarchical paper) or gpu-weighted (round robin in proportion to each controller's GPUs) (default: ${DEFAULT-VALUE}).")
    String dispatch;

    @Option(
            names = "--noise",
            paramLabel = "F",
            description =
                    "Prediction noise: real duration = predicted x U[1-F, 1+F], drawn per job from the seed (default: ${DEFAULT-VALUE}).")
    String noise;

    @Option(
            names = "--period",
            paramLabel = "SECONDS",
            description =
                    "H, the periodic rescheduling interval (default: the cluster file's objective.horizonSeconds, else 3600).")
    String period;

    @Option(
            names = "--stability",
            paramLabel = "MODE",
            description =
                    "stable: an optimizer moves a running job only when the move pays for its overhead, on nodes matched to the running ones; paper: plans as the optimizer gives them, as in the papers (for the papers' free moves add --move-overhead 0 --snapshot-interval 0) (default: ${DEFAULT-VALUE}).")
    String stability;

    @Option(
            names = "--optimizer-scope",
            paramLabel = "SCOPE",
            description =
                    "all-nodes: an optimizer re-decides every node and running job at each event (the papers); nodes-with-room: only the nodes with a free GPU or switched off and the jobs on them, the jobs of full nodes keep running where they are (an event then costs the cluster's spare room, not its size); auto: all-nodes for a controller of at most 128 nodes, nodes-with-room above (default: ${DEFAULT-VALUE}).")
    String optimizerScope;

    @Option(
            names = "--move-overhead",
            paramLabel = "SECONDS",
            description =
                    "Time a job spends restoring its last snapshot after a migration or resize, or when it starts again after a preemption (GPUs held and charged; f_OBJ sees it; --stability stable also asks a move to gain this much) (default: ${DEFAULT-VALUE}).")
    String moveOverhead;

    @Option(
            names = "--snapshot-interval",
            paramLabel = "SECONDS",
            description =
                    "A running job snapshots every SECONDS of progress on its placement; a preempted, migrated or resized job loses the progress since its last snapshot (0: none lost) (default: ${DEFAULT-VALUE}).")
    String snapshotInterval;

    private Configuration options;
    private Configuration placementOptions;
    /** The cluster's Flink configuration under {@code flink run} ({@link FlinkJob}), else empty. */
    private Configuration cluster = new Configuration();

    /** Sets the configuration whose {@code gpusched.*} keys come before --config and the flags. */
    void clusterConfiguration(ReadableConfig flink) {
        cluster = CommandConfiguration.gpuschedKeys(flink);
        options = null;
        placementOptions = null;
    }

    /** Every scheduler option of the command (cluster, file, then flags), checked once; a bad one is a usage error. */
    Configuration options() {
        if (options == null)
            options = CommandConfiguration.read(spec.commandLine(), config, SchedulerOptions.ALL, cluster);
        return options;
    }

    /** Every placement option of the command, read as {@link #options} is. */
    Configuration placementOptions() {
        if (placementOptions == null)
            placementOptions = CommandConfiguration.read(spec.commandLine(), config, PlacementOptions.ALL, cluster);
        return placementOptions;
    }

    /** A replay-mode config over a bounded input (watermark only at its end), from the command's options. */
    SchedulerConfig.Builder replayConfig(ClusterSpec cluster) {
        return SchedulerConfig.builder()
                .options(options())
                .cluster(cluster)
                .mode(SchedulerConfig.Mode.REPLAY)
                .outOfOrderness(SchedulerConfig.END_OF_INPUT_WATERMARK);
    }

    /**
     * The out-of-orderness of a file replay: watermarks follow the input when every input file is in time order, so
     * it streams through in bounded memory and scheduling starts at once; otherwise one watermark at the end of the
     * input, the whole input buffered so that events are still handled in time order (with a note saying so). The
     * decisions are the same either way. Only the lines the job accepts under {@code cfg} count: a rejected line does
     * not become an event, so it cannot turn streaming off.
     */
    static Duration watermarksFor(PrintWriter err, String command, Path trace, Path nodeEvents, SchedulerConfig cfg)
            throws IOException {
        long traceLine = TimeOrder.firstLineOutOfOrder(trace, acceptedSeconds(Topics.SUBMISSIONS, cfg));
        long nodeLine = nodeEvents == null
                ? 0
                : TimeOrder.firstLineOutOfOrder(nodeEvents, acceptedSeconds(Topics.NODE_EVENTS, cfg));
        if (traceLine == 0 && nodeLine == 0) return Duration.ZERO;
        String where = traceLine != 0 ? trace + ":" + traceLine + " (submit)" : nodeEvents + ":" + nodeLine + " (time)";
        err.println(command + ": " + where
                + " is earlier than a line before it: the whole input is buffered before the first"
                + " event is handled (sort the file by time to stream it)");
        return SchedulerConfig.END_OF_INPUT_WATERMARK;
    }

    /** A line's event time as the job's parser reads it, NaN for a line it rejects. */
    private static ToDoubleFunction<String> acceptedSeconds(Topics topic, SchedulerConfig cfg) {
        RecordParser parser = new RecordParser(topic, cfg);
        return line -> {
            long millis = parser.acceptedTimeMillis(line);
            return millis == Long.MIN_VALUE ? Double.NaN : millis;
        };
    }
}
