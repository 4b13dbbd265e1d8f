package org.gpusched.cli;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.configuration.ExternalizedCheckpointRetention;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.gpusched.formats.ClusterSpec;
import org.gpusched.formats.ClusterYaml;
import org.gpusched.formats.FormatException;
import org.gpusched.placement.experiment.PolicySpec;
import org.gpusched.streaming.EmbeddedFlink;
import org.gpusched.streaming.JobSettings;
import org.gpusched.streaming.SchedulerConfig;
import org.gpusched.streaming.SchedulerOptions;
import org.gpusched.streaming.Topics;
import org.gpusched.streaming.file.FileJobSinks;
import org.gpusched.streaming.file.RunDirectoryWriter;
import org.gpusched.streaming.file.StagedDirectory;
import org.gpusched.streaming.kafka.KafkaPipeline;
import org.gpusched.streaming.kafka.KafkaSettings;
import org.gpusched.streaming.kafka.TopicOffsets;
import org.gpusched.streaming.kafka.TopicReader;
import org.gpusched.streaming.placement.KafkaPlacement;
import org.gpusched.streaming.placement.PlacementConfig;
import org.gpusched.streaming.placement.PlacementOptions;
import org.gpusched.streaming.placement.ReplayRun;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code gpusched run}: the scheduler job on Kafka topics (the same data flow as {@code replay}), or with --nodes the
 * placement policies (fgd, pwr, pwr-fgd, ...) on the pods topic (the same placement operator as {@code place-replay}).
 */
@Command(
        name = "run",
        mixinStandardHelpOptions = true,
        defaultValueProvider = CommandConfiguration.Defaults.class,
        description = {
            "Runs the scheduler on Kafka topics: reads submissions and node events (live mode also completions and "
                    + "telemetry), writes decisions, scheduling and job metrics, simulated completions (replay mode) and rejected records. "
                    + "Locally it runs on an embedded Flink mini cluster; under `flink run` it is submitted to that cluster. With --bounded "
                    + "it reads the input topics up to their current end and stops (a replay of what `gpusched produce` published, with the "
                    + "same decisions as `gpusched replay` of the same trace and seed); otherwise it runs until stopped (Ctrl-C). With --checkpoint-interval and "
                    + "--checkpoint-dir its state (waiting and running jobs, nodes, input offsets) is kept across a stop or a crash, and "
                    + "--restore latest resumes it where the last checkpoint left it; under `flink run` use -s PATH or --restore. "
                    + "Progress on stderr; a summary of the records written on stdout when it ends.",
            "With --nodes and --workload instead of --cluster it runs placement policies (fgd, pwr, pwr-fgd with --alpha, bestfit, "
                    + "dotprod, gpu-packing, gpu-clustering, random; a comma list runs side by side): reads the pods topic (PodEvent, "
                    + "published by `gpusched produce --pods`), rejects bad records to the rejected topic, places each pod at its creation "
                    + "time and frees it at its deletion time with the same operator as place-replay, and writes PLACE/FAIL/RELEASE "
                    + "decisions to the pod-placements topic. With --bounded the decisions equal place-replay's for the same pod list and seed."
        })
public final class RunCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    KafkaOptions kafkaOptions;

    @Option(
            names = "--cluster",
            paramLabel = "FILE",
            description = "Scheduling: cluster file (YAML: node types and nodes).")
    Path cluster;

    @Option(
            names = "--nodes",
            paramLabel = "FILE",
            description = "Placement: Alibaba node list CSV (sn,cpu_milli,memory_mib,gpu,model); "
                    + "runs the placement policies on the pods topic instead of the scheduler.")
    Path nodes;

    @Option(
            names = "--workload",
            paramLabel = "FILE",
            description =
                    "Placement: the pod list CSV whose tasks are fgd's and pwr-fgd's target "
                            + "workload (usually the file published with produce --pods); its last time is reported for pods cut off by the trace's end.")
    Path workload;

    // --alpha sets a PlacementOptions key: read through scheduler.placementOptions(), never from this field
    @Option(
            names = "--alpha",
            split = ",",
            paramLabel = "A",
            description = "Placement: alpha of pwr-fgd, or a comma list (default: ${DEFAULT-VALUE}).")
    List<String> alphas;

    @Option(
            names = "--policy",
            split = ",",
            paramLabel = "NAME",
            description =
                    "Policy, or a comma list run side by side on the same events (default: ${DEFAULT-VALUE}; with --nodes required: "
                            + "fgd, pwr, pwr-fgd, bestfit, dotprod, gpu-packing, gpu-clustering, random).")
    List<String> policies;

    // --seed, --mode and the options of the scheduler mixin set SchedulerOptions keys: they are read through
    // scheduler.options() (flag, else --config file, else default), never from these fields.
    @Option(
            names = "--seed",
            paramLabel = "N",
            description = "Seed of the policies' random state and the noise (default: ${DEFAULT-VALUE}; "
                    + "placement policies: gpusched.placement.seed, docs/configuration.md).")
    String seed;

    @Mixin
    ReplaySchedulerOptions scheduler;

    @Option(
            names = "--mode",
            paramLabel = "MODE",
            description =
                    "replay: completions simulated from the predicted times; live: completions and telemetry read from their topics (default: ${DEFAULT-VALUE}).")
    String mode;

    @Option(
            names = "--bounded",
            description = "Read the input topics from the start up to their end at start-up, then finish.")
    boolean bounded;

    @Option(
            names = "--group-id",
            paramLabel = "ID",
            defaultValue = KafkaSettings.DEFAULT_GROUP_ID,
            description = "Kafka consumer group (default: ${DEFAULT-VALUE}).")
    String groupId;

    @Option(
            names = "--checkpoint-interval",
            paramLabel = "SECONDS",
            description =
                    "Checkpoint every N seconds; 0 = off (default: ${DEFAULT-VALUE}). With checkpoints the sinks write exactly once (Kafka transactions).")
    String checkpointInterval;

    @Option(
            names = "--checkpoint-dir",
            paramLabel = "DIR",
            description =
                    "Durable directory of the checkpoints, kept when the run stops or is killed (DIR/JOB-ID/chk-N), and of "
                            + "savepoints (DIR/savepoints); needs --checkpoint-interval. Default: checkpoints in memory, lost with the run.")
    Path checkpointDir;

    @Option(
            names = "--restore",
            paramLabel = "PATH",
            description =
                    "Resume from a checkpoint or savepoint: its directory, a directory of them (the newest), or 'latest' "
                            + "(the newest under --checkpoint-dir). The job's state (waiting and running jobs, nodes, random state) and the input "
                            + "offsets are those of the snapshot; the options must describe the same job (same --cluster, --policy, --controllers).")
    String restore;

    @Option(
            names = "--restore-new-settings",
            description =
                    "With --restore: go on with this run's values of the settings a restore may change (--iterations, --noise, --stability, "
                            + "--optimizer-scope, --move-overhead, --snapshot-interval, --period, the objective, --out-of-orderness) where the "
                            + "checkpoint was made with others. Without it such a restore is refused, naming each difference; a checkpoint of "
                            + "another --policy, --seed, --controllers, --dispatch, --mode or --cluster is always refused.")
    boolean restoreNewSettings;

    @Option(
            names = "--out-of-orderness",
            paramLabel = "SECONDS",
            description =
                    "How late an input record may arrive in event time (default: ${DEFAULT-VALUE}; with --bounded the watermark waits for the end of the input, "
                            + "as the file replay does). Placement: in trace seconds of creation time.")
    String outOfOrderness;

    @Option(
            names = "--idle-timeout",
            paramLabel = "SECONDS",
            description =
                    "Unbounded runs: an input without records this long stops holding event time back (default: ${DEFAULT-VALUE}).")
    String idleTimeout;

    @Option(
            names = "--watermark-interval",
            paramLabel = "SECONDS",
            description =
                    "How often event time advances: about the longest an event waits in the job's buffers before it is handled (default: ${DEFAULT-VALUE}).")
    String watermarkInterval;

    @Option(
            names = "--parallelism",
            paramLabel = "N",
            defaultValue = "1",
            description = "Parallelism of the local run (default: ${DEFAULT-VALUE}).")
    int parallelism;

    @Option(
            names = "--bind-address",
            paramLabel = "ADDRESS",
            defaultValue = EmbeddedFlink.LOOPBACK,
            description =
                    "Where the embedded Flink cluster's REST endpoint (web UI), blob server and RPC listen: an IP address of this machine, "
                            + "or 0.0.0.0 for every interface (default: ${DEFAULT-VALUE}, this machine only). The REST endpoint is unauthenticated: "
                            + "whoever reaches it can cancel the job or have it write a savepoint to any path. Under `flink run` the cluster's configuration decides.")
    String bindAddress;

    @picocli.CommandLine.Mixin
    PowerflowStreamOptions powerflow;

    @Option(
            names = "--out",
            paramLabel = "DIR",
            description =
                    "Scheduling with --bounded: also write the run directory replay writes (run.json, jobs.jsonl, decisions.jsonl, metrics.json, "
                            + "rejected.jsonl; DIR/POLICY/ for each of several policies) and print replay's summary table, for gpusched validate and report. "
                            + "Live --policy powerflow: decisions.jsonl, telemetry.jsonl (received), models.jsonl, job-energy.jsonl (each job's energy "
                            + "from that telemetry), live.json and summary.txt; gpusched validate recomputes the energies. "
                            + "Written under a hidden sibling name and renamed into place when complete.")
    Path out;

    @Mixin
    WireFormatOption wireFormat;

    @Mixin
    MetricsPortOption metricsPort;

    /** The powerflow job's settings once built (--policy powerflow), for its run directory of --out. */
    private org.gpusched.streaming.powerflow.PowerflowSettings powerflowSettings;

    /** The scheduler's configuration once built, for the run directory of --out. */
    private SchedulerConfig schedulerConfig;
    /** Where the job's outputs are also written as part files for --out, or null. */
    private Path runParts;

    /**
     * The Flink configuration of the cluster the job is submitted to ({@link FlinkJob}): its {@code gpusched.*} keys
     * set the options a --config file or a flag does not.
     */
    void clusterConfiguration(ReadableConfig flink) {
        scheduler.clusterConfiguration(flink);
    }

    /** Placement (--nodes/--workload) or scheduling (--cluster): exactly one kind of inputs, and only its options. */
    private Slice slice() {
        return new Slice.Choice(
                        "--cluster",
                        "--cluster",
                        cluster != null,
                        "--nodes",
                        nodes,
                        "--workload",
                        workload,
                        Stream.concat(ReplaySchedulerOptions.NAMES.stream(), Stream.of("--mode"))
                                .toList())
                .resolve(spec.commandLine());
    }

    /** What the job of either kind reads and writes, and how it is defined on an environment. */
    private record Job(
            List<String> inputs,
            List<String> outputs,
            Consumer<StreamExecutionEnvironment> define,
            String describe,
            String name) {}

    @Override
    public Integer call() throws Exception {
        KafkaSettings kafka;
        Job job;
        metricsPort.validate();
        policies = scheduler.options().get(SchedulerOptions.POLICIES);
        boolean checkpoints =
                !scheduler.options().get(SchedulerOptions.CHECKPOINT_INTERVAL).isZero();
        try {
            if (parallelism < 1) throw new IllegalArgumentException("--parallelism must be >= 1, got " + parallelism);
            if (checkpointDir != null && !checkpoints)
                throw new IllegalArgumentException(
                        "--checkpoint-dir needs --checkpoint-interval (checkpoints are off)");
            if (checkpointDir != null) {
                String unusable = RetainedState.unusable(checkpointDir);
                if (unusable != null) throw new IllegalArgumentException("--checkpoint-dir " + unusable);
            }
            if (restoreNewSettings && restore == null)
                throw new IllegalArgumentException("--restore-new-settings needs --restore (it says how to restore)");
            try {
                EmbeddedFlink.requireLocalAddress(bindAddress);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("--bind-address: " + e.getMessage());
            }
            kafka = kafkaOptions
                    .settings()
                    .withGroupId(groupId)
                    .withBounded(bounded)
                    .withExactlyOnce(checkpoints)
                    .withWireFormat(wireFormat.value());
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        if (PowerflowStreamOptions.selected(spec.commandLine(), policies, powerflow)) {
            if (out != null && (!bounded || replayMode()))
                throw new ParameterException(
                        spec.commandLine(),
                        "--out with --policy powerflow needs a live --bounded run (a replay's run directory:"
                                + " gpusched replay --policy powerflow --trace T --out DIR)");
            job = powerflowJob(kafka);
            if (!BrokerCheck.reachable(
                    "run", kafkaOptions.bootstrap, spec.commandLine().getErr())) return ExitCode.UNAVAILABLE;
            return run(kafka, job);
        }
        job = slice().dispatch(new Slice.Handler<>() {
            @Override
            public Job scheduling() {
                if (out != null && !bounded) throw outNeedsBoundedScheduler();
                return schedulerJob(kafka);
            }

            @Override
            public Job placement(Slice.Placement inputs) {
                if (out != null) throw outNeedsBoundedScheduler();
                if (!spec.commandLine().getParseResult().hasMatchedOption("--policy"))
                    throw new ParameterException(
                            spec.commandLine(),
                            "--policy is required with --nodes: fgd, pwr, pwr-fgd, bestfit, dotprod, gpu-packing, gpu-clustering, random");
                return placementJob(kafka);
            }
        });
        if (job == null) return ExitCode.BAD_INPUT;
        if (!BrokerCheck.reachable(
                "run", kafkaOptions.bootstrap, spec.commandLine().getErr())) return ExitCode.UNAVAILABLE;
        return run(kafka, job);
    }

    private ParameterException outNeedsBoundedScheduler() {
        return new ParameterException(
                spec.commandLine(),
                "--out needs --bounded and the scheduler (--cluster): a run directory is written when the input ends");
    }

    /** The placement policies on the pods topic; null (exit 1) when an input file cannot be used (message printed). */
    private Job placementJob(KafkaSettings kafka) {
        Configuration options = scheduler.placementOptions();
        long seed = options.get(PlacementOptions.SEED);
        List<ReplayRun> runs = new ArrayList<>();
        try {
            for (PolicySpec p : PlacementReplayRunner.policies(policies, options.get(PlacementOptions.ALPHAS)))
                runs.add(new ReplayRun(p, seed));
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage().replace("placement policy", "--policy"));
        }
        PrintWriter err = spec.commandLine().getErr();
        PlacementReplayRunner.Inputs inputs = PlacementReplayRunner.Inputs.read(err, "run", nodes, workload);
        if (inputs == null) return null;
        Duration outOfOrderness = bounded
                ? PlacementConfig.END_OF_INPUT
                : Duration.ofSeconds(Math.round(scheduler
                                .options()
                                .get(SchedulerOptions.OUT_OF_ORDERNESS)
                                .toMillis()
                        / 1000.0));
        PlacementConfig cfg = new PlacementConfig(
                inputs.nodes(),
                inputs.trace(),
                runs,
                outOfOrderness,
                Math.min(runs.size(), parallelism),
                scheduler.options().get(SchedulerOptions.CHECKPOINT_INTERVAL),
                scheduler.options().get(SchedulerOptions.WATERMARK_INTERVAL));
        String names =
                String.join(",", runs.stream().map(r -> r.policy().label()).toList());
        return new Job(
                List.of(Topics.PODS.topic(kafkaOptions.topicPrefix)),
                List.of(
                        Topics.POD_PLACEMENTS.topic(kafkaOptions.topicPrefix),
                        Topics.REJECTED.topic(kafkaOptions.topicPrefix)),
                env -> KafkaPlacement.define(env, kafka, cfg),
                String.format(
                        Locale.ROOT,
                        "placement, policies [%s], seed %d, %d nodes, target workload of %d tasks from %s",
                        names,
                        seed,
                        inputs.nodes().size(),
                        inputs.trace().workloadTasks().size(),
                        workload),
                "gpusched run placement " + names);
    }

    private boolean replayMode() {
        return scheduler.options().get(SchedulerOptions.MODE) == SchedulerConfig.Mode.REPLAY;
    }

    /** --policy powerflow: the streaming PowerFlow scheduler on its own topics (docs/powerflow.md, Live operation). */
    private Job powerflowJob(KafkaSettings kafka) {
        Configuration options = scheduler.options();
        boolean replay = replayMode();
        org.gpusched.streaming.powerflow.PowerflowSettings cfg = powerflow
                .settings(spec.commandLine(), replay, options.get(SchedulerOptions.SEED))
                .withStreaming(
                        outOfOrderness(options),
                        options.get(SchedulerOptions.IDLE_TIMEOUT),
                        options.get(SchedulerOptions.CHECKPOINT_INTERVAL),
                        options.get(SchedulerOptions.WATERMARK_INTERVAL),
                        !bounded);
        powerflowSettings = cfg;
        List<String> inputs = new ArrayList<>(List.of(Topics.POWERFLOW_JOBS.topic(kafkaOptions.topicPrefix)));
        List<String> outputs = new ArrayList<>(List.of(
                Topics.DECISIONS.topic(kafkaOptions.topicPrefix),
                Topics.POWERFLOW_MODELS.topic(kafkaOptions.topicPrefix),
                Topics.POWERFLOW_ENERGY.topic(kafkaOptions.topicPrefix),
                Topics.REJECTED.topic(kafkaOptions.topicPrefix)));
        (replay ? outputs : inputs).add(Topics.TELEMETRY.topic(kafkaOptions.topicPrefix));
        (replay ? outputs : inputs).add(Topics.COMPLETIONS.topic(kafkaOptions.topicPrefix));
        return new Job(
                inputs,
                outputs,
                env -> org.gpusched.streaming.powerflow.PowerflowKafka.define(
                        env,
                        kafka,
                        cfg,
                        runParts == null ? null : new org.gpusched.streaming.powerflow.PowerflowFiles.Sinks(runParts)),
                String.format(
                        Locale.ROOT,
                        "powerflow, %s mode, eta %s, %d GPUs",
                        replay ? "replay (simulated cluster)" : "live",
                        cfg.eta(),
                        cfg.totalGpus()),
                "gpusched run powerflow");
    }

    /** The out-of-orderness given (flag or file), else with --bounded one watermark at the end of the input. */
    private Duration outOfOrderness(Configuration options) {
        return options.contains(SchedulerOptions.OUT_OF_ORDERNESS) || !bounded
                ? options.get(SchedulerOptions.OUT_OF_ORDERNESS)
                : SchedulerConfig.END_OF_INPUT_WATERMARK;
    }

    /** The scheduler; null (exit 1) when the cluster file cannot be used (message printed). */
    private Job schedulerJob(KafkaSettings kafka) {
        SchedulerConfig cfg;
        try {
            ClusterSpec clusterSpec;
            try {
                clusterSpec = ClusterYaml.read(cluster);
            } catch (FormatException e) {
                System.err.println("gpusched run: " + e.getMessage());
                return null;
            }
            Configuration options = scheduler.options();
            SchedulerConfig.Builder b = SchedulerConfig.builder()
                    .options(options)
                    .cluster(clusterSpec)
                    .outOfOrderness(outOfOrderness(options))
                    .restoreNewSettings(restoreNewSettings);
            cfg = b.build();
        } catch (IllegalArgumentException e) {
            throw CommandConfiguration.usageError(spec.commandLine(), e);
        }

        List<String> inputs = new ArrayList<>();
        List<String> outputs = new ArrayList<>();
        for (Topics t : Topics.all()) {
            if (!t.isScheduler()) continue;
            boolean read = t == Topics.SUBMISSIONS
                    || t == Topics.NODE_EVENTS
                    || cfg.mode() == SchedulerConfig.Mode.LIVE && (t == Topics.COMPLETIONS || t == Topics.TELEMETRY);
            if (read) inputs.add(t.topic(kafkaOptions.topicPrefix));
            else if (t.isOutput()) outputs.add(t.topic(kafkaOptions.topicPrefix));
        }
        schedulerConfig = cfg;
        return new Job(
                inputs,
                outputs,
                env -> KafkaPipeline.define(env, kafka, cfg, runParts == null ? null : new FileJobSinks(runParts)),
                String.format(
                        Locale.ROOT,
                        "%s mode, policies %s, seed %d, %d controller(s), %d nodes",
                        cfg.mode().name().toLowerCase(Locale.ROOT),
                        cfg.policies(),
                        cfg.seed(),
                        cfg.controllers(),
                        cfg.nodes().size()),
                "gpusched run " + String.join(",", cfg.policies()));
    }

    private Integer run(KafkaSettings kafka, Job job) throws Exception {
        List<String> inputs = job.inputs();
        List<String> outputs = job.outputs();
        Map<String, Long> inputEnd;
        try (TopicOffsets offsets = new TopicOffsets(kafka.clientConfig())) {
            List<String> all = new ArrayList<>(inputs);
            all.addAll(outputs);
            List<String> missing = offsets.missing(all);
            if (!missing.isEmpty()) {
                System.err.println("gpusched run: topics missing on " + kafkaOptions.bootstrap + ": " + missing
                        + " (create them with gpusched topics create --bootstrap " + kafkaOptions.bootstrap
                        + (kafkaOptions.topicPrefix.isEmpty() ? "" : " --topic-prefix " + kafkaOptions.topicPrefix)
                        + ")");
                return ExitCode.UNAVAILABLE;
            }
            inputEnd = offsets.endOffsets(inputs);
        } catch (java.util.concurrent.ExecutionException
                | java.util.concurrent.TimeoutException
                | org.apache.kafka.common.KafkaException e) {
            System.err.println("gpusched run: cannot reach Kafka at " + kafkaOptions.bootstrap + " ("
                    + (e.getCause() != null ? e.getCause().getMessage() : e.getMessage()) + ")");
            return ExitCode.UNAVAILABLE;
        }

        Map<String, Map<Integer, Long>> outputFrom = new LinkedHashMap<>();
        try (TopicReader reader = new TopicReader(kafka)) {
            for (String t : outputs) outputFrom.put(t, reader.endOffsets(t));
        }
        Map<String, Long> outputStart = new LinkedHashMap<>();
        outputFrom.forEach((t, ends) -> outputStart.put(
                t, ends.values().stream().mapToLong(Long::longValue).sum()));
        StagedDirectory staged = null;
        if (out != null) {
            staged = cluster == null
                    ? CliFiles.stage(spec.commandLine(), "run", out)
                    : CliFiles.stage(spec.commandLine(), "run", out, cluster);
            if (staged == null) return ExitCode.BAD_INPUT;
            runParts = Files.createDirectories(staged.dir().resolve(".parts"));
        }
        try {
            return run(kafka, job, inputEnd, outputFrom, outputStart, staged);
        } finally {
            if (staged != null) staged.close();
        }
    }

    private Integer run(
            KafkaSettings kafka,
            Job job,
            Map<String, Long> inputEnd,
            Map<String, Map<Integer, Long>> outputFrom,
            Map<String, Long> outputStart,
            StagedDirectory staged)
            throws Exception {
        List<String> outputs = job.outputs();
        Configuration flink = flinkConfiguration();
        metricsPort.apply(flink, spec.commandLine().getErr());
        String restored = durableState(flink);
        if (restored == null && restore != null) return ExitCode.BAD_INPUT;
        StreamExecutionEnvironment env = EmbeddedFlink.environment(flink);
        job.define().accept(env);

        System.err.printf(
                Locale.ROOT,
                "run: %s; %s from %s%s%n",
                job.describe(),
                bounded ? "bounded: " + inputEnd + " records" : "unbounded",
                kafkaOptions.bootstrap,
                restored == null ? "" : ", restored from " + restored);
        ProgressReporter progress =
                new ProgressReporter(kafka, outputs, outputStart, bounded ? List.of() : job.inputs());
        progress.start();
        long start = System.nanoTime();
        // An unbounded run ends with Ctrl-C or a kill: it still says what it committed on the way out.
        java.util.concurrent.atomic.AtomicBoolean stopping = new java.util.concurrent.atomic.AtomicBoolean();
        Thread onStop = bounded
                ? null
                : new Thread(
                        () -> {
                            stopping.set(true);
                            progress.interrupt();
                            try {
                                System.err.println("run: stopped; the records committed to the output topics:");
                                System.out.print(committedTable(kafka, outputs, outputFrom, System.nanoTime() - start));
                                System.out.flush();
                            } catch (Exception e) {
                                System.err.println("run: stopped (the committed records could not be counted: "
                                        + Failures.message(e) + ")");
                            }
                        },
                        "gpusched-run-summary");
        if (onStop != null) Runtime.getRuntime().addShutdownHook(onStop);
        JobExecutionResult result;
        try {
            result = env.execute(job.name() + (bounded ? " (bounded)" : ""));
        } catch (Exception e) {
            if (stopping.get()) {
                onStop.join(); // the job failed because the JVM is stopping: the summary is the hook's to print
                return ExitCode.OK;
            }
            String unusable = checkpointDir == null ? null : RetainedState.unusable(checkpointDir);
            if (unusable == null) throw e;
            PrintWriter err = spec.commandLine().getErr();
            err.println("gpusched run: --checkpoint-dir " + unusable + "; the job cannot write its checkpoints and"
                    + " stopped after " + MAX_FAILURES + " failures (" + Failures.message(e) + ")");
            err.flush();
            return ExitCode.BAD_INPUT;
        } finally {
            progress.interrupt();
            if (onStop != null) {
                try {
                    Runtime.getRuntime().removeShutdownHook(onStop);
                } catch (IllegalStateException shuttingDown) {
                    // the hook runs now and prints the summary
                }
            }
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        if (!result.isJobExecutionResult()) {
            System.out.println("submitted job " + result.getJobID() + " (detached)");
            return ExitCode.OK;
        }
        org.gpusched.streaming.powerflow.PowerflowRunDirectory.LiveSummary live = null;
        if (staged != null && powerflowSettings != null) {
            live = org.gpusched.streaming.powerflow.PowerflowRunDirectory.writeLive(
                    runParts,
                    staged.dir(),
                    powerflowSettings,
                    "kafka " + kafkaOptions.bootstrap + " " + String.join(",", job.inputs()));
            CliFiles.deleteParts(runParts);
            staged.commit();
        }
        List<RunDirectoryWriter.Summary> summaries =
                staged == null || live != null ? List.of() : writeRunDirectories(staged);
        Map<String, Long> written = committed(kafka, outputs, outputFrom);
        PrintWriter stdout = spec.commandLine().getOut();
        long read = inputEnd.values().stream().mapToLong(Long::longValue).sum();
        int width = 12;
        for (String t : inputEnd.keySet()) width = Math.max(width, t.length());
        for (String t : written.keySet()) width = Math.max(width, t.length());
        String row = "%-" + width + "s %,12d  (%s)%n";
        stdout.printf(Locale.ROOT, "%-" + width + "s %12s%n", "topic", "records");
        inputEnd.forEach((t, n) -> stdout.printf(Locale.ROOT, row, t, n, "read"));
        written.forEach((t, n) -> stdout.printf(Locale.ROOT, row, t, n, "written"));
        stdout.printf(
                Locale.ROOT,
                "%-" + width + "s %12.2f s  (%,.0f input records/s)%n",
                "wall time",
                seconds,
                read / seconds);
        stdout.printf(
                Locale.ROOT,
                "%-" + width + "s %12.2f s  (the Flink job alone, without start-up)%n",
                "job runtime",
                result.getNetRuntime() / 1000.0);
        stdout.flush();
        if (staged == null) return ExitCode.OK;
        stdout.println();
        if (live != null) {
            stdout.printf(
                    Locale.ROOT,
                    "%d jobs completed: mean JCT %.1f s, energy %.6f kWh from the telemetry received%n"
                            + "run directory %s (gpusched validate %s)%n",
                    live.jobs(),
                    live.meanJctSeconds(),
                    live.energyKWh(),
                    out,
                    out);
            stdout.flush();
            return ExitCode.OK;
        }
        ReplayCommand.printSummary(stdout, summaries);
        stdout.printf(
                Locale.ROOT,
                "run directory %s (gpusched validate %s; gpusched report %s --out REPORT_DIR)%n",
                out,
                out,
                out);
        stdout.flush();
        return summaries.stream().anyMatch(s -> s.completedJobs() != s.acceptedJobs())
                ? ExitCode.FINDINGS
                : ExitCode.OK;
    }

    /**
     * Records committed to each output topic since {@code from}, read back read_committed: end offsets also count
     * transaction markers and aborted records.
     */
    private Map<String, Long> committed(KafkaSettings kafka, List<String> outputs, Map<String, Map<Integer, Long>> from)
            throws java.io.IOException {
        Map<String, Long> written = new LinkedHashMap<>();
        try (TopicReader reader = new TopicReader(kafka)) {
            for (String t : outputs)
                written.put(
                        t,
                        reader.count(
                                Topics.byTopic(t.substring(kafkaOptions.topicPrefix.length())),
                                kafkaOptions.topicPrefix,
                                from.get(t)));
        }
        return written;
    }

    /** The table of committed records an unbounded run prints when it is stopped. */
    private String committedTable(
            KafkaSettings kafka, List<String> outputs, Map<String, Map<Integer, Long>> from, long nanos)
            throws java.io.IOException {
        Map<String, Long> written = committed(kafka, outputs, from);
        int width = 12;
        for (String t : written.keySet()) width = Math.max(width, t.length());
        StringBuilder table =
                new StringBuilder(String.format(Locale.ROOT, "%-" + width + "s %12s%n", "topic", "records"));
        for (var w : written.entrySet())
            table.append(
                    String.format(Locale.ROOT, "%-" + width + "s %,12d  (%s)%n", w.getKey(), w.getValue(), "written"));
        table.append(String.format(Locale.ROOT, "%-" + width + "s %12.2f s%n", "wall time", nanos / 1e9));
        return table.toString();
    }

    /** --out: the run directory of each policy from the part files the job wrote beside the topics, renamed into place. */
    private List<RunDirectoryWriter.Summary> writeRunDirectories(StagedDirectory staged) throws java.io.IOException {
        SchedulerConfig cfg = schedulerConfig;
        Map<String, Object> inputs = new LinkedHashMap<>();
        inputs.put(
                "source", "kafka " + kafkaOptions.bootstrap + " " + Topics.SUBMISSIONS.topic(kafkaOptions.topicPrefix));
        CliFiles.putCluster(inputs, cluster);
        List<RunDirectoryWriter.Summary> summaries = new ArrayList<>();
        for (String policy : cfg.policies()) {
            Path dir = cfg.policies().size() == 1 ? staged.dir() : staged.dir().resolve(policy);
            summaries.add(RunDirectoryWriter.write(runParts, dir, cfg, policy, inputs));
        }
        CliFiles.deleteParts(runParts);
        staged.commit();
        return summaries;
    }

    /** The job's Flink configuration from the options (before checkpoint storage and restore point). */
    Configuration flinkConfiguration() {
        Configuration flink = new Configuration();
        flink.set(CoreOptions.DEFAULT_PARALLELISM, parallelism);
        flink.set(EmbeddedFlink.BIND_ADDRESS, bindAddress);
        if (!scheduler.options().get(SchedulerOptions.CHECKPOINT_INTERVAL).isZero()) {
            // As conf/config.yaml on a cluster: checkpoints complete while a backlog keeps the job back-pressured
            // (docs/reliability.md, checkpoints under back pressure).
            flink.set(CheckpointingOptions.ENABLE_UNALIGNED, true);
            flink.set(CheckpointingOptions.ENABLE_UNALIGNED_INTERRUPTIBLE_TIMERS, true);
            if (EmbeddedFlink.isLocal()) restartsWithinBounds(flink);
        }
        return flink;
    }

    /**
     * The embedded cluster's restarts: as many as a run needs to ride out a broker outage or a lost task, but not
     * forever. Flink's default with checkpoints restarts without end, so a job that cannot write or read its
     * checkpoints (its checkpoint directory made impossible under it) would loop and never exit; with this it fails at
     * its {@link #MAX_FAILURES}th failure within {@link #RESTART_WINDOW}, and the run says why. A session cluster's own
     * configuration decides there (conf/config.yaml: 10 restarts).
     */
    static void restartsWithinBounds(Configuration flink) {
        flink.set(RestartStrategyOptions.RESTART_STRATEGY, "failure-rate");
        flink.set(RestartStrategyOptions.RESTART_STRATEGY_FAILURE_RATE_MAX_FAILURES_PER_INTERVAL, MAX_FAILURES);
        flink.set(RestartStrategyOptions.RESTART_STRATEGY_FAILURE_RATE_FAILURE_RATE_INTERVAL, RESTART_WINDOW);
        flink.set(RestartStrategyOptions.RESTART_STRATEGY_FAILURE_RATE_DELAY, Duration.ofSeconds(1));
    }

    /** The failures within {@link #RESTART_WINDOW} at which an embedded run stops restarting and fails. */
    static final int MAX_FAILURES = 5;

    static final Duration RESTART_WINDOW = Duration.ofMinutes(10);

    /**
     * Checkpoint storage and restore point into the Flink configuration; returns the snapshot restored from, or null
     * (none, or none usable: message printed when --restore was given).
     */
    private String durableState(Configuration flink) throws java.io.IOException {
        PrintWriter err = spec.commandLine().getErr();
        if (checkpointDir != null) {
            Path dir = checkpointDir.toAbsolutePath().normalize();
            java.nio.file.Files.createDirectories(dir);
            flink.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, dir.toUri().toString());
            flink.set(
                    CheckpointingOptions.SAVEPOINT_DIRECTORY,
                    dir.resolve(RetainedState.SAVEPOINTS).toUri().toString());
            flink.set(
                    CheckpointingOptions.EXTERNALIZED_CHECKPOINT_RETENTION,
                    ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION);
        }
        if (restore == null) return null;
        Path snapshot;
        try {
            snapshot = RetainedState.resolve(
                    restore,
                    checkpointDir == null
                            ? null
                            : checkpointDir.toAbsolutePath().normalize());
        } catch (IllegalArgumentException e) {
            err.println("gpusched run: " + e.getMessage());
            err.flush();
            return null;
        }
        if (schedulerConfig != null) {
            // the job's own guard refuses it too, but only once a cluster has started and the state is restored
            var recorded = RetainedState.recordedSettings(snapshot);
            if (recorded.isPresent()) {
                JobSettings.Comparison c = JobSettings.compare(recorded.get(), JobSettings.of(schedulerConfig));
                if (c.refused(restoreNewSettings)) {
                    err.println("gpusched run: --restore " + snapshot + ": " + c.message(restoreNewSettings));
                    err.flush();
                    return null;
                }
                if (!c.same()) err.println("run: --restore " + snapshot + ": " + c.message(true));
            }
        }
        err.flush();
        flink.set(StateRecoveryOptions.SAVEPOINT_PATH, snapshot.toUri().toString());
        return snapshot.toString();
    }

    /**
     * Every 5 s, the records written to each output topic; for an unbounded run, a line when its inputs and outputs
     * have not moved since the last one (waiting for input), said once until they move again.
     */
    private static final class ProgressReporter extends Thread {
        private final KafkaSettings kafka;
        private final List<String> outputs;
        private final Map<String, Long> start;
        private final List<String> inputs;

        ProgressReporter(KafkaSettings kafka, List<String> outputs, Map<String, Long> start, List<String> inputs) {
            super("gpusched-run-progress");
            setDaemon(true);
            this.kafka = kafka;
            this.outputs = outputs;
            this.start = start;
            this.inputs = inputs;
        }

        @Override
        public void run() {
            long t0 = System.nanoTime();
            Map<String, Long> before = null;
            boolean waitingSaid = false;
            try (TopicOffsets offsets = new TopicOffsets(kafka.clientConfig())) {
                while (!isInterrupted()) {
                    Thread.sleep(5000);
                    Map<String, Long> ends = offsets.endOffsets(outputs);
                    if (!inputs.isEmpty()) {
                        Map<String, Long> now = new LinkedHashMap<>(ends);
                        now.putAll(offsets.endOffsets(inputs));
                        boolean idle = now.equals(before);
                        before = now;
                        if (idle && !waitingSaid)
                            System.err.println(
                                    "run: waiting for input: no new record on " + String.join(", ", inputs)
                                            + " and nothing written for 5 s (Ctrl-C stops the run and prints what it committed)");
                        waitingSaid = idle;
                        if (idle) continue;
                    }
                    StringBuilder line =
                            new StringBuilder(String.format(Locale.ROOT, "  %6.0f s", (System.nanoTime() - t0) / 1e9));
                    ends.forEach((t, end) -> {
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
