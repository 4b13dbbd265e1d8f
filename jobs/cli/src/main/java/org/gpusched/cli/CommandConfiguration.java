package org.gpusched.cli;

import java.lang.reflect.Field;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.GlobalConfiguration;
import org.gpusched.streaming.SchedulerOptions;
import org.gpusched.streaming.SchedulerOptions.InvalidOptionException;
import org.gpusched.streaming.SchedulerOptions.Setting;
import picocli.CommandLine;
import picocli.CommandLine.IDefaultValueProvider;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * The scheduler options of a command as one Flink {@link Configuration}: the {@code gpusched.*} keys of a Flink
 * configuration file ({@code --config}), then the flags given on the command line, so a flag wins over the file and
 * the file over the {@link SchedulerOptions} default. The flags restate no default: they set their key only when given,
 * and {@link Defaults} shows the option's default in {@code --help}.
 */
final class CommandConfiguration {
    private CommandConfiguration() {}

    /**
     * The configuration of {@code cmd}'s parsed command line, checked in one pass: a bad value is a usage error naming
     * the flag, or the key and the file when the file set it.
     */
    static Configuration read(CommandLine cmd, Path configFile) {
        Configuration conf = configFile == null ? new Configuration() : load(cmd, configFile);
        Set<String> fromFlags = new HashSet<>();
        for (Setting<?> s : SchedulerOptions.ALL) {
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
            SchedulerOptions.validate(conf);
        } catch (InvalidOptionException e) {
            Setting<?> s = e.setting();
            throw new ParameterException(
                    cmd, e.messageFor(fromFlags.contains(s.key()) ? s.flag() : s.key() + " in " + configFile));
        } catch (IllegalArgumentException e) {
            throw new ParameterException(cmd, "--config " + configFile + ": " + e.getMessage());
        }
        return conf;
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

    /** {@code --help}'s default of a scheduler option's flag: its {@link SchedulerOptions} default. */
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
            return SchedulerOptions.byFlag(flag).map(Setting::flagDefault).orElse(null);
        }
    }
}
