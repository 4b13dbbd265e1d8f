package org.gpusched.streaming.placement;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.Configuration;
import org.gpusched.streaming.SchedulerOptions;
import org.gpusched.streaming.SchedulerOptions.Form;
import org.gpusched.streaming.SchedulerOptions.Setting;

/**
 * Every option of the placement job that is not one of the scheduler's streaming options, each declared once in the
 * same table form as {@link SchedulerOptions}: key, type, default, description, flag and rule. {@code place-replay},
 * {@code compare --pods} and {@code run --nodes} read them through the same configuration path (flag, else a
 * {@code --config} file, else the cluster's Flink configuration, else the default here).
 */
public final class PlacementOptions {
    private PlacementOptions() {}

    public static final ConfigOption<List<Double>> ALPHAS = ConfigOptions.key("gpusched.placement.alpha")
            .doubleType()
            .asList()
            .defaultValues(0.1)
            .withDescription("Alpha of pwr-fgd (the weight of the power score against FGD's); one run per value.");
    public static final ConfigOption<Long> SEED = ConfigOptions.key("gpusched.placement.seed")
            .longType()
            .defaultValue(42L)
            .withDescription("Seed of the placement policies' tie-breaking random state.");
    public static final ConfigOption<Duration> WATERMARK_INTERVAL = ConfigOptions.key(
                    "gpusched.placement.watermark-interval")
            .durationType()
            .defaultValue(Duration.ofMillis(200))
            .withDescription("How often a file replay's event time advances (its only watermark that counts is the "
                    + "one at the end of the input, so this changes no decision).");

    /** Every placement option, in the order the documentation lists them. */
    public static final List<Setting<?>> ALL = List.of(
            new Setting<>(
                    ALPHAS,
                    "--alpha",
                    Form.LIST,
                    v -> !v.isEmpty() && v.stream().allMatch(a -> a >= 0 && a <= 1),
                    "must be in [0, 1]"),
            new Setting<>(SEED, "--seed", Form.TEXT, v -> true, ""),
            new Setting<>(
                    WATERMARK_INTERVAL, null, Form.SECONDS, v -> v.toMillis() >= 1, "must be >= 0.001 seconds (1 ms)"));

    /** The option set by {@code flag}, if any. */
    public static Optional<Setting<?>> byFlag(String flag) {
        return ALL.stream().filter(s -> flag.equals(s.flag())).findFirst();
    }

    /** Checks the placement options of {@code conf} in one pass, as {@link SchedulerOptions#validate} does. */
    public static void validate(Configuration conf) {
        SchedulerOptions.validate(conf, ALL);
    }
}
