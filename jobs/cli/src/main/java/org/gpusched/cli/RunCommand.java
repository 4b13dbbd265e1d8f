package org.gpusched.cli;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.gpusched.formats.ClusterSpec;
import org.gpusched.formats.ClusterYaml;
import org.gpusched.formats.FormatException;
import org.gpusched.streaming.SchedulerConfig;
import org.gpusched.streaming.Topics;
import org.gpusched.streaming.kafka.KafkaPipeline;
import org.gpusched.streaming.kafka.KafkaSettings;
import org.gpusched.streaming.kafka.TopicOffsets;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code gpusched run}: the scheduler job on Kafka topics (the same data flow as {@code replay}). */
@Command(name = "run", mixinStandardHelpOptions = true,
        description = {"Runs the scheduler on Kafka topics: reads submissions and node events (live mode also completions and "
                + "telemetry), writes decisions, scheduling and job metrics, simulated completions (replay mode) and rejected records. "
                + "Locally it runs on an embedded Flink mini cluster; under `flink run` it is submitted to that cluster. With --bounded "
                + "it reads the input topics up to their current end and stops (a replay of what `gpusched produce` published, with the "
                + "same decisions as `gpusched replay` of the same trace and seed); otherwise it runs until stopped (Ctrl-C). "
                + "Progress on stderr; a summary of the records written on stdout when it ends."})
public final class RunCommand implements Callable<Integer> {
    @Spec CommandSpec spec;

    @Option(names = "--bootstrap", required = true, paramLabel = "HOST:PORT", description = "Kafka bootstrap servers, comma-separated.")
    String bootstrap;

    @Option(names = "--cluster", required = true, paramLabel = "FILE", description = "Cluster file (YAML: node types and nodes).")
    Path cluster;

    @Option(names = "--policy", split = ",", paramLabel = "NAME", defaultValue = "andreas-rg",
            description = "Policy, or a comma list run side by side on the same events (default: ${DEFAULT-VALUE}).")
    List<String> policies;

    @Option(names = "--seed", paramLabel = "N", defaultValue = "1", description = "Seed of the policies' random state and the noise (default: ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--iterations", paramLabel = "N", defaultValue = "1000", description = "MaxIt of the randomized policies (default: ${DEFAULT-VALUE}).")
    int iterations;

    @Option(names = "--controllers", paramLabel = "K", defaultValue = "1", description = "Local controllers, jobs dispatched round robin (default: ${DEFAULT-VALUE} = centralized).")
    int controllers;

    @Option(names = "--noise", paramLabel = "F", defaultValue = "0", description = "Replay noise: real duration = predicted x U[1-F, 1+F] (default: ${DEFAULT-VALUE}).")
    double noise;

    @Option(names = "--period", paramLabel = "SECONDS", description = "Periodic rescheduling interval H (default: the cluster file's objective.horizonSeconds).")
    Double periodSeconds;

    @Option(names = "--mode", paramLabel = "MODE", defaultValue = "replay",
            description = "replay: completions simulated from the predicted times; live: completions and telemetry read from their topics (default: ${DEFAULT-VALUE}).")
    String mode;

    @Option(names = "--bounded", description = "Read the input topics from the start up to their end at start-up, then finish.")
    boolean bounded;

    @Option(names = "--topic-prefix", paramLabel = "P", defaultValue = "", description = "Prefix of all topic names (default: none).")
    String topicPrefix;

    @Option(names = "--group-id", paramLabel = "ID", defaultValue = KafkaSettings.DEFAULT_GROUP_ID, description = "Kafka consumer group (default: ${DEFAULT-VALUE}).")
    String groupId;

    @Option(names = "--checkpoint-interval", paramLabel = "SECONDS", defaultValue = "0",
            description = "Checkpoint every N seconds; 0 = off (default). With checkpoints the sinks write exactly once (Kafka transactions).")
    double checkpointSeconds;

    @Option(names = "--out-of-orderness", paramLabel = "SECONDS",
            description = "How late an input record may arrive in event time (default: 0; with --bounded the watermark waits for the end of the input, "
                    + "as the file replay does).")
    Double outOfOrdernessSeconds;

    @Option(names = "--idle-timeout", paramLabel = "SECONDS", defaultValue = "5",
            description = "Live mode: an input without records this long stops holding event time back (default: ${DEFAULT-VALUE}).")
    double idleTimeoutSeconds;

    @Option(names = "--parallelism", paramLabel = "N", defaultValue = "1", description = "Parallelism of the local run (default: ${DEFAULT-VALUE}).")
    int parallelism;

    @Option(names = "--kafka-property", paramLabel = "KEY=VALUE", description = "Extra Kafka client property (security, timeouts), repeatable.")
    Map<String, String> kafkaProperties;

    @Override
    public Integer call() throws Exception {
        KafkaSettings kafka;
        SchedulerConfig cfg;
        try {
            if (parallelism < 1) throw new IllegalArgumentException("--parallelism must be >= 1, got " + parallelism);
            if (!(checkpointSeconds >= 0)) throw new IllegalArgumentException("--checkpoint-interval must be >= 0, got " + checkpointSeconds);
            if (!(idleTimeoutSeconds > 0)) throw new IllegalArgumentException("--idle-timeout must be > 0, got " + idleTimeoutSeconds);
            if (outOfOrdernessSeconds != null && !(outOfOrdernessSeconds >= 0)) throw new IllegalArgumentException("--out-of-orderness must be >= 0, got " + outOfOrdernessSeconds);
            SchedulerConfig.Mode runMode = switch (mode.toLowerCase(Locale.ROOT)) {
                case "replay" -> SchedulerConfig.Mode.REPLAY;
                case "live" -> SchedulerConfig.Mode.LIVE;
                default -> throw new IllegalArgumentException("--mode must be replay or live, got '" + mode + "'");
            };
            kafka = KafkaSettings.of(bootstrap).withTopicPrefix(topicPrefix).withGroupId(groupId).withBounded(bounded)
                    .withExactlyOnce(checkpointSeconds > 0).withClientProperties(kafkaProperties);
            ClusterSpec clusterSpec;
            try {
                clusterSpec = ClusterYaml.read(cluster);
            } catch (FormatException e) {
                System.err.println("gpusched run: " + e.getMessage());
                return 1;
            }
            Duration outOfOrderness = outOfOrdernessSeconds != null ? Duration.ofMillis(Math.round(outOfOrdernessSeconds * 1000))
                    : bounded ? SchedulerConfig.END_OF_INPUT_WATERMARK : Duration.ZERO;
            SchedulerConfig.Builder b = SchedulerConfig.builder().cluster(clusterSpec).policies(policies).seed(seed)
                    .maxIterations(iterations).controllers(controllers).noise(noise).mode(runMode)
                    .checkpointInterval(Duration.ofMillis(Math.round(checkpointSeconds * 1000)))
                    .outOfOrderness(outOfOrderness).idleTimeout(Duration.ofMillis(Math.round(idleTimeoutSeconds * 1000)));
            if (periodSeconds != null) b.periodSeconds(periodSeconds);
            cfg = b.build();
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }

        List<String> inputs = new ArrayList<>();
        List<String> outputs = new ArrayList<>();
        for (Topics t : Topics.all()) {
            boolean read = t == Topics.SUBMISSIONS || t == Topics.NODE_EVENTS
                    || cfg.mode() == SchedulerConfig.Mode.LIVE && (t == Topics.COMPLETIONS || t == Topics.TELEMETRY);
            if (read) inputs.add(t.topic(topicPrefix));
            else if (t.isOutput()) outputs.add(t.topic(topicPrefix));
        }
        Map<String, Long> inputEnd;
        Map<String, Long> outputStart;
        try (TopicOffsets offsets = new TopicOffsets(kafka.clientConfig())) {
            List<String> all = new ArrayList<>(inputs);
            all.addAll(outputs);
            List<String> missing = offsets.missing(all);
            if (!missing.isEmpty()) {
                System.err.println("gpusched run: topics missing on " + bootstrap + ": " + missing
                        + " (create them with bin/kafka-local topics, or java -cp gpusched.jar org.gpusched.streaming.kafka.TopicAdmin --bootstrap " + bootstrap + ")");
                return 1;
            }
            inputEnd = offsets.endOffsets(inputs);
            outputStart = offsets.endOffsets(outputs);
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException | org.apache.kafka.common.KafkaException e) {
            System.err.println("gpusched run: cannot reach Kafka at " + bootstrap + " (" + (e.getCause() != null ? e.getCause().getMessage() : e.getMessage()) + ")");
            return 1;
        }

        Configuration flink = new Configuration();
        flink.set(CoreOptions.DEFAULT_PARALLELISM, parallelism);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(flink);
        KafkaPipeline.define(env, kafka, cfg);

        System.err.printf(Locale.ROOT, "run: %s mode, policies %s, seed %d, %d controller(s), %d nodes; %s from %s%n",
                cfg.mode().name().toLowerCase(Locale.ROOT), cfg.policies(), cfg.seed(), cfg.controllers(), cfg.nodes().size(),
                bounded ? "bounded: " + inputEnd + " records" : "unbounded", bootstrap);
        ProgressReporter progress = new ProgressReporter(kafka, outputs, outputStart);
        progress.start();
        long start = System.nanoTime();
        JobExecutionResult result;
        try {
            result = env.execute("gpusched run " + String.join(",", cfg.policies()) + (bounded ? " (bounded)" : ""));
        } finally {
            progress.interrupt();
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        if (!result.isJobExecutionResult()) {
            System.out.println("submitted job " + result.getJobID() + " (detached)");
            return 0;
        }
        Map<String, Long> written = new LinkedHashMap<>();
        try (TopicOffsets offsets = new TopicOffsets(kafka.clientConfig())) {
            offsets.endOffsets(outputs).forEach((t, end) -> written.put(t, end - outputStart.getOrDefault(t, 0L)));
        }
        long read = inputEnd.values().stream().mapToLong(Long::longValue).sum();
        int width = 12;
        for (String t : inputEnd.keySet()) width = Math.max(width, t.length());
        for (String t : written.keySet()) width = Math.max(width, t.length());
        String row = "%-" + width + "s %,12d  (%s)%n";
        System.out.printf(Locale.ROOT, "%-" + width + "s %12s%n", "topic", "records");
        inputEnd.forEach((t, n) -> System.out.printf(Locale.ROOT, row, t, n, "read"));
        written.forEach((t, n) -> System.out.printf(Locale.ROOT, row, t, n, "written"));
        System.out.printf(Locale.ROOT, "%-" + width + "s %12.2f s  (%,.0f input records/s)%n", "wall time", seconds, read / seconds);
        System.out.printf(Locale.ROOT, "%-" + width + "s %12.2f s  (the Flink job alone, without start-up)%n", "job runtime",
                result.getNetRuntime() / 1000.0);
        return 0;
    }

    /** Prints the records written so far to the output topics every 5 s while the job runs. */
    private static final class ProgressReporter extends Thread {
        private final KafkaSettings kafka;
        private final List<String> outputs;
        private final Map<String, Long> start;

        ProgressReporter(KafkaSettings kafka, List<String> outputs, Map<String, Long> start) {
            super("gpusched-run-progress");
            setDaemon(true);
            this.kafka = kafka;
            this.outputs = outputs;
            this.start = start;
        }

        @Override
        public void run() {
            long t0 = System.nanoTime();
            try (TopicOffsets offsets = new TopicOffsets(kafka.clientConfig())) {
                while (!isInterrupted()) {
                    Thread.sleep(5000);
                    StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "  %6.0f s", (System.nanoTime() - t0) / 1e9));
                    offsets.endOffsets(outputs).forEach((t, end) -> {
                        long n = end - start.getOrDefault(t, 0L);
                        line.append(String.format(Locale.ROOT, "  %s %,d", t.substring(t.lastIndexOf('.') + 1), n));
                    });
                    System.err.println(line);
                }
            } catch (InterruptedException e) {
                // the job ended
            } catch (Exception e) {
                System.err.println("  (progress unavailable: " + e.getMessage() + ")");
            }
        }
    }
}
