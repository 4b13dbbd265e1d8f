package org.gpusched.streaming;

import java.io.Serializable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.ReadableConfig;
import org.gpusched.core.model.Cluster;
import org.gpusched.core.model.MoveCost;
import org.gpusched.core.model.Node;
import org.gpusched.core.model.NodeType;
import org.gpusched.core.objective.ObjectiveParameters;
import org.gpusched.core.policy.Policies;
import org.gpusched.core.policy.PolicyConfig;
import org.gpusched.formats.ClusterSpec;
import org.gpusched.formats.ClusterYaml;

/**
 * The whole configuration of one scheduler job, immutable and validated on {@link Builder#build()}; built from CLI
 * flags or from Flink {@link ConfigOption}s ({@link #fromConfiguration}). Serializable so operators carry it; the
 * cluster is kept as plain values and rebuilt with {@link #cluster()}.
 */
public final class SchedulerConfig implements Serializable {
    private static final long serialVersionUID = 1L;

    /** Replay: completions are simulated from the trace's times; live: completions and telemetry come from topics. */
    public enum Mode {
        REPLAY,
        LIVE
    }

    /**
     * How the central queue deals submissions to the K controllers. ROUND_ROBIN is the hierarchical paper's rule;
     * GPU_WEIGHTED deals them in proportion to each controller's GPUs (smooth weighted round robin), so that
     * controllers of unequal capacity get unequal shares (with equal capacities it deals as round robin does).
     */
    public enum Dispatch {
        ROUND_ROBIN,
        GPU_WEIGHTED
    }

    /**
     * Whether an optimizer's plan is carried out as given (PAPER: the papers, where moving a running job is free) or
     * only with the moves that pay for their overhead, on nodes matched to the running ones (STABLE).
     */
    public enum Stability {
        PAPER,
        STABLE
    }

    /** A value of -1 ms: emit no watermark before the end of a bounded input (file replay: fully order-independent). */
    public static final Duration END_OF_INPUT_WATERMARK = Duration.ofMillis(-1);

    /** A move's checkpoint and restart: a few minutes for a training job's state. */
    public static final double DEFAULT_MOVE_OVERHEAD_SECONDS = 300;

    /** How often a running job snapshots its state (ANDREAS: "every few epochs"): ten minutes of progress. */
    public static final double DEFAULT_SNAPSHOT_INTERVAL_SECONDS = 600;

    public static final ConfigOption<List<String>> POLICIES = ConfigOptions.key("gpusched.policies")
            .stringType()
            .asList()
            .defaultValues("andreas-rg")
            .withDescription("Policies to run; each gets its own keyed pipeline over the same events.");
    public static final ConfigOption<Long> SEED = ConfigOptions.key("gpusched.seed")
            .longType()
            .defaultValue(1L)
            .withDescription("Seed of the policies' random state and of the replay noise.");
    public static final ConfigOption<Integer> MAX_ITERATIONS = ConfigOptions.key("gpusched.max-iterations")
            .intType()
            .defaultValue(1000)
            .withDescription("MaxIt of the randomized policies.");
    public static final ConfigOption<Integer> OPTIMIZER_THREADS = ConfigOptions.key("gpusched.optimizer-threads")
            .intType()
            .defaultValue(PolicyConfig.DEFAULT_THREADS)
            .withDescription(
                    "Threads that run one andreas-rg or rg-ls call's randomized iterations (the same decisions for any count).");
    public static final ConfigOption<Integer> CONTROLLERS = ConfigOptions.key("gpusched.controllers")
            .intType()
            .defaultValue(1)
            .withDescription(
                    "K local controllers (hierarchical paper); jobs are dispatched round robin, node i belongs to controller i mod K.");
    public static final ConfigOption<Dispatch> DISPATCH = ConfigOptions.key("gpusched.dispatch")
            .enumType(Dispatch.class)
            .defaultValue(Dispatch.ROUND_ROBIN)
            .withDescription(
                    "How submissions are dealt to the K controllers: ROUND_ROBIN (the hierarchical paper) or GPU_WEIGHTED (round robin in proportion to each controller's GPUs).");
    public static final ConfigOption<Double> NOISE = ConfigOptions.key("gpusched.noise")
            .doubleType()
            .defaultValue(0.0)
            .withDescription("Replay noise F: real duration = predicted x U[1-F, 1+F], drawn per job from the seed.");
    public static final ConfigOption<Stability> STABILITY = ConfigOptions.key("gpusched.stability")
            .enumType(Stability.class)
            .defaultValue(Stability.STABLE)
            .withDescription(
                    "STABLE: an optimizer's plan moves a running job only when the move pays for its overhead, on nodes matched to the running ones (PlanStabilizer); PAPER: the plan as the optimizer gives it, as in the papers (what a move costs is set apart: move overhead and snapshot interval).");
    public static final ConfigOption<Double> MOVE_OVERHEAD_SECONDS = ConfigOptions.key("gpusched.move-overhead-seconds")
            .doubleType()
            .defaultValue(DEFAULT_MOVE_OVERHEAD_SECONDS)
            .withDescription(
                    "Time a running job spends restoring its last snapshot after a move (migration, resize) or when it starts again after a preemption, on the GPUs it is given, in seconds; charged in the real cost and seen by f_OBJ; with STABLE stability a move must also gain more than its weight and node rate over this time.");
    public static final ConfigOption<Double> SNAPSHOT_INTERVAL_SECONDS = ConfigOptions.key(
                    "gpusched.snapshot-interval-seconds")
            .doubleType()
            .defaultValue(DEFAULT_SNAPSHOT_INTERVAL_SECONDS)
            .withDescription(
                    "A running job snapshots its state every this many seconds of progress on its placement; a preempted, migrated or resized job loses the progress since its last snapshot (0: nothing lost; with a move overhead of 0, the papers' free preemption).");
    public static final ConfigOption<Double> PERIOD_SECONDS = ConfigOptions.key("gpusched.period-seconds")
            .doubleType()
            .noDefaultValue()
            .withDescription(
                    "H: periodic rescheduling interval in seconds (default: the cluster file's objective.horizonSeconds).");
    public static final ConfigOption<Mode> MODE = ConfigOptions.key("gpusched.mode")
            .enumType(Mode.class)
            .defaultValue(Mode.REPLAY)
            .withDescription("replay (simulated completions) or live (completions and telemetry from topics).");
    public static final ConfigOption<Duration> CHECKPOINT_INTERVAL = ConfigOptions.key("gpusched.checkpoint-interval")
            .durationType()
            .defaultValue(Duration.ZERO)
            .withDescription("Checkpoint interval; 0 disables checkpointing.");
    public static final ConfigOption<String> CLUSTER_FILE = ConfigOptions.key("gpusched.cluster")
            .stringType()
            .noDefaultValue()
            .withDescription("Cluster YAML file (read by the client when the job is defined).");
    public static final ConfigOption<Double> RHO = ConfigOptions.key("gpusched.objective.rho")
            .doubleType()
            .noDefaultValue()
            .withDescription("f_OBJ postponement penalty (default: cluster file, else 100).");
    public static final ConfigOption<Double> MU = ConfigOptions.key("gpusched.objective.mu")
            .doubleType()
            .noDefaultValue()
            .withDescription("f_OBJ idle-GPU cost (default: cluster file, else 0).");
    public static final ConfigOption<Duration> OUT_OF_ORDERNESS = ConfigOptions.key("gpusched.out-of-orderness")
            .durationType()
            .defaultValue(Duration.ZERO)
            .withDescription(
                    "Bounded out-of-orderness of input event times; -1 ms = watermark only at the end of a bounded input.");
    public static final ConfigOption<Duration> WATERMARK_INTERVAL = ConfigOptions.key("gpusched.watermark-interval")
            .durationType()
            .defaultValue(Duration.ofMillis(20))
            .withDescription("How often the inputs' watermarks advance (Flink's auto-watermark interval): "
                    + "the longest an event waits in the buffers for event time to pass it.");
    public static final ConfigOption<Duration> IDLE_TIMEOUT = ConfigOptions.key("gpusched.idle-timeout")
            .durationType()
            .defaultValue(Duration.ofSeconds(5))
            .withDescription(
                    "An input idle this long stops holding the watermark back (live mode, and unbounded inputs in replay mode).");

    /** A node type as plain values. */
    public record TypeSpec(String name, String gpuModel, int gpus, double[] costPerHour) implements Serializable {}

    /** A node as plain values (fixedType null = rightsizable). */
    public record NodeSpec(String id, String fixedType, List<String> allowedTypes) implements Serializable {}

    private final List<String> policies;
    private final long seed;
    private final int maxIterations;
    private final int optimizerThreads;
    private final int controllers;
    private final Dispatch dispatch;
    private final double noise;
    private final Stability stability;
    private final double moveOverheadSeconds;
    private final double snapshotIntervalSeconds;
    private final double periodSeconds;
    private final Mode mode;
    private final Duration checkpointInterval;
    private final List<TypeSpec> types;
    private final List<NodeSpec> nodes;
    private final double rho;
    private final double horizonSeconds;
    private final double mu;
    private final Duration outOfOrderness;
    private final Duration idleTimeout;
    private final Duration watermarkInterval;
    private final boolean unboundedInputs;
    private transient Cluster cluster;

    private SchedulerConfig(Builder b) {
        ClusterSpec spec = Objects.requireNonNull(b.cluster, "cluster is required");
        ObjectiveParameters fileObjective = spec.objective();
        this.policies = List.copyOf(b.policies);
        this.seed = b.seed;
        this.maxIterations = b.maxIterations;
        this.optimizerThreads = b.optimizerThreads;
        this.controllers = b.controllers;
        this.dispatch = b.dispatch;
        this.noise = b.noise;
        this.stability = b.stability;
        this.moveOverheadSeconds = b.moveOverheadSeconds;
        this.snapshotIntervalSeconds = b.snapshotIntervalSeconds;
        this.mode = b.mode;
        this.checkpointInterval = b.checkpointInterval;
        this.rho = b.rho != null ? b.rho : fileObjective.rho();
        this.mu = b.mu != null ? b.mu : fileObjective.mu();
        this.horizonSeconds = b.periodSeconds != null ? b.periodSeconds : fileObjective.horizonSeconds();
        this.periodSeconds = this.horizonSeconds;
        this.outOfOrderness = b.outOfOrderness;
        this.idleTimeout = b.idleTimeout;
        this.watermarkInterval = b.watermarkInterval;
        this.unboundedInputs = b.unboundedInputs;
        List<TypeSpec> t = new ArrayList<>();
        for (NodeType type : spec.cluster().types())
            t.add(new TypeSpec(type.name(), type.gpuModel(), type.gpus(), type.costPerHour()));
        List<NodeSpec> n = new ArrayList<>();
        for (Node node : spec.cluster().nodes())
            n.add(new NodeSpec(node.id(), node.fixedType(), List.copyOf(node.allowedTypes())));
        this.types = List.copyOf(t);
        this.nodes = List.copyOf(n);
        validate();
    }

    private void validate() {
        if (policies.isEmpty())
            throw new IllegalArgumentException(
                    "at least one policy is required (known: " + String.join(", ", Policies.names()) + ")");
        for (String p : policies) {
            if (!Policies.names().contains(p))
                throw new IllegalArgumentException(
                        "unknown policy '" + p + "' (known: " + String.join(", ", Policies.names()) + ")");
        }
        if (policies.stream().distinct().count() != policies.size())
            throw new IllegalArgumentException("policy listed twice: " + policies);
        if (maxIterations < 1) throw new IllegalArgumentException("iterations must be >= 1, got " + maxIterations);
        if (optimizerThreads < 1)
            throw new IllegalArgumentException("optimizer threads must be >= 1, got " + optimizerThreads);
        if (controllers < 1) throw new IllegalArgumentException("controllers must be >= 1, got " + controllers);
        if (controllers > nodes.size())
            throw new IllegalArgumentException("controllers (" + controllers + ") must not exceed the cluster's nodes ("
                    + nodes.size() + "): each controller owns nodes i mod K");
        if (!(noise >= 0 && noise < 1)) throw new IllegalArgumentException("noise must be in [0, 1), got " + noise);
        if (!(moveOverheadSeconds >= 0) || Double.isInfinite(moveOverheadSeconds))
            throw new IllegalArgumentException("move overhead must be >= 0 seconds, got " + moveOverheadSeconds);
        if (!(snapshotIntervalSeconds >= 0) || Double.isInfinite(snapshotIntervalSeconds))
            throw new IllegalArgumentException(
                    "snapshot interval must be >= 0 seconds, got " + snapshotIntervalSeconds);
        if (!(periodSeconds > 0) || Double.isInfinite(periodSeconds))
            throw new IllegalArgumentException("period must be > 0 seconds, got " + periodSeconds);
        if (checkpointInterval.isNegative())
            throw new IllegalArgumentException("checkpoint interval must be >= 0, got " + checkpointInterval);
        if (outOfOrderness.isNegative() && !outOfOrderness.equals(END_OF_INPUT_WATERMARK))
            throw new IllegalArgumentException("out-of-orderness must be >= 0 (or -1 ms), got " + outOfOrderness);
        if (watermarkInterval.toMillis() < 1)
            throw new IllegalArgumentException("watermark interval must be >= 1 ms, got " + watermarkInterval);
        new ObjectiveParameters(rho, horizonSeconds, mu);
        cluster();
    }

    public List<String> policies() {
        return policies;
    }

    public long seed() {
        return seed;
    }

    public int maxIterations() {
        return maxIterations;
    }

    public int optimizerThreads() {
        return optimizerThreads;
    }

    public int controllers() {
        return controllers;
    }

    public Dispatch dispatch() {
        return dispatch;
    }

    public double noise() {
        return noise;
    }

    public Stability stability() {
        return stability;
    }

    public double moveOverheadSeconds() {
        return moveOverheadSeconds;
    }

    public double snapshotIntervalSeconds() {
        return snapshotIntervalSeconds;
    }

    /** What stopping a running job costs it: the snapshot interval and the move overhead as its restart. */
    public MoveCost moveCost() {
        return new MoveCost(snapshotIntervalSeconds, moveOverheadSeconds);
    }

    public double periodSeconds() {
        return periodSeconds;
    }

    public long periodMillis() {
        return Math.max(1, Math.round(periodSeconds * 1000));
    }

    public Mode mode() {
        return mode;
    }

    public Duration checkpointInterval() {
        return checkpointInterval;
    }

    public Duration outOfOrderness() {
        return outOfOrderness;
    }

    public Duration idleTimeout() {
        return idleTimeout;
    }

    public Duration watermarkInterval() {
        return watermarkInterval;
    }
    /** Whether the inputs are topics read without end, which may go quiet (then idle inputs stop holding event time back). */
    public boolean unboundedInputs() {
        return unboundedInputs;
    }

    public boolean watermarkAtEndOfInputOnly() {
        return outOfOrderness.equals(END_OF_INPUT_WATERMARK);
    }

    public ObjectiveParameters objective() {
        return new ObjectiveParameters(rho, horizonSeconds, mu);
    }

    public PolicyConfig policyConfig() {
        return PolicyConfig.DEFAULTS.withMaxIterations(maxIterations).withThreads(optimizerThreads);
    }

    public List<TypeSpec> types() {
        return types;
    }

    public List<NodeSpec> nodes() {
        return nodes;
    }

    /** The cluster of the configuration (all nodes, before node events). */
    public Cluster cluster() {
        if (cluster == null) {
            List<NodeType> t = new ArrayList<>();
            for (TypeSpec s : types) t.add(new NodeType(s.name(), s.gpuModel(), s.gpus(), s.costPerHour()));
            List<Node> n = new ArrayList<>();
            for (NodeSpec s : nodes) n.add(new Node(s.id(), s.fixedType(), s.allowedTypes()));
            cluster = new Cluster(t, n);
        }
        return cluster;
    }

    /** Controller that owns the configured node with this index. */
    public int controllerOfNode(int nodeIndex) {
        return nodeIndex % controllers;
    }

    public Builder toBuilder() {
        Builder b = new Builder();
        b.policies = policies;
        b.seed = seed;
        b.maxIterations = maxIterations;
        b.optimizerThreads = optimizerThreads;
        b.controllers = controllers;
        b.dispatch = dispatch;
        b.noise = noise;
        b.stability = stability;
        b.moveOverheadSeconds = moveOverheadSeconds;
        b.snapshotIntervalSeconds = snapshotIntervalSeconds;
        b.periodSeconds = periodSeconds;
        b.mode = mode;
        b.checkpointInterval = checkpointInterval;
        b.cluster = new ClusterSpec(cluster(), objective());
        b.rho = rho;
        b.mu = mu;
        b.outOfOrderness = outOfOrderness;
        b.idleTimeout = idleTimeout;
        b.watermarkInterval = watermarkInterval;
        b.unboundedInputs = unboundedInputs;
        return b;
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * The configuration from Flink options ({@code flink run} / flink-conf), reading the cluster file named by
     * {@link #CLUSTER_FILE}.
     */
    public static SchedulerConfig fromConfiguration(ReadableConfig conf) {
        String clusterFile = conf.getOptional(CLUSTER_FILE)
                .orElseThrow(
                        () -> new IllegalArgumentException(CLUSTER_FILE.key() + " (cluster YAML file) is required"));
        Builder b = builder()
                .cluster(ClusterYaml.read(java.nio.file.Path.of(clusterFile)))
                .policies(conf.get(POLICIES))
                .seed(conf.get(SEED))
                .maxIterations(conf.get(MAX_ITERATIONS))
                .optimizerThreads(conf.get(OPTIMIZER_THREADS))
                .controllers(conf.get(CONTROLLERS))
                .dispatch(conf.get(DISPATCH))
                .noise(conf.get(NOISE))
                .mode(conf.get(MODE))
                .stability(conf.get(STABILITY))
                .moveOverheadSeconds(conf.get(MOVE_OVERHEAD_SECONDS))
                .snapshotIntervalSeconds(conf.get(SNAPSHOT_INTERVAL_SECONDS))
                .checkpointInterval(conf.get(CHECKPOINT_INTERVAL))
                .outOfOrderness(conf.get(OUT_OF_ORDERNESS))
                .idleTimeout(conf.get(IDLE_TIMEOUT))
                .watermarkInterval(conf.get(WATERMARK_INTERVAL));
        conf.getOptional(PERIOD_SECONDS).ifPresent(b::periodSeconds);
        conf.getOptional(RHO).ifPresent(b::rho);
        conf.getOptional(MU).ifPresent(b::mu);
        return b.build();
    }

    @Override
    public String toString() {
        return "SchedulerConfig{policies=" + policies + ", seed=" + seed + ", maxIterations=" + maxIterations
                + ", controllers=" + controllers + ", dispatch=" + dispatch
                + ", noise=" + noise + ", stability=" + stability + ", moveOverheadSeconds=" + moveOverheadSeconds
                + ", snapshotIntervalSeconds=" + snapshotIntervalSeconds
                + ", periodSeconds=" + periodSeconds + ", mode=" + mode + ", rho=" + rho + ", mu=" + mu
                + ", nodes=" + nodes.size() + ", types=" + types.size() + "}";
    }

    /** Mutable builder; defaults are the papers' (MaxIt 1000, K = 1, no noise, H from the cluster file). */
    public static final class Builder {
        private List<String> policies = List.of("andreas-rg");
        private long seed = 1;
        private int maxIterations = 1000;
        private int optimizerThreads = PolicyConfig.DEFAULT_THREADS;
        private int controllers = 1;
        private Dispatch dispatch = Dispatch.ROUND_ROBIN;
        private double noise = 0;
        private Stability stability = STABILITY.defaultValue();
        private double moveOverheadSeconds = DEFAULT_MOVE_OVERHEAD_SECONDS;
        private double snapshotIntervalSeconds = DEFAULT_SNAPSHOT_INTERVAL_SECONDS;
        private Double periodSeconds;
        private Mode mode = Mode.REPLAY;
        private Duration checkpointInterval = Duration.ZERO;
        private ClusterSpec cluster;
        private Double rho;
        private Double mu;
        private Duration outOfOrderness = Duration.ZERO;
        private Duration idleTimeout = Duration.ofSeconds(5);
        private Duration watermarkInterval = WATERMARK_INTERVAL.defaultValue();
        private boolean unboundedInputs;

        public Builder policies(List<String> v) {
            policies = List.copyOf(v);
            return this;
        }

        public Builder policy(String v) {
            policies = List.of(v);
            return this;
        }

        public Builder seed(long v) {
            seed = v;
            return this;
        }

        public Builder optimizerThreads(int v) {
            optimizerThreads = v;
            return this;
        }

        public Builder maxIterations(int v) {
            maxIterations = v;
            return this;
        }

        public Builder controllers(int v) {
            controllers = v;
            return this;
        }

        public Builder dispatch(Dispatch v) {
            dispatch = Objects.requireNonNull(v);
            return this;
        }

        public Builder noise(double v) {
            noise = v;
            return this;
        }

        public Builder stability(Stability v) {
            stability = Objects.requireNonNull(v);
            return this;
        }

        public Builder moveOverheadSeconds(double v) {
            moveOverheadSeconds = v;
            return this;
        }

        public Builder snapshotIntervalSeconds(double v) {
            snapshotIntervalSeconds = v;
            return this;
        }

        public Builder periodSeconds(double v) {
            periodSeconds = v;
            return this;
        }

        public Builder mode(Mode v) {
            mode = Objects.requireNonNull(v);
            return this;
        }

        public Builder checkpointInterval(Duration v) {
            checkpointInterval = Objects.requireNonNull(v);
            return this;
        }

        public Builder cluster(ClusterSpec v) {
            cluster = v;
            return this;
        }

        public Builder rho(double v) {
            rho = v;
            return this;
        }

        public Builder mu(double v) {
            mu = v;
            return this;
        }

        public Builder outOfOrderness(Duration v) {
            outOfOrderness = Objects.requireNonNull(v);
            return this;
        }

        public Builder idleTimeout(Duration v) {
            idleTimeout = Objects.requireNonNull(v);
            return this;
        }

        public Builder watermarkInterval(Duration v) {
            watermarkInterval = Objects.requireNonNull(v);
            return this;
        }

        public Builder unboundedInputs(boolean v) {
            unboundedInputs = v;
            return this;
        }

        public SchedulerConfig build() {
            return new SchedulerConfig(this);
        }
    }
}
