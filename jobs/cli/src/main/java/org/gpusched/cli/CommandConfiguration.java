package org.gpusched.cli;

import java.lang.reflect.Field;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.GlobalConfiguration;
import org.apache.flink.configuration.ReadableConfig;
import org.gpusched.streaming.SchedulerOptions;
import org.gpusched.streaming.SchedulerOptions.InvalidOptionException;
import org.gpusched.streaming.SchedulerOptions.Setting;
import org.gpusched.streaming.placement.PlacementOptions;
import picocli.CommandLine;
import picocli.CommandLine.IDefaultValueProvider;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * The options of a command as one Flink {@link Configuration}, in layers: the option's default
 * ({@link SchedulerOptions}, {@link PlacementOptions}), then the {@code gpusched.*} keys of the cluster's Flink
 * configuration (under {@code flink run}: {@link FlinkJob}), then those of a configuration file ({@code --config}),
 * then the flags given on the command line, each layer winning over the ones before. The flags restate no default:
 * they set their key only when given, and {@link Defaults} shows the option's default in {@code --help}.
 */
final class CommandConfiguration {
    private CommandConfiguration() {}

    /**
     * The options of {@code settings} from {@code cmd}'s parsed command line over the {@code --config} file over the
     * {@code gpusched.*} keys of {@code cluster}, checked in one pass: a bad value is a usage error naming the flag, or
     * the key and where it was set.
     */
    static Configuration read(CommandLine cmd, Path configFile, List<Setting<?>> settings, Configuration cluster) {
        Configuration conf = gpuschedKeys(cluster);
        Set<String> fromFile = new HashSet<>();
        if (configFile != null) {
            Configuration file = load(cmd, configFile);
            fromFile.addAll(file.keySet());
            conf.addAll(file);
        }
        Set<String> fromFlags = new HashSet<>();
        for (Setting<?> s : settings) {
            OptionSpec given = s.flag() == null ? null : cmd.getParseResult().matchedOption(s.flag());
            if (given == null) continue;
            try {
                conf.setString(s.key(), s.keyText(String.join(",", given.originalStringValues())));
            } catch (InvalidOptionException e) {
                throw new ParameterException(cmd, e.messageFor(s.flag()));
            }
            fromFlags.add(s.key());
        }
        try {
            SchedulerOptions.validate(conf, settings);
        } catch (InvalidOptionException e) {
            Setting<?> s = e.setting();
            String where = fromFlags.contains(s.key())
                    ? s.flag()
                    : s.key() + " in "
                            + (fromFile.contains(s.key()) ? configFile : "the cluster's Flink configuration");
            throw new ParameterException(cmd, e.messageFor(where));
        } catch (IllegalArgumentException e) {
            String where =
                    unknownKey(fromFile).isEmpty() ? "the cluster's Flink configuration" : "--config " + configFile;
            throw new ParameterException(cmd, where + ": " + e.getMessage());
        }
        return conf;
    }

    /** The first unknown {@code gpusched.*} key that came from the file, or "" when none did. */
    private static String unknownKey(Set<String> fromFile) {
        return fromFile.stream()
                .filter(k -> k.startsWith("gpusched.") && !SchedulerOptions.isKnown(k))
                .findFirst()
                .orElse("");
    }

    /** The {@code gpusched.*} keys of a Flink configuration (a cluster's holds every other key of Flink's too). */
    static Configuration gpuschedKeys(ReadableConfig flink) {
        Configuration keys = new Configuration();
        flink.toMap().forEach((k, v) -> {
            if (k.startsWith("gpusched.")) keys.setString(k, v);
        });
        return keys;
    }

    /**
     * A usage error for a configuration the options could not make: an option's own error names its flag when the
     * command line gave it, else its key.
     */
    static ParameterException usageError(CommandLine cmd, IllegalArgumentException e) {
        if (e instanceof InvalidOptionException invalid) {
            Setting<?> s = invalid.setting();
            boolean given = s.flag() != null && cmd.getParseResult().hasMatchedOption(s.flag());
            return new ParameterException(cmd, invalid.messageFor(given ? s.flag() : s.key()));
        }
        return new ParameterException(cmd, e.getMessage());
    }

    /** Flink's reading of a config.yaml, given as the file or its directory. */
    private static Configuration load(CommandLine cmd, Path path) {
        Path dir = Files.isDirectory(path) ? path : path.toAbsolutePath().getParent();
        if (!Files.isRegularFile(dir.resolve(GlobalConfiguration.FLINK_CONF_FILENAME))
                || !(Files.isDirectory(path)
                        || path.getFileName().toString().equals(GlobalConfiguration.FLINK_CONF_FILENAME)))
            throw new ParameterException(
                    cmd,
                    "--config " + path + ": not a " + GlobalConfiguration.FLINK_CONF_FILENAME
                            + " file or a directory holding one");
        try {
            return GlobalConfiguration.loadConfiguration(dir.toString());
        } catch (RuntimeException e) {
            throw new ParameterException(cmd, "--config " + path + ": " + e.getMessage());
        }
    }

    /**
     * {@code --help}'s default of an option's flag: its {@link SchedulerOptions} default, or its
     * {@link PlacementOptions} default for a placement-only flag or a command of the placement slice alone.
     */
    static final class Defaults implements IDefaultValueProvider {
        @Override
        public String defaultValue(ArgSpec arg) {
            // a required option keeps no default (picocli would take the default for it); its annotation says so, as
            // ArgSpec.required() itself asks this provider
            if (!(arg instanceof OptionSpec option)
                    || option.userObject() instanceof Field field
                            && field.isAnnotationPresent(Option.class)
                            && field.getAnnotation(Option.class).required()) return null;
            String flag = option.longestName().equals("--seeds") ? "--seed" : option.longestName();
            // a command of the placement slice alone shows the placement default of a flag both slices have (--seed)
            boolean placementOnly = option.command() != null
                    && PlaceReplayCommand.NAME.equals(option.command().name());
            return (placementOnly ? PlacementOptions.byFlag(flag) : SchedulerOptions.byFlag(flag))
                    .or(() -> PlacementOptions.byFlag(flag))
                    .map(Setting::flagDefault)
                    .orElse(null);
        }
    }
}
