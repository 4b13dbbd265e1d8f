package org.gpusched.streaming;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.flink.configuration.ConfigOption;
import org.gpusched.streaming.SchedulerOptions.Setting;

/**
 * What decides a scheduler job's state, as recorded in its checkpoints ({@link RestoreGuard}) and compared when a run
 * is restored from one: a checkpoint holds the controllers' jobs, nodes and random state of one job, and a job with
 * other settings would read them as its own.
 *
 * <p>Two kinds of setting. The ones that shape the state itself can never change across a restore: the policies (the
 * state is keyed by policy: an old policy's timers would fire with no scheduler, a new one would start mid-stream with
 * no jobs), the controllers and the dispatch rule (which controller owns which node and job), the mode (replay
 * simulates completions, live reads them), the seed (the random state in the checkpoint follows the old one, so a new
 * seed could not be taken) and the cluster (its nodes and types are in the state). The others change what the
 * optimizers decide from then on but read the state as it is (iterations, stability, scope, move cost, period,
 * objective, noise of new jobs, out-of-orderness): those a restore takes when asked to ({@code takeNew}). Settings
 * that change no decision (optimizer threads, checkpoint and watermark intervals, idle timeout, parallelism) are not
 * recorded.
 */
public final class JobSettings {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String CLUSTER = "--cluster";
    /** The settings that shape the state: a difference is always refused. */
    private static final List<ConfigOption<?>> FIXED = List.of(
            SchedulerOptions.POLICIES,
            SchedulerOptions.SEED,
            SchedulerOptions.CONTROLLERS,
            SchedulerOptions.DISPATCH,
            SchedulerOptions.MODE);
    /** The settings a restore may take anew when asked to. */
    private static final List<ConfigOption<?>> CHANGEABLE = List.of(
            SchedulerOptions.MAX_ITERATIONS,
            SchedulerOptions.ITERATIONS_WITHOUT_GAIN,
            SchedulerOptions.NOISE,
            SchedulerOptions.STABILITY,
            SchedulerOptions.OPTIMIZER_SCOPE,
            SchedulerOptions.MOVE_OVERHEAD_SECONDS,
            SchedulerOptions.SNAPSHOT_INTERVAL_SECONDS,
            SchedulerOptions.PERIOD_SECONDS,
            SchedulerOptions.RHO,
            SchedulerOptions.MU,
            SchedulerOptions.OUT_OF_ORDERNESS);

    private JobSettings() {}

    /**
     * A comparison of a checkpoint's settings with the run's: the differences that refuse the restore, and the ones a
     * restore takes (or refuses, unless asked to take them: {@link #refused}). Each reads "NAME OLD in the checkpoint,
     * NEW now".
     */
    public record Comparison(List<String> fixed, List<String> changeable) {
        public boolean same() {
            return fixed.isEmpty() && changeable.isEmpty();
        }

        /** Whether the restore must be refused: a fixed setting differs, or a changeable one and it is not to be taken. */
        public boolean refused(boolean takeNew) {
            return !fixed.isEmpty() || !changeable.isEmpty() && !takeNew;
        }

        /** One line for the user: every difference, and what to do. */
        public String message(boolean takeNew) {
            List<String> parts = new ArrayList<>();
            if (!fixed.isEmpty())
                parts.add(String.join("; ", fixed) + " (these cannot change across a restore: the checkpoint's state"
                        + " holds them; run without --restore, or with another --checkpoint-dir, to start the new job"
                        + " empty)");
            if (!changeable.isEmpty())
                parts.add(String.join("; ", changeable)
                        + (takeNew
                                ? " (taken: the restored state goes on with the new values)"
                                : " (give --restore-new-settings to go on with the new values, or the checkpoint's"
                                        + " values to go on as before)"));
            return "the checkpoint was made for another job: " + String.join("; ", parts);
        }
    }

    /** The settings of a job that decide its state, as one JSON object (stable key order). */
    public static String of(SchedulerConfig cfg) {
        ObjectNode root = JSON.createObjectNode();
        Map<ConfigOption<?>, Object> values = new java.util.HashMap<>();
        values.put(SchedulerOptions.POLICIES, new ArrayList<>(new TreeSet<>(cfg.policies())));
        values.put(SchedulerOptions.SEED, cfg.seed());
        values.put(SchedulerOptions.CONTROLLERS, cfg.controllers());
        values.put(SchedulerOptions.DISPATCH, cfg.dispatch());
        values.put(SchedulerOptions.MODE, cfg.mode());
        values.put(SchedulerOptions.MAX_ITERATIONS, cfg.maxIterations());
        values.put(SchedulerOptions.ITERATIONS_WITHOUT_GAIN, cfg.iterationsWithoutGainSetting());
        values.put(SchedulerOptions.NOISE, cfg.noise());
        values.put(SchedulerOptions.STABILITY, cfg.stability());
        values.put(SchedulerOptions.OPTIMIZER_SCOPE, cfg.optimizerScope());
        values.put(SchedulerOptions.MOVE_OVERHEAD_SECONDS, cfg.moveOverheadSeconds());
        values.put(SchedulerOptions.SNAPSHOT_INTERVAL_SECONDS, cfg.snapshotIntervalSeconds());
        values.put(SchedulerOptions.PERIOD_SECONDS, cfg.periodSeconds());
        values.put(SchedulerOptions.RHO, cfg.objective().rho());
        values.put(SchedulerOptions.MU, cfg.objective().mu());
        values.put(SchedulerOptions.OUT_OF_ORDERNESS, cfg.outOfOrderness());
        for (ConfigOption<?> option : FIXED) root.put(name(option), text(option, values.get(option)));
        for (ConfigOption<?> option : CHANGEABLE) root.put(name(option), text(option, values.get(option)));
        ObjectNode cluster = root.putObject(CLUSTER);
        ObjectNode types = cluster.putObject("nodeTypes");
        for (SchedulerConfig.TypeSpec t : cfg.types())
            types.put(
                    t.name(),
                    t.gpuModel() + ", " + t.gpus() + " GPUs, costPerHour " + Arrays.toString(t.costPerHour()));
        ObjectNode nodes = cluster.putObject("nodes");
        for (SchedulerConfig.NodeSpec n : cfg.nodes())
            nodes.put(n.id(), n.fixedType() != null ? n.fixedType() : "rightsizable " + n.allowedTypes());
        try {
            return JSON.writeValueAsString(root);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /** How a checkpoint's settings ({@link #of}) differ from the run's; settings either side lacks are not compared. */
    public static Comparison compare(String checkpoint, String now) {
        JsonNode before = read(checkpoint), after = read(now);
        List<String> fixed = new ArrayList<>(), changeable = new ArrayList<>();
        for (ConfigOption<?> option : FIXED)
            difference(before, after, name(option)).ifPresent(fixed::add);
        for (ConfigOption<?> option : CHANGEABLE)
            difference(before, after, name(option)).ifPresent(changeable::add);
        String cluster = clusterDifference(before.path(CLUSTER), after.path(CLUSTER));
        if (cluster != null) fixed.add(CLUSTER + ": " + cluster);
        return new Comparison(List.copyOf(fixed), List.copyOf(changeable));
    }

    private static java.util.Optional<String> difference(JsonNode before, JsonNode after, String name) {
        JsonNode b = before.get(name), a = after.get(name);
        if (b == null || a == null || b.equals(a)) return java.util.Optional.empty();
        return java.util.Optional.of(name + " " + b.asText() + " in the checkpoint, " + a.asText() + " now");
    }

    /** What changed between two clusters ("node types V100x2 changed; nodes n9 added"), or null when nothing did. */
    private static String clusterDifference(JsonNode before, JsonNode after) {
        if (before.isMissingNode() || after.isMissingNode()) return null;
        List<String> parts = new ArrayList<>();
        String types = mapDifference(before.path("nodeTypes"), after.path("nodeTypes"));
        if (types != null) parts.add("node types " + types);
        String nodes = mapDifference(before.path("nodes"), after.path("nodes"));
        if (nodes != null) parts.add("nodes " + nodes);
        return parts.isEmpty() ? null : String.join(", ", parts) + " since the checkpoint";
    }

    private static String mapDifference(JsonNode before, JsonNode after) {
        Map<String, List<String>> by = new TreeMap<>();
        for (Iterator<String> it = before.fieldNames(); it.hasNext(); ) {
            String k = it.next();
            if (!after.has(k))
                by.computeIfAbsent("removed", x -> new ArrayList<>()).add(k);
            else if (!after.get(k).equals(before.get(k)))
                by.computeIfAbsent("changed", x -> new ArrayList<>()).add(k);
        }
        for (Iterator<String> it = after.fieldNames(); it.hasNext(); ) {
            String k = it.next();
            if (!before.has(k))
                by.computeIfAbsent("added", x -> new ArrayList<>()).add(k);
        }
        if (by.isEmpty()) return null;
        List<String> parts = new ArrayList<>();
        by.forEach((what, names) -> parts.add((names.size() <= 3
                        ? String.join(" ", names)
                        : String.join(" ", names.subList(0, 3)) + " and " + (names.size() - 3) + " more")
                + " " + what));
        return String.join(", ", parts);
    }

    private static JsonNode read(String json) {
        try {
            JsonNode node = json == null ? null : JSON.readTree(json);
            return node != null && node.isObject() ? node : JSON.createObjectNode();
        } catch (JsonProcessingException e) {
            return JSON.createObjectNode();
        }
    }

    /** The option's flag where it has one (what the user types), else its key. */
    private static String name(ConfigOption<?> option) {
        Setting<?> s = setting(option);
        return s.flag() != null ? s.flag() : s.key();
    }

    private static String text(ConfigOption<?> option, Object value) {
        return setting(option).flagText(value);
    }

    private static Setting<?> setting(ConfigOption<?> option) {
        for (Setting<?> s : SchedulerOptions.ALL) if (s.option() == option) return s;
        throw new IllegalArgumentException("no setting for " + option.key());
    }
}
