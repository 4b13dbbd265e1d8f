package org.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.GlobalConfiguration;
import org.gpusched.streaming.SchedulerConfig;
import org.gpusched.streaming.SchedulerOptions;
import org.gpusched.streaming.SchedulerOptions.Setting;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/**
 * The one configuration path of the scheduler commands: every option's default is declared once (its ConfigOption) and
 * is what --help prints; a flag wins over a config file, a file over the default; a bad value of any option is one
 * line and exit 2 naming the flag; conf/config.yaml and docs/configuration.md hold exactly the known options.
 */
class CommandConfigurationTest {
    private static final List<String> SCHEDULER_COMMANDS = List.of("replay", "compare", "run");
    private static final String CLUSTER = "../../examples/armida-cluster.yaml";
    private static final String TRACE = "../../examples/armida-trace.jsonl";

    /** A value each option refuses, and what the message says about it. */
    private static final Map<String, String[]> INVALID = new LinkedHashMap<>();

    static {
        INVALID.put("--seed", new String[] {"x", "must be an integer, got 'x'"});
        INVALID.put("--iterations", new String[] {"0", "must be >= 1, got 0"});
        INVALID.put("--optimizer-threads", new String[] {"0", "must be >= 1, got 0"});
        INVALID.put("--controllers", new String[] {"0", "must be >= 1, got 0"});
        INVALID.put("--dispatch", new String[] {"nearest", "must be one of round-robin, gpu-weighted, got 'nearest'"});
        INVALID.put("--noise", new String[] {"1", "must be in [0, 1), got 1"});
        INVALID.put("--stability", new String[] {"calm", "must be one of paper, stable, got 'calm'"});
        INVALID.put("--move-overhead", new String[] {"-1", "must be >= 0 seconds, got -1"});
        INVALID.put("--snapshot-interval", new String[] {"-0.5", "must be >= 0 seconds, got -0.5"});
        INVALID.put("--period", new String[] {"0", "must be > 0 seconds, got 0"});
        INVALID.put("--mode", new String[] {"dry", "must be one of replay, live, got 'dry'"});
        INVALID.put("--checkpoint-interval", new String[] {"-2", "must be >= 0 (0: no checkpoints), got -2"});
        INVALID.put("--out-of-orderness", new String[] {"-3", "must be >= 0 (or -1 ms"});
        INVALID.put("--idle-timeout", new String[] {"0", "must be > 0, got 0"});
        INVALID.put("--watermark-interval", new String[] {"0", "must be >= 0.001 seconds (1 ms), got 0"});
        INVALID.put("--policy", new String[] {",", "must name at least one policy"});
    }

    @TempDir
    Path tmp;

    private static CommandLine command(String name) {
        return GpuSched.commandLine().getSubcommands().get(name);
    }

    /** The help text of each option of a command, by its longest name, whitespace collapsed. */
    private static Map<String, String> helpByOption(String name) {
        String help = command(name).getUsageMessage(CommandLine.Help.Ansi.OFF);
        Map<String, String> byOption = new LinkedHashMap<>();
        String current = null;
        StringBuilder text = new StringBuilder();
        for (String line : help.lines().toList()) {
            var start = java.util.regex.Pattern.compile("^ {1,8}(?:-\\w, )?(--[\\w-]+)")
                    .matcher(line);
            if (start.find()) {
                if (current != null) byOption.put(current, text.toString().replaceAll("\\s+", " "));
                current = start.group(1);
                text.setLength(0);
            }
            text.append(' ').append(line);
        }
        if (current != null) byOption.put(current, text.toString().replaceAll("\\s+", " "));
        return byOption;
    }

    @Test
    void everyDefaultIsTheConfigOptionsAndIsWhatHelpPrints() {
        Set<String> declared = new TreeSet<>();
        for (String name : SCHEDULER_COMMANDS) {
            Map<String, String> help = helpByOption(name);
            for (OptionSpec option : command(name).getCommandSpec().options()) {
                var setting = SchedulerOptions.byFlag(option.longestName());
                if (setting.isEmpty()) continue;
                declared.add(option.longestName());
                assertNull(option.defaultValue(), name + " " + option.longestName() + " restates a default");
                String expected = setting.get().flagDefault();
                if (expected == null || option.required()) continue;
                String text = help.get(option.longestName());
                assertNotNull(text, name + " --help lists no " + option.longestName());
                assertTrue(
                        text.contains("default: " + expected),
                        name + " " + option.longestName() + ": expected 'default: " + expected + "' in: " + text);
            }
        }
        for (Setting<?> s : SchedulerOptions.ALL)
            if (s.flag() != null) assertTrue(declared.contains(s.flag()), s.flag() + " is declared by no command");
        // the defaults as the flags write them, against the ConfigOptions' own values
        assertEquals(
                "0.02",
                SchedulerOptions.byFlag("--watermark-interval").orElseThrow().flagDefault());
        assertEquals(
                "round-robin",
                SchedulerOptions.byFlag("--dispatch").orElseThrow().flagDefault());
        assertEquals(
                "300", SchedulerOptions.byFlag("--move-overhead").orElseThrow().flagDefault());
        assertTrue(helpByOption("compare").get("--seeds").contains("default: 1"));
    }

    @Test
    void aFlagWinsOverTheConfigFileAndTheFileOverTheDefault() throws Exception {
        Path conf = tmp.resolve("config.yaml");
        Files.writeString(conf, """
                taskmanager:
                  numberOfTaskSlots: 2
                gpusched:
                  noise: 0.3
                  max-iterations: 7
                  stability: PAPER
                  watermark-interval: 30 ms
                  policies: [fifo, edf]
                """);
        RunCommand run = new RunCommand();
        new CommandLine(run)
                .parseArgs(
                        "--bootstrap",
                        "127.0.0.1:1",
                        "--cluster",
                        CLUSTER,
                        "--config",
                        conf.toString(),
                        "--noise",
                        "0.1",
                        "--watermark-interval",
                        "0.05");
        Configuration options = run.scheduler.options();
        assertEquals(0.1, options.get(SchedulerOptions.NOISE), "flag over file");
        assertEquals(Duration.ofMillis(50), options.get(SchedulerOptions.WATERMARK_INTERVAL), "flag over file");
        assertEquals(7, options.get(SchedulerOptions.MAX_ITERATIONS), "file over default");
        assertEquals(SchedulerConfig.Stability.PAPER, options.get(SchedulerOptions.STABILITY), "file over default");
        assertEquals(List.of("fifo", "edf"), options.get(SchedulerOptions.POLICIES), "file over default");
        assertEquals(1, options.get(SchedulerOptions.CONTROLLERS), "default");
        assertEquals(Duration.ofSeconds(5), options.get(SchedulerOptions.IDLE_TIMEOUT), "default");

        ReplayCommand replay = new ReplayCommand();
        new CommandLine(replay)
                .parseArgs(
                        "--trace",
                        TRACE,
                        "--cluster",
                        CLUSTER,
                        "--policy",
                        "greedy",
                        "--out",
                        "x",
                        "--config",
                        tmp.toString(),
                        "--stability",
                        "stable",
                        "--move-overhead",
                        "60");
        SchedulerConfig cfg = replay.scheduler
                .replayConfig(org.gpusched.formats.ClusterYaml.read(Path.of(CLUSTER)))
                .build();
        assertEquals(List.of("greedy"), cfg.policies(), "flag over file");
        assertEquals(SchedulerConfig.Stability.STABLE, cfg.stability(), "flag over file");
        assertEquals(60, cfg.moveOverheadSeconds());
        assertEquals(600, cfg.snapshotIntervalSeconds(), "default");
        assertEquals(7, cfg.maxIterations(), "file (a directory holding config.yaml)");
        assertEquals(0.3, cfg.noise(), "file");

        ReplayCommand plain = new ReplayCommand();
        new CommandLine(plain).parseArgs("--trace", TRACE, "--cluster", CLUSTER, "--policy", "greedy", "--out", "x");
        Configuration none = plain.scheduler.options();
        for (Setting<?> s : SchedulerOptions.ALL)
            if (s.option().hasDefaultValue() && !s.key().equals(SchedulerOptions.POLICIES.key()))
                assertEquals(s.option().defaultValue(), none.get(s.option()), s.key());
    }

    @Test
    void runTakesTheSchedulingModelOptionsReplayTakes() {
        RunCommand run = new RunCommand();
        new CommandLine(run)
                .parseArgs(
                        "--bootstrap",
                        "127.0.0.1:1",
                        "--cluster",
                        CLUSTER,
                        "--stability",
                        "paper",
                        "--move-overhead",
                        "0",
                        "--snapshot-interval",
                        "0",
                        "--dispatch",
                        "gpu-weighted",
                        "--period",
                        "120");
        SchedulerConfig cfg = SchedulerConfig.builder()
                .options(run.scheduler.options())
                .cluster(org.gpusched.formats.ClusterYaml.read(Path.of(CLUSTER)))
                .build();
        assertEquals(SchedulerConfig.Stability.PAPER, cfg.stability());
        assertEquals(0, cfg.moveOverheadSeconds());
        assertEquals(0, cfg.snapshotIntervalSeconds());
        assertEquals(SchedulerConfig.Dispatch.GPU_WEIGHTED, cfg.dispatch());
        assertEquals(120, cfg.periodSeconds());
        Set<String> replayFlags = flags("replay");
        Set<String> runFlags = flags("run");
        for (String f : ReplaySchedulerOptions.NAMES) {
            assertTrue(replayFlags.contains(f), f);
            assertTrue(runFlags.contains(f), "run lacks " + f);
        }
    }

    private static Set<String> flags(String command) {
        Set<String> names = new TreeSet<>();
        for (OptionSpec o : command(command).getCommandSpec().options()) names.add(o.longestName());
        return names;
    }

    @Test
    void anInvalidValueOfEveryOptionIsOneLineNamingTheFlagWithExitTwo() {
        for (Setting<?> s : SchedulerOptions.ALL) {
            if (s.flag() == null || s.flag().equals("--cluster")) continue;
            assertTrue(INVALID.containsKey(s.flag()), "no invalid value tried for " + s.flag());
        }
        for (var e : INVALID.entrySet()) {
            String flag = e.getKey();
            List<String> commands = new ArrayList<>();
            if (flags("run").contains(flag)) commands.add("run");
            if (flags("replay").contains(flag) && !flag.equals("--policy")) commands.add("replay");
            for (String command : commands) {
                String[] args = command.equals("run")
                        ? new String[] {"run", "--bootstrap", "127.0.0.1:1", "--cluster", CLUSTER, flag, e.getValue()[0]
                        }
                        : replay(flag, e.getValue()[0]);
                var r = WorkloadCommandsTest.gpusched(args);
                String where = String.join(" ", args) + ": ";
                assertEquals(ExitCode.BAD_INPUT, r.exit(), where + r.err());
                assertEquals(1, r.err().lines().count(), where + r.err());
                assertTrue(r.err().contains(flag + " " + e.getValue()[1]), where + r.err());
                assertFalse(r.err().contains("Exception") || r.err().contains("\tat "), where + r.err());
            }
        }
        assertFalse(Files.exists(tmp.resolve("never")));
        var tooMany = WorkloadCommandsTest.gpusched(replay("--controllers", "999"));
        assertEquals(ExitCode.BAD_INPUT, tooMany.exit(), tooMany.err());
        assertTrue(tooMany.err().contains("--controllers must not exceed the cluster's nodes"), tooMany.err());
    }

    /** A replay of the example that never runs (its output directory is never made), with {@code extra}. */
    private String[] replay(String... extra) {
        List<String> args = new ArrayList<>(List.of(
                "replay",
                "--trace",
                TRACE,
                "--cluster",
                CLUSTER,
                "--policy",
                "fifo",
                "--out",
                tmp.resolve("never").toString()));
        args.addAll(List.of(extra));
        return args.toArray(String[]::new);
    }

    @Test
    void aBadValueOrAnUnknownKeyInTheConfigFileNamesTheKeyAndTheFile() throws Exception {
        Path conf = tmp.resolve("config.yaml");
        Files.writeString(conf, "gpusched:\n  noise: 2\n");
        var r = WorkloadCommandsTest.gpusched(
                "run", "--bootstrap", "127.0.0.1:1", "--cluster", CLUSTER, "--config", conf.toString());
        assertEquals(ExitCode.BAD_INPUT, r.exit(), r.err());
        assertTrue(r.err().contains("gpusched.noise in " + conf + " must be in [0, 1), got 2"), r.err());
        Files.writeString(conf, "gpusched:\n  noize: 0.1\n");
        r = WorkloadCommandsTest.gpusched(
                "run", "--bootstrap", "127.0.0.1:1", "--cluster", CLUSTER, "--config", conf.toString());
        assertEquals(ExitCode.BAD_INPUT, r.exit(), r.err());
        assertTrue(r.err().contains("unknown option gpusched.noize"), r.err());
        r = WorkloadCommandsTest.gpusched(
                "run", "--bootstrap", "127.0.0.1:1", "--cluster", CLUSTER, "--config", CLUSTER);
        assertEquals(ExitCode.BAD_INPUT, r.exit(), r.err());
        assertTrue(r.err().contains("not a config.yaml file or a directory holding one"), r.err());
    }

    @Test
    void confConfigYamlHoldsOnlyKnownOptionsWithValidValues() {
        Configuration conf = GlobalConfiguration.loadConfiguration("../../conf");
        List<String> keys =
                conf.keySet().stream().filter(k -> k.startsWith("gpusched.")).toList();
        assertFalse(keys.isEmpty(), "conf/config.yaml sets no gpusched.* option");
        for (String k : keys) assertTrue(SchedulerOptions.byKey(k).isPresent(), "unknown option in conf: " + k);
        SchedulerOptions.validate(conf);
    }

    @Test
    void docsConfigurationListsEveryOptionWithItsFlagAndDefault() throws Exception {
        List<String> rows = Files.readAllLines(Path.of("../../docs/configuration.md")).stream()
                .filter(l -> l.startsWith("| `gpusched."))
                .toList();
        assertEquals(SchedulerOptions.ALL.size(), rows.size(), "one row per option");
        for (Setting<?> s : SchedulerOptions.ALL) {
            String row = rows.stream()
                    .filter(l -> l.startsWith("| `" + s.key() + "`"))
                    .findFirst()
                    .orElseThrow(() -> new AssertionError("docs/configuration.md lists no " + s.key()));
            String[] cells = row.split("\\|");
            if (s.flag() != null) assertTrue(cells[2].contains("`" + s.flag()), row);
            String shown = s.option().hasDefaultValue()
                    ? s.flagDefault() + (s.form() == SchedulerOptions.Form.SECONDS ? " s" : "")
                    : "";
            // the thread count's default is the machine's processor count: the docs name the rule, not a number
            if (s.option() == SchedulerOptions.OPTIMIZER_THREADS)
                assertTrue(cells[3].contains("processors"), s.key() + ": the processor count in " + row);
            else if (s.option().hasDefaultValue())
                assertTrue(cells[3].contains(shown), s.key() + ": " + shown + " in " + row);
        }
    }
}
