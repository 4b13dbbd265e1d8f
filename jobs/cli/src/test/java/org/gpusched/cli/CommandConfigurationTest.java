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
import org.gpusched.streaming.placement.PlacementOptions;
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
        INVALID.put(
                "--iterations-without-gain",
                new String[] {"-5", "must be auto or a count >= 0 (0: every iteration), got -5"});
        INVALID.put("--optimizer-threads", new String[] {"0", "must be >= 1, got 0"});
        INVALID.put("--controllers", new String[] {"0", "must be >= 1, got 0"});
        INVALID.put("--dispatch", new String[] {"nearest", "must be one of round-robin, gpu-weighted, got 'nearest'"});
        INVALID.put("--noise", new String[] {"1", "must be in [0, 1), got 1"});
        INVALID.put("--stability", new String[] {"calm", "must be one of paper, stable, got 'calm'"});
        INVALID.put(
                "--optimizer-scope",
                new String[] {"some", "must be one of all-nodes, nodes-with-room, auto, got 'some'"});
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
        for (String k : keys) assertTrue(SchedulerOptions.isKnown(k), "unknown option in conf: " + k);
        SchedulerOptions.validate(conf);
        PlacementOptions.validate(conf);
    }

    @Test
    void docsConfigurationListsEveryOptionWithItsFlagAndDefault() throws Exception {
        List<String> rows = Files.readAllLines(Path.of("../../docs/configuration.md")).stream()
                .filter(l -> l.startsWith("| `gpusched."))
                .toList();
        List<Setting<?>> all = new ArrayList<>(SchedulerOptions.ALL);
        all.addAll(PlacementOptions.ALL);
        assertEquals(all.size(), rows.size(), "one row per option");
        for (Setting<?> s : all) {
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

    private static final String PODS = "src/test/resources/place-replay/pods.csv";
    private static final String NODES = "src/test/resources/place-replay/nodes.csv";

    @Test
    void placementFlagsRestateNoDefaultAndHelpPrintsThePlacementOptionsDefault() {
        for (String name : List.of("place-replay", "compare", "run")) {
            for (OptionSpec option : command(name).getCommandSpec().options()) {
                if (PlacementOptions.byFlag(option.longestName()).isEmpty()) continue;
                assertNull(option.defaultValue(), name + " " + option.longestName() + " restates a default");
            }
            assertTrue(
                    helpByOption(name).get("--alpha").contains("default: 0.1"),
                    name + ": " + helpByOption(name).get("--alpha"));
        }
        assertEquals("0.1", PlacementOptions.byFlag("--alpha").orElseThrow().flagDefault());
        assertEquals("42", PlacementOptions.byFlag("--seed").orElseThrow().flagDefault());
        assertTrue(helpByOption("place-replay").get("--seed").contains("default: 42"));
        assertTrue(helpByOption("run").get("--seed").contains("default: 1"), "run's --seed is the scheduler's too");
        assertEquals(Duration.ofMillis(200), PlacementOptions.WATERMARK_INTERVAL.defaultValue());
    }

    @Test
    void anInvalidPlacementOptionIsOneLineNamingTheFlagWithExitTwo() {
        String out = tmp.resolve("never").toString();
        List<String[]> cases = List.of(
                new String[] {"--alpha", "2", "--alpha must be in [0, 1], got 2"},
                new String[] {"--alpha", "x", "--alpha must be a comma list of numbers, got 'x'"},
                new String[] {"--seed", "x", "--seed must be an integer, got 'x'"});
        for (String[] c : cases) {
            List<String[]> commands = new ArrayList<>();
            commands.add(placeReplay(out, c[0], c[1]));
            if (!c[0].equals("--seed")) // compare takes --seeds
            commands.add(new String[] {
                "compare", "--pods", PODS, "--nodes", NODES, "--policies", "pwr-fgd", "--out", out, c[0], c[1]
            });
            for (String[] args : commands) {
                var r = WorkloadCommandsTest.gpusched(args);
                String where = String.join(" ", args) + ": ";
                assertEquals(ExitCode.BAD_INPUT, r.exit(), where + r.err());
                assertEquals(1, r.err().lines().count(), where + r.err());
                assertTrue(r.err().contains(c[2]), where + r.err());
            }
        }
        var many = WorkloadCommandsTest.gpusched(placeReplay(out, "--alpha", "0.1,0.2"));
        assertEquals(ExitCode.BAD_INPUT, many.exit(), many.err());
        assertTrue(many.err().contains("--alpha takes one value here"), many.err());
        assertFalse(Files.exists(tmp.resolve("never")));
    }

    /** A place-replay of the test pod list that never runs (its output directory is never made), with {@code extra}. */
    private static String[] placeReplay(String out, String... extra) {
        List<String> args = new ArrayList<>(
                List.of("place-replay", "--pods", PODS, "--nodes", NODES, "--policy", "pwr-fgd", "--out", out));
        args.addAll(List.of(extra));
        return args.toArray(String[]::new);
    }

    @Test
    void placementOptionsComeFromTheFlagThenTheFileThenTheDefault() throws Exception {
        Path conf = tmp.resolve("config.yaml");
        Files.writeString(conf, """
                gpusched:
                  placement:
                    alpha: [0.2, 0.3]
                    seed: 9
                """);
        CompareCommand compare = new CompareCommand();
        new CommandLine(compare)
                .parseArgs(
                        "--pods",
                        PODS,
                        "--nodes",
                        NODES,
                        "--policies",
                        "pwr-fgd",
                        "--out",
                        "x",
                        "--config",
                        conf.toString());
        Configuration options = compare.scheduler.placementOptions();
        assertEquals(List.of(0.2, 0.3), options.get(PlacementOptions.ALPHAS), "file over default");
        assertEquals(9L, options.get(PlacementOptions.SEED), "file over default");
        assertEquals(Duration.ofMillis(200), options.get(PlacementOptions.WATERMARK_INTERVAL), "default");
        RunCommand run = new RunCommand();
        new CommandLine(run)
                .parseArgs(
                        "--bootstrap",
                        "127.0.0.1:1",
                        "--nodes",
                        NODES,
                        "--workload",
                        PODS,
                        "--policy",
                        "pwr-fgd",
                        "--config",
                        conf.toString(),
                        "--alpha",
                        "0.5",
                        "--seed",
                        "3");
        options = run.scheduler.placementOptions();
        assertEquals(List.of(0.5), options.get(PlacementOptions.ALPHAS), "flag over file");
        assertEquals(3L, options.get(PlacementOptions.SEED), "flag over file");
    }

    @Test
    void underFlinkRunTheClustersGpuschedKeysComeAfterTheFileAndBeforeTheDefault() throws Exception {
        // the cluster's configuration as Flink itself reads a config.yaml (as FLINK_CONF_DIR is read under flink run)
        Path clusterDir = Files.createDirectories(tmp.resolve("cluster"));
        Files.writeString(clusterDir.resolve("config.yaml"), """
                taskmanager:
                  numberOfTaskSlots: 4
                gpusched:
                  noise: 0.2
                  max-iterations: 9
                  controllers: 2
                  placement:
                    seed: 11
                """);
        Configuration cluster = GlobalConfiguration.loadConfiguration(clusterDir.toString());
        Path file = tmp.resolve("config.yaml");
        Files.writeString(file, "gpusched:\n  noise: 0.3\n");
        CommandLine cl = FlinkJob.commandLine(cluster);
        cl.parseArgs(FlinkJob.runArgs(new String[] {
            "--bootstrap", "127.0.0.1:1", "--cluster", CLUSTER, "--config", file.toString(), "--iterations", "5"
        }));
        RunCommand run = (RunCommand) cl.getSubcommands().get("run").getCommand();
        Configuration options = run.scheduler.options();
        assertEquals(5, options.get(SchedulerOptions.MAX_ITERATIONS), "flag over cluster");
        assertEquals(0.3, options.get(SchedulerOptions.NOISE), "--config file over cluster");
        assertEquals(2, options.get(SchedulerOptions.CONTROLLERS), "cluster over default");
        assertEquals(SchedulerConfig.Dispatch.ROUND_ROBIN, options.get(SchedulerOptions.DISPATCH), "default");
        assertFalse(options.containsKey("taskmanager.numberOfTaskSlots"), "only the gpusched.* keys count");
        assertEquals(11L, run.scheduler.placementOptions().get(PlacementOptions.SEED), "cluster over default");

        // a bad value in the cluster's configuration names the key and where it came from, exit 2
        Files.writeString(clusterDir.resolve("config.yaml"), "gpusched:\n  noise: 2\n");
        CommandLine bad = FlinkJob.commandLine(GlobalConfiguration.loadConfiguration(clusterDir.toString()));
        java.io.StringWriter err = new java.io.StringWriter();
        bad.setErr(new java.io.PrintWriter(err, true));
        int code = bad.execute(FlinkJob.runArgs(new String[] {"--bootstrap", "127.0.0.1:1", "--cluster", CLUSTER}));
        assertEquals(ExitCode.BAD_INPUT, code, err.toString());
        assertTrue(
                err.toString().contains("gpusched.noise in the cluster's Flink configuration must be in [0, 1), got 2"),
                err.toString());
    }
}
