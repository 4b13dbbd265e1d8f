package org.gpusched.streaming;

import static org.gpusched.streaming.SchedulerOptions.CHECKPOINT_INTERVAL;
import static org.gpusched.streaming.SchedulerOptions.CLUSTER_FILE;
import static org.gpusched.streaming.SchedulerOptions.CONTROLLERS;
import static org.gpusched.streaming.SchedulerOptions.DISPATCH;
import static org.gpusched.streaming.SchedulerOptions.IDLE_TIMEOUT;
import static org.gpusched.streaming.SchedulerOptions.ITERATIONS_WITHOUT_GAIN;
import static org.gpusched.streaming.SchedulerOptions.MAX_ITERATIONS;
import static org.gpusched.streaming.SchedulerOptions.MODE;
import static org.gpusched.streaming.SchedulerOptions.MOVE_OVERHEAD_SECONDS;
import static org.gpusched.streaming.SchedulerOptions.MU;
import static org.gpusched.streaming.SchedulerOptions.NOISE;
import static org.gpusched.streaming.SchedulerOptions.OPTIMIZER_SCOPE;
import static org.gpusched.streaming.SchedulerOptions.OPTIMIZER_THREADS;
import static org.gpusched.streaming.SchedulerOptions.OUT_OF_ORDERNESS;
import static org.gpusched.streaming.SchedulerOptions.PERIOD_SECONDS;
import static org.gpusched.streaming.SchedulerOptions.POLICIES;
import static org.gpusched.streaming.SchedulerOptions.RHO;
import static org.gpusched.streaming.SchedulerOptions.SEED;
import static org.gpusched.streaming.SchedulerOptions.SNAPSHOT_INTERVAL_SECONDS;
import static org.gpusched.streaming.SchedulerOptions.STABILITY;
import static org.gpusched.streaming.SchedulerOptions.WATERMARK_INTERVAL;

import java.io.Serializable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apache.flink.configuration.Configuration;
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
 * The whole configuration of one scheduler job, immutable and validated on {@link Builder#build()}, from the options
 * of {@link SchedulerOptions} (set by CLI flags, a Flink configuration file or the builder). Serializable so operators carry it; the
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

    /**
     * The part of the cluster an optimizer re-decides at each event: every node and running job (ALL_NODES, the
     * papers), or the nodes with room, free GPUs or switched off, and the jobs on them (NODES_WITH_ROOM: the jobs of
     * full nodes keep running where they are), or ALL_NODES for a controller of at most {@value
     * RoomScope#WHOLE_CLUSTER_NODES} nodes and NODES_WITH_ROOM for a larger one (AUTO).
     */
    public enum OptimizerScope {
        ALL_NODES,
        NODES_WITH_ROOM,
        AUTO
    }

    /** A value of -1 ms: emit no watermark before the end of a bounded input (file replay: fully order-independent). */
    public static final Duration END_OF_INPUT_WATERMARK = Duration.ofMillis(-1);

    /** A node type as plain values. */
    public record TypeSpec(String name, String gpuModel, int gpus, double[] costPerHour) implements Serializable {}

    /** A node as plain values (fixedType null = rightsizable). */
    public record NodeSpec(String id, String fixedType, List<String> allowedTypes) implements Serializable {}

    private final List<String> policies;
    private final long seed;
    private final int maxIterations;
    private final int optimizerThreads;
    private final String iterationsWithoutGain;
    private final int controllers;
    private final Dispatch dispatch;
    private final double noise;
    private final Stability stability;
    private final OptimizerScope optimizerScope;
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
    private final boolean restoreNewSettings;
    private transient Cluster cluster;

    /**
     * The configuration of {@code options} (every {@link SchedulerOptions} key, its default when unset) on {@code spec}'s
     * cluster: the options are checked in one pass ({@link SchedulerOptions#validate}), then against the cluster.
     */
    private SchedulerConfig(
            Configuration options, ClusterSpec spec, boolean unboundedInputs, boolean restoreNewSettings) {
        Objects.requireNonNull(spec, "cluster is required");
        SchedulerOptions.validate(options);
        ObjectiveParameters fileObjective = spec.objective();
        this.policies = List.copyOf(options.get(POLICIES));
        this.seed = options.get(SEED);
        this.maxIterations = options.get(MAX_ITERATIONS);
        this.optimizerThreads = options.get(OPTIMIZER_THREADS);
        this.iterationsWithoutGain = options.get(ITERATIONS_WITHOUT_GAIN);
        this.controllers = options.get(CONTROLLERS);
        this.dispatch = options.get(DISPATCH);
        this.noise = options.get(NOISE);
        this.stability = options.get(STABILITY);
        this.optimizerScope = options.get(OPTIMIZER_SCOPE);
        this.moveOverheadSeconds = options.get(MOVE_OVERHEAD_SECONDS);
        this.snapshotIntervalSeconds = options.get(SNAPSHOT_INTERVAL_SECONDS);
        this.mode = options.get(MODE);
        this.checkpointInterval = options.get(CHECKPOINT_INTERVAL);
        this.rho = options.getOptional(RHO).orElse(fileObjective.rho());
        this.mu = options.getOptional(MU).orElse(fileObjective.mu());
        this.horizonSeconds = options.getOptional(PERIOD_SECONDS).orElse(fileObjective.horizonSeconds());
        this.periodSeconds = this.horizonSeconds;
        this.outOfOrderness = options.get(OUT_OF_ORDERNESS);
        this.idleTimeout = options.get(IDLE_TIMEOUT);
        this.watermarkInterval = options.get(WATERMARK_INTERVAL);
        this.unboundedInputs = unboundedInputs;
        this.restoreNewSettings = restoreNewSettings;
        List<TypeSpec> t = new ArrayList<>();
        for (NodeType type : spec.cluster().types())
            t.add(new TypeSpec(type.name(), type.gpuModel(), type.gpus(), type.costPerHour()));
        List<NodeSpec> n = new ArrayList<>();
        for (Node node : spec.cluster().nodes())
            n.add(new NodeSpec(node.id(), node.fixedType(), List.copyOf(node.allowedTypes())));
        this.types = List.copyOf(t);
        this.nodes = List.copyOf(n);
        validateAgainstCluster();
    }

    /** The checks that need more than one option, or the cluster. */
    private void validateAgainstCluster() {
        for (String p : policies) {
            if (!Policies.names().contains(p))
                throw new IllegalArgumentException(
                        "unknown policy '" + p + "' (known: " + String.join(", ", Policies.names()) + ")");
        }
        if (policies.stream().distinct().count() != policies.size())
            throw new IllegalArgumentException("policy listed twice: " + policies);
        if (controllers > nodes.size())
            throw new SchedulerOptions.InvalidOptionException(
                    SchedulerOptions.byKey(CONTROLLERS.key()).orElseThrow(),
                    "must not exceed the cluster's nodes (" + nodes.size()
                            + "): each controller owns nodes i mod K, got " + controllers);
        if (!(periodSeconds > 0) || Double.isInfinite(periodSeconds))
            throw new IllegalArgumentException("period must be > 0 seconds, got " + periodSeconds);
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

    /** {@link SchedulerOptions#ITERATIONS_WITHOUT_GAIN} as given: a count, or {@value SchedulerOptions#AUTO}. */
    public String iterationsWithoutGainSetting() {
        return iterationsWithoutGain;
    }

    /**
     * How many iterations in a row without a better construction end a randomized call (0: never). Under
     * {@value SchedulerOptions#AUTO}, three tenths of MaxIt with K > 1 controllers on a cluster of rightsizable nodes
     * (VMs leased as a type, the hierarchical paper's setting), where the many small calls are most of a run's time
     * and stopping halves a K = 200 run for under 0.5 % of cost; 0 otherwise. On fixed nodes (ANDREAS) it cost up to
     * 5.5 % more on the loaded instances and saved no time (docs/benchmarks-scale.md); with one controller every
     * iteration runs, as in the papers.
     */
    public int iterationsWithoutGain() {
        if (!iterationsWithoutGain.equals(SchedulerOptions.AUTO)) return Integer.parseInt(iterationsWithoutGain);
        boolean allRightsizable = nodes.stream().allMatch(n -> n.fixedType() == null);
        return controllers > 1 && allRightsizable ? Math.max(1, (int) (maxIterations * 3L / 10)) : 0;
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

    public OptimizerScope optimizerScope() {
        return optimizerScope;
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

    /**
     * Whether a restore from a checkpoint made with other values of the settings a restore may change (iterations,
     * stability, ...: {@link JobSettings}) goes on with this configuration's, instead of being refused.
     */
    public boolean restoreNewSettings() {
        return restoreNewSettings;
    }

    public boolean watermarkAtEndOfInputOnly() {
        return outOfOrderness.equals(END_OF_INPUT_WATERMARK);
    }

    public ObjectiveParameters objective() {
        return new ObjectiveParameters(rho, horizonSeconds, mu);
    }

    /** f_OBJ as the optimizers are given it: {@link #objective()}, charging moves under {@link Stability#STABLE}. */
    public ObjectiveParameters optimizerObjective() {
        return objective().withChargedMoves(stability == Stability.STABLE);
    }

    public PolicyConfig policyConfig() {
        return PolicyConfig.DEFAULTS
                .withMaxIterations(maxIterations)
                .withThreads(optimizerThreads)
                .withIterationsWithoutGain(iterationsWithoutGain());
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
        b.options.set(POLICIES, policies);
        b.options.set(SEED, seed);
        b.options.set(MAX_ITERATIONS, maxIterations);
        b.options.set(OPTIMIZER_THREADS, optimizerThreads);
        b.options.set(ITERATIONS_WITHOUT_GAIN, iterationsWithoutGain);
        b.options.set(CONTROLLERS, controllers);
        b.options.set(DISPATCH, dispatch);
        b.options.set(NOISE, noise);
        b.options.set(STABILITY, stability);
        b.options.set(OPTIMIZER_SCOPE, optimizerScope);
        b.options.set(MOVE_OVERHEAD_SECONDS, moveOverheadSeconds);
        b.options.set(SNAPSHOT_INTERVAL_SECONDS, snapshotIntervalSeconds);
        b.options.set(PERIOD_SECONDS, periodSeconds);
        b.options.set(MODE, mode);
        b.options.set(CHECKPOINT_INTERVAL, checkpointInterval);
        b.options.set(RHO, rho);
        b.options.set(MU, mu);
        b.options.set(OUT_OF_ORDERNESS, outOfOrderness);
        b.options.set(IDLE_TIMEOUT, idleTimeout);
        b.options.set(WATERMARK_INTERVAL, watermarkInterval);
        b.cluster = new ClusterSpec(cluster(), objective());
        b.unboundedInputs = unboundedInputs;
        b.restoreNewSettings = restoreNewSettings;
        return b;
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * The configuration from Flink options ({@code flink run} / config.yaml), reading the cluster file named by
     * {@link SchedulerOptions#CLUSTER_FILE}.
     */
    public static SchedulerConfig fromConfiguration(ReadableConfig conf) {
        String clusterFile = conf.getOptional(CLUSTER_FILE)
                .orElseThrow(
                        () -> new IllegalArgumentException(CLUSTER_FILE.key() + " (cluster YAML file) is required"));
        return builder()
                .options(conf)
                .cluster(ClusterYaml.read(java.nio.file.Path.of(clusterFile)))
                .build();
    }

    @Override
    public String toString() {
        return "SchedulerConfig{policies=" + policies + ", seed=" + seed + ", maxIterations=" + maxIterations
                + ", iterationsWithoutGain=" + iterationsWithoutGain
                + ", controllers=" + controllers + ", dispatch=" + dispatch
                + ", noise=" + noise + ", stability=" + stability + ", optimizerScope=" + optimizerScope
                + ", moveOverheadSeconds=" + moveOverheadSeconds
                + ", snapshotIntervalSeconds=" + snapshotIntervalSeconds
                + ", periodSeconds=" + periodSeconds + ", mode=" + mode + ", rho=" + rho + ", mu=" + mu
                + ", nodes=" + nodes.size() + ", types=" + types.size() + "}";
    }

    /**
     * Sets options by name in a Flink {@link Configuration}; what is not set keeps its {@link SchedulerOptions} default
     * (H, rho and mu: the cluster file's).
     */
    public static final class Builder {
        private final Configuration options = new Configuration();
        private ClusterSpec cluster;
        private boolean unboundedInputs;
        private boolean restoreNewSettings;

        /** Every {@link SchedulerOptions} key set in {@code conf}, over what this builder holds. */
        public Builder options(ReadableConfig conf) {
            // a Configuration keeps its typed values (text would lose the -1 ms of an end-of-input watermark)
            options.addAll(conf instanceof Configuration c ? c : Configuration.fromMap(conf.toMap()));
            return this;
        }

        public Builder policies(List<String> v) {
            options.set(POLICIES, List.copyOf(v));
            return this;
        }

        public Builder policy(String v) {
            return policies(List.of(v));
        }

        public Builder seed(long v) {
            options.set(SEED, v);
            return this;
        }

        public Builder maxIterations(int v) {
            options.set(MAX_ITERATIONS, v);
            return this;
        }

        /** A count of iterations (0: every one), or {@value SchedulerOptions#AUTO}. */
        public Builder iterationsWithoutGain(String v) {
            options.set(ITERATIONS_WITHOUT_GAIN, Objects.requireNonNull(v));
            return this;
        }

        public Builder optimizerThreads(int v) {
            options.set(OPTIMIZER_THREADS, v);
            return this;
        }

        public Builder controllers(int v) {
            options.set(CONTROLLERS, v);
            return this;
        }

        public Builder dispatch(Dispatch v) {
            options.set(DISPATCH, Objects.requireNonNull(v));
            return this;
        }

        public Builder noise(double v) {
            options.set(NOISE, v);
            return this;
        }

        public Builder stability(Stability v) {
            options.set(STABILITY, Objects.requireNonNull(v));
            return this;
        }

        public Builder optimizerScope(OptimizerScope v) {
            options.set(OPTIMIZER_SCOPE, Objects.requireNonNull(v));
            return this;
        }

        public Builder moveOverheadSeconds(double v) {
            options.set(MOVE_OVERHEAD_SECONDS, v);
            return this;
        }

        public Builder snapshotIntervalSeconds(double v) {
            options.set(SNAPSHOT_INTERVAL_SECONDS, v);
            return this;
        }

        public Builder periodSeconds(double v) {
            options.set(PERIOD_SECONDS, v);
            return this;
        }

        public Builder mode(Mode v) {
            options.set(MODE, Objects.requireNonNull(v));
            return this;
        }

        public Builder checkpointInterval(Duration v) {
            options.set(CHECKPOINT_INTERVAL, Objects.requireNonNull(v));
            return this;
        }

        public Builder cluster(ClusterSpec v) {
            cluster = v;
            return this;
        }

        public Builder rho(double v) {
            options.set(RHO, v);
            return this;
        }

        public Builder mu(double v) {
            options.set(MU, v);
            return this;
        }

        public Builder outOfOrderness(Duration v) {
            options.set(OUT_OF_ORDERNESS, Objects.requireNonNull(v));
            return this;
        }

        public Builder idleTimeout(Duration v) {
            options.set(IDLE_TIMEOUT, Objects.requireNonNull(v));
            return this;
        }

        public Builder watermarkInterval(Duration v) {
            options.set(WATERMARK_INTERVAL, Objects.requireNonNull(v));
            return this;
        }

        public Builder unboundedInputs(boolean v) {
            unboundedInputs = v;
            return this;
        }

        public Builder restoreNewSettings(boolean v) {
            restoreNewSettings = v;
            return this;
        }

        public SchedulerConfig build() {
            return new SchedulerConfig(options, cluster, unboundedInputs, restoreNewSettings);
        }
    }
}
