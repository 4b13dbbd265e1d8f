package org.gpusched.cli;

import org.gpusched.formats.ClusterSpec;
import org.gpusched.streaming.SchedulerConfig;
import picocli.CommandLine.Option;

/** The scheduler options every file-replay command takes (replay, compare), and the replay config they make. */
final class ReplaySchedulerOptions {
    @Option(names = "--iterations", paramLabel = "N", defaultValue = "1000", description = "MaxIt of the randomized policies (default: ${DEFAULT-VALUE}).")
    int iterations;

    @Option(names = "--controllers", paramLabel = "K", defaultValue = "1", description = "Local controllers; jobs are dispatched round robin, node i belongs to controller i mod K (default: ${DEFAULT-VALUE} = centralized).")
    int controllers;

    @Option(names = "--noise", paramLabel = "F", defaultValue = "0", description = "Prediction noise: real duration = predicted x U[1-F, 1+F], drawn per job from the seed (default: ${DEFAULT-VALUE}).")
    double noise;

    @Option(names = "--period", paramLabel = "SECONDS", description = "H, the periodic rescheduling interval (default: the cluster file's objective.horizonSeconds, else 3600).")
    Double period;

    /** A replay-mode config over a bounded input (watermark only at its end); policies and seed are the caller's. */
    SchedulerConfig.Builder replayConfig(ClusterSpec cluster, long seed) {
        SchedulerConfig.Builder b = SchedulerConfig.builder().cluster(cluster).seed(seed).maxIterations(iterations)
                .controllers(controllers).noise(noise).mode(SchedulerConfig.Mode.REPLAY)
                .outOfOrderness(SchedulerConfig.END_OF_INPUT_WATERMARK);
        if (period != null) b.periodSeconds(period);
        return b;
    }
}
