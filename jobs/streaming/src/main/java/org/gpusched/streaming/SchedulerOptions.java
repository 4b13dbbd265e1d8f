package org.gpusched.streaming;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Predicate;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.Configuration;
import org.gpusched.core.policy.PolicyConfig;
import org.gpusched.streaming.SchedulerConfig.Dispatch;
import org.gpusched.streaming.SchedulerConfig.Mode;
import org.gpusched.streaming.SchedulerConfig.OptimizerScope;
import org.gpusched.streaming.SchedulerConfig.Stability;
import org.gpusched.streaming.placement.PlacementOptions;

/**
 * Every option of the scheduler job, each declared once: its key, type, default and description (the
 * {@link ConfigOption}), its command-line flag, and the rule a value must keep ({@link #ALL}). The command line, a
 * Flink configuration file and {@link SchedulerConfig.Builder} all set these keys; {@link #validate} checks them in one
 * pass before a {@link SchedulerConfig} is made.
 */
public final class SchedulerOptions {
    private SchedulerOptions() {}

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
    public static final ConfigOption<String> ITERATIONS_WITHOUT_GAIN = ConfigOptions.key(
                    "gpusched.iterations-without-gain")
            .stringType()
            .defaultValue("auto")
            .withDescription(
                    "A randomized policy's call stops once this many iterations in a row have built nothing "
                            + "better than its best so far (checked every 8 iterations); 0: every one of MaxIt runs, as in the "
                            + "papers; auto: three tenths of MaxIt with K > 1 local controllers on rightsizable nodes (VMs), else 0.");
    public static final ConfigOption<Integer> OPTIMIZER_THREADS = ConfigOptions.key("gpusched.optimizer-threads")
            .intType()
            .defaultValue(PolicyConfig.DEFAULT_THREADS)
            .withDescription(
                    "Threads that run one andreas-rg or rg-ls call's randomized iterations and, in a call of 256 jobs or more, "
                            + "the preparation of its jobs (the same decisions for any count).");
    public static final ConfigOption<Integer> CONTROLLERS = ConfigOptions.key("gpusched.controllers")
            .intType()
            .defaultValue(1)
            .withDescription(
                    "K local controllers (hierarchical paper); node i belongs to controller i mod K, K <= nodes.");
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
    public static final ConfigOption<OptimizerScope> OPTIMIZER_SCOPE = ConfigOptions.key("gpusched.optimizer-scope")
            .enumType(OptimizerScope.class)
            .defaultValue(OptimizerScope.AUTO)
            .withDescription(
                    "What an optimizer is asked at each event: ALL_NODES, every node and every running job, re-decided (the papers); NODES_WITH_ROOM, only the nodes with a free GPU or switched off and the jobs on them, while the jobs on full nodes keep running where they are (an event costs the cluster's spare room, not its size); AUTO, ALL_NODES for a controller of at most "
                            + RoomScope.WHOLE_CLUSTER_NODES
                            + " nodes and NODES_WITH_ROOM above.");
    public static final ConfigOption<Double> MOVE_OVERHEAD_SECONDS = ConfigOptions.key("gpusched.move-overhead-seconds")
            .doubleType()
            .defaultValue(300.0)
            .withDescription(
                    "Time a running job spends restoring its last snapshot after a move (migration, resize) or when it starts again after a preemption, on the GPUs it is given, in seconds (a few minutes for a training job's state); charged in the real cost and seen by f_OBJ; with STABLE stability a move must also gain more than its weight and node rate over this time.");
    public static final ConfigOption<Double> SNAPSHOT_INTERVAL_SECONDS = ConfigOptions.key(
                    "gpusched.snapshot-interval-seconds")
            .doubleType()
            .defaultValue(600.0)
            .withDescription(
                    "A running job snapshots its state every this many seconds of progress on its placement (ANDREAS: every few epochs); a preempted, migrated or resized job loses the progress since its last snapshot (0: nothing lost; with a move overhead of 0, the papers' free preemption).");
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

    /** How a command-line value is written for a key. */
    public enum Form {
        /** As the key takes it. */
        TEXT,
        /** A comma list; the key's list is Flink's (semicolons). */
        LIST,
        /** Seconds, possibly fractional, for a duration key. */
        SECONDS,
        /** Lower-case words joined by hyphens for an enum constant (round-robin for ROUND_ROBIN). */
        WORDS
    }

    /**
     * One option: its key, type and default ({@code option}), the flag that sets it on the command line (null: none),
     * how the flag writes a value, and the rule a value keeps ({@code valid}, said by {@code rule}).
     */
    public record Setting<T>(ConfigOption<T> option, String flag, Form form, Predicate<T> valid, String rule) {
        public String key() {
            return option.key();
        }

        /** The default as the flag writes it, or null when there is none (the description says what is used). */
        public String flagDefault() {
            return option.hasDefaultValue() ? flagText(option.defaultValue()) : null;
        }

        /** A value of the key as the flag writes it. */
        public String flagText(Object value) {
            return switch (form) {
                case LIST ->
                    String.join(
                            ",", ((List<?>) value).stream().map(String::valueOf).toList());
                case SECONDS -> plain(BigDecimal.valueOf(((Duration) value).toMillis(), 3));
                case WORDS -> ((Enum<?>) value).name().toLowerCase(Locale.ROOT).replace('_', '-');
                case TEXT -> value instanceof Double d ? plain(BigDecimal.valueOf(d)) : String.valueOf(value);
            };
        }

        /**
         * The key's text for a flag's value; seconds that are not a number are an {@link InvalidOptionException}
         * (any other malformed value is found by {@link #validate}).
         */
        public String keyText(String flagValue) {
            return switch (form) {
                case LIST -> flagValue.replace(',', ';');
                case SECONDS -> {
                    double seconds;
                    try {
                        seconds = Double.parseDouble(flagValue.trim());
                    } catch (NumberFormatException e) {
                        throw new InvalidOptionException(this, "must be a number of seconds, got '" + flagValue + "'");
                    }
                    if (!Double.isFinite(seconds) || Math.abs(seconds) > 1e12)
                        throw new InvalidOptionException(this, "must be a number of seconds, got '" + flagValue + "'");
                    // Flink reads no negative duration from text; every duration flag's rule refuses them
                    if (seconds < 0) throw new InvalidOptionException(this, rule + ", got " + flagValue.trim());
                    yield Math.round(seconds * 1000) + " ms";
                }
                case WORDS -> flagValue.trim().toUpperCase(Locale.ROOT).replace('-', '_');
                case TEXT -> flagValue;
            };
        }

        private static String plain(BigDecimal d) {
            return d.signum() == 0 ? "0" : d.stripTrailingZeros().toPlainString();
        }

        /** The value of this option in {@code conf} (its default when unset), checked against the rule. */
        public T checked(Configuration conf) {
            T value;
            try {
                value = conf.get(option);
            } catch (IllegalArgumentException e) {
                String raw = conf.toMap().get(key());
                if (form == Form.WORDS && raw != null)
                    raw = raw.toLowerCase(Locale.ROOT).replace('_', '-');
                throw new InvalidOptionException(this, "must be " + typeWord() + ", got '" + raw + "'");
            }
            if (value != null && !valid.test(value))
                throw new InvalidOptionException(this, rule + ", got " + flagText(value));
            return value;
        }

        private String typeWord() {
            if (form == Form.WORDS) return "one of " + String.join(", ", choices());
            if (form == Form.SECONDS) return "a duration";
            if (form == Form.LIST) return "a comma list of numbers";
            // the options without a default are numbers, but for the cluster file, whose text always parses
            Class<?> type = option.hasDefaultValue() ? option.defaultValue().getClass() : Double.class;
            if (type == Integer.class || type == Long.class) return "an integer";
            if (type == Double.class) return "a number";
            return "a value of " + type.getSimpleName();
        }

        /** The flag's words for an enum option (round-robin, gpu-weighted). */
        public List<String> choices() {
            List<String> words = new ArrayList<>();
            for (Object c : option.defaultValue().getClass().getEnumConstants()) words.add(flagText(c));
            return words;
        }
    }

    /** A value that breaks its option's rule, or is not of its type. */
    public static final class InvalidOptionException extends IllegalArgumentException {
        private static final long serialVersionUID = 1L;
        private final transient Setting<?> setting;
        private final String detail;

        InvalidOptionException(Setting<?> setting, String detail) {
            super(setting.key() + " " + detail);
            this.setting = setting;
            this.detail = detail;
        }

        public Setting<?> setting() {
            return setting;
        }

        /** The message with the option called {@code name} (its flag on the command line, or where it was set). */
        public String messageFor(String name) {
            return name + " " + detail;
        }
    }

    /** The value of {@link #ITERATIONS_WITHOUT_GAIN} that leaves the count to the number of controllers. */
    public static final String AUTO = "auto";

    private static boolean finiteAtLeastZero(double v) {
        return v >= 0 && Double.isFinite(v);
    }

    /** Every option, in the order the documentation lists them. */
    public static final List<Setting<?>> ALL = List.of(
            new Setting<>(
                    POLICIES,
                    "--policy",
                    Form.LIST,
                    v -> !v.isEmpty() && v.stream().noneMatch(String::isBlank),
                    "must name at least one policy, and no empty name"),
            new Setting<>(SEED, "--seed", Form.TEXT, v -> true, ""),
            new Setting<>(MAX_ITERATIONS, "--iterations", Form.TEXT, v -> v >= 1, "must be >= 1"),
            new Setting<>(
                    ITERATIONS_WITHOUT_GAIN,
                    "--iterations-without-gain",
                    Form.TEXT,
                    v -> v.equals(AUTO) || v.matches("[0-9]{1,9}"),
                    "must be auto or a count >= 0 (0: every iteration)"),
            new Setting<>(OPTIMIZER_THREADS, "--optimizer-threads", Form.TEXT, v -> v >= 1, "must be >= 1"),
            new Setting<>(CONTROLLERS, "--controllers", Form.TEXT, v -> v >= 1, "must be >= 1"),
            new Setting<>(DISPATCH, "--dispatch", Form.WORDS, v -> true, ""),
            new Setting<>(NOISE, "--noise", Form.TEXT, v -> v >= 0 && v < 1, "must be in [0, 1)"),
            new Setting<>(STABILITY, "--stability", Form.WORDS, v -> true, ""),
            new Setting<>(OPTIMIZER_SCOPE, "--optimizer-scope", Form.WORDS, v -> true, ""),
            new Setting<>(
                    MOVE_OVERHEAD_SECONDS,
                    "--move-overhead",
                    Form.TEXT,
                    SchedulerOptions::finiteAtLeastZero,
                    "must be >= 0 seconds"),
            new Setting<>(
                    SNAPSHOT_INTERVAL_SECONDS,
                    "--snapshot-interval",
                    Form.TEXT,
                    SchedulerOptions::finiteAtLeastZero,
                    "must be >= 0 seconds"),
            new Setting<>(
                    PERIOD_SECONDS, "--period", Form.TEXT, v -> v > 0 && Double.isFinite(v), "must be > 0 seconds"),
            new Setting<>(MODE, "--mode", Form.WORDS, v -> true, ""),
            new Setting<>(CLUSTER_FILE, "--cluster", Form.TEXT, v -> !v.isBlank(), "must name a file"),
            new Setting<>(RHO, null, Form.TEXT, v -> v >= 0 && Double.isFinite(v), "must be >= 0"),
            new Setting<>(MU, null, Form.TEXT, v -> v >= 0 && Double.isFinite(v), "must be >= 0"),
            new Setting<>(
                    CHECKPOINT_INTERVAL,
                    "--checkpoint-interval",
                    Form.SECONDS,
                    v -> !v.isNegative(),
                    "must be >= 0 (0: no checkpoints)"),
            new Setting<>(
                    OUT_OF_ORDERNESS,
                    "--out-of-orderness",
                    Form.SECONDS,
                    v -> !v.isNegative() || v.equals(SchedulerConfig.END_OF_INPUT_WATERMARK),
                    "must be >= 0 (or -1 ms: a watermark only at the end of a bounded input)"),
            new Setting<>(IDLE_TIMEOUT, "--idle-timeout", Form.SECONDS, v -> v.toMillis() > 0, "must be > 0"),
            new Setting<>(
                    WATERMARK_INTERVAL,
                    "--watermark-interval",
                    Form.SECONDS,
                    v -> v.toMillis() >= 1,
                    "must be >= 0.001 seconds (1 ms)"));

    /** The option set by {@code flag}, if any. */
    public static Optional<Setting<?>> byFlag(String flag) {
        return ALL.stream().filter(s -> flag.equals(s.flag())).findFirst();
    }

    /** The option with {@code key}, if any. */
    public static Optional<Setting<?>> byKey(String key) {
        return ALL.stream().filter(s -> s.key().equals(key)).findFirst();
    }

    /**
     * Checks every option of {@code conf} against its type and rule, and that every {@code gpusched.*} key it holds is
     * an option; the first failure is an {@link InvalidOptionException}, or for an unknown key an
     * IllegalArgumentException naming it.
     */
    public static void validate(Configuration conf) {
        validate(conf, ALL);
    }

    /**
     * Checks the options of {@code settings} in {@code conf} against their types and rules, and that every
     * {@code gpusched.*} key it holds is an option of either slice ({@link #isKnown}).
     */
    public static void validate(Configuration conf, List<Setting<?>> settings) {
        for (String key : conf.keySet()) {
            if (key.startsWith("gpusched.") && !isKnown(key))
                throw new IllegalArgumentException("unknown option " + key + " (the options: docs/configuration.md)");
        }
        for (Setting<?> s : settings) s.checked(conf);
    }

    /** Whether {@code key} is an option of the scheduler or of the placement job ({@link PlacementOptions}). */
    public static boolean isKnown(String key) {
        return byKey(key).isPresent()
                || PlacementOptions.ALL.stream().anyMatch(s -> s.key().equals(key));
    }
}
