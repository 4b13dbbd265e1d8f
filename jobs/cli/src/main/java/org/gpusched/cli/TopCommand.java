package org.gpusched.cli;

import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.apache.kafka.common.KafkaException;
import org.gpusched.analytics.LiveView;
import org.gpusched.analytics.TopicFollower;
import org.gpusched.streaming.kafka.KafkaSettings;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code gpusched top}: the live view of a running scheduler, from its decisions and scheduling-metrics topics. */
@Command(
        name = "top",
        mixinStandardHelpOptions = true,
        description = {
            "A live view of a scheduler on Kafka, like top: per policy and controller the queue, running jobs, busy GPUs, "
                    + "cost rate, total cost so far, completed jobs and decisions after its latest rescheduling, and the latest "
                    + "decisions. It follows the decisions and scheduling-metrics topics (read committed, no consumer group) and "
                    + "redraws every --interval seconds until Ctrl-C. Off a terminal, or with --plain, frames are printed one after "
                    + "another instead of redrawn; --frames N stops after N frames; --once prints one frame of everything written "
                    + "so far and exits; --at T shows the cluster as it was at trace time T."
        })
public final class TopCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    KafkaOptions kafkaOptions;

    @Option(
            names = "--interval",
            paramLabel = "SECONDS",
            defaultValue = "2",
            description = "Seconds between frames (default: ${DEFAULT-VALUE}).")
    double intervalSeconds;

    @Option(names = "--frames", paramLabel = "N", description = "Stop after N frames (default: run until Ctrl-C).")
    Integer frames;

    @Option(names = "--once", description = "Read everything written so far, print one frame and exit.")
    boolean once;

    @Option(
            names = "--at",
            paramLabel = "SECONDS",
            description = "Ignore records after this trace time: the view as it was then (with --once).")
    Double at;

    @Option(
            names = "--decisions",
            paramLabel = "N",
            defaultValue = "10",
            description = "How many of the latest decisions to show (default: ${DEFAULT-VALUE}).")
    int lastDecisions;

    @Option(names = "--plain", description = "Print frames one after another, never clear the screen.")
    boolean plain;

    @Override
    public Integer call() throws Exception {
        KafkaSettings kafka;
        try {
            if (!(intervalSeconds >= 0.1))
                throw new IllegalArgumentException("--interval must be >= 0.1 s, got " + intervalSeconds);
            if (frames != null && frames < 1)
                throw new IllegalArgumentException("--frames must be >= 1, got " + frames);
            if (lastDecisions < 0) throw new IllegalArgumentException("--decisions must be >= 0, got " + lastDecisions);
            if (at != null && !once) throw new IllegalArgumentException("--at needs --once");
            kafka = kafkaOptions.settings();
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (!BrokerCheck.reachable("top", kafkaOptions.bootstrap, err)) return ExitCode.UNAVAILABLE;
        boolean redraw = !plain && !once && System.console() != null;
        LiveView view = new LiveView(at == null ? Double.POSITIVE_INFINITY : at, lastDecisions);
        try (TopicFollower follower = new TopicFollower(kafka, view)) {
            if (once) {
                follower.catchUp(Duration.ofSeconds(30));
                out.print(view.render(header(follower)));
                out.flush();
                return ExitCode.OK;
            }
            Duration interval = Duration.ofMillis(Math.round(intervalSeconds * 1000));
            for (int frame = 1; frames == null || frame <= frames; frame++) {
                long until = System.nanoTime() + interval.toNanos();
                do follower.poll(Duration.ofNanos(Math.max(1_000_000, until - System.nanoTime())));
                while (System.nanoTime() < until);
                if (redraw) out.print("\033[H\033[2J");
                else if (frame > 1) out.println();
                out.print(view.render(header(follower)));
                out.flush();
            }
        } catch (IllegalArgumentException | KafkaException e) {
            err.println("gpusched top: " + e.getMessage());
            return ExitCode.BAD_INPUT;
        }
        return ExitCode.OK;
    }

    private String header(TopicFollower follower) {
        return String.format(
                Locale.ROOT,
                "gpusched top  %s  %s  %,d records read%s%s",
                Instant.now().truncatedTo(ChronoUnit.SECONDS),
                kafkaOptions.bootstrap
                        + (kafkaOptions.topicPrefix.isEmpty() ? "" : " prefix " + kafkaOptions.topicPrefix),
                follower.records(),
                follower.undecodable() == 0
                        ? ""
                        : String.format(Locale.ROOT, " (%,d undecodable)", follower.undecodable()),
                at == null ? "" : String.format(Locale.ROOT, "  as at trace time %.1f s", at));
    }
}
