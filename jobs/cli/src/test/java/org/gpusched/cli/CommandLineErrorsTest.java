package org.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.gpusched.formats.ClusterYaml;
import org.gpusched.streaming.file.LocalRun;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The exit-code scheme and usage errors as a user meets them: one line, the nearest valid name, where to read more. */
class CommandLineErrorsTest {
    private static final String TRACE = "../../examples/armida-trace.jsonl";
    private static final String CLUSTER = "../../examples/armida-cluster.yaml";

    @TempDir
    Path tmp;

    private WorkloadCommandsTest.Run gpusched(String... args) {
        return WorkloadCommandsTest.gpusched(args);
    }

    private static void assertOneLine(WorkloadCommandsTest.Run r, String... expected) {
        assertEquals(ExitCode.BAD_INPUT, r.exit(), r.err());
        assertEquals(1, r.err().lines().count(), "one line, not the help: " + r.err());
        for (String e : expected) assertTrue(r.err().contains(e), "expected '" + e + "' in: " + r.err());
        assertFalse(r.err().contains("Usage:") || r.err().contains("\tat "), r.err());
    }

    @Test
    void aMisspelledOptionSuggestsTheNearestOneInsteadOfSayingARequiredOneIsMissing() {
        var r = gpusched(
                "replay",
                "--trace",
                TRACE,
                "--cluster",
                CLUSTER,
                "--polcy",
                "fifo",
                "--out",
                tmp.resolve("x").toString());
        assertOneLine(
                r, "gpusched replay: unknown option '--polcy'; did you mean --policy?", "(see gpusched replay --help)");
        var eq = gpusched("validate", "--time-tolerence=1", tmp.toString());
        assertOneLine(
                eq,
                "unknown option '--time-tolerence'; did you mean --time-tolerance?",
                "(see gpusched validate --help)");
        var sub = gpusched("replya");
        assertOneLine(sub, "did you mean replay?", "(see gpusched --help)");
    }

    @Test
    void aMisspelledPolicySuggestsTheNearestPolicy() {
        var r = gpusched(
                "replay",
                "--trace",
                TRACE,
                "--cluster",
                CLUSTER,
                "--policy",
                "andreas-gr",
                "--out",
                tmp.resolve("x").toString());
        assertOneLine(r, "unknown policy 'andreas-gr'", "did you mean andreas-rg?", "(see gpusched replay --help)");
        var far = gpusched(
                "replay",
                "--trace",
                TRACE,
                "--cluster",
                CLUSTER,
                "--policy",
                "zzzzzzzzzz",
                "--out",
                tmp.resolve("x").toString());
        assertOneLine(far, "unknown policy 'zzzzzzzzzz'");
        assertFalse(far.err().contains("did you mean"), "no suggestion when nothing is close: " + far.err());
        var placement = gpusched(
                "place-replay",
                "--pods",
                "p.csv",
                "--nodes",
                "n.csv",
                "--policy",
                "pwr-fdg",
                "--out",
                tmp.resolve("x").toString());
        assertTrue(placement.err().contains("did you mean pwr-fgd?"), placement.err());
    }

    @Test
    void aHugeParallelismIsAUsageErrorNotAStackTrace() {
        var r = gpusched(
                "replay",
                "--trace",
                TRACE,
                "--cluster",
                CLUSTER,
                "--policy",
                "fifo",
                "--parallelism",
                "99999",
                "--out",
                tmp.resolve("x").toString());
        assertOneLine(r, "--parallelism must be between 1 and " + ReplayCommand.maxLocalParallelism(), "got 99999");
        assertOneLine(
                gpusched(
                        "replay",
                        "--trace",
                        TRACE,
                        "--cluster",
                        CLUSTER,
                        "--policy",
                        "fifo",
                        "--parallelism",
                        "lots",
                        "--out",
                        tmp.toString()),
                "--parallelism");
    }

    @Test
    void aDirectoryWhereAFileBelongsIsSaidSo() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("trace-dir"));
        var r = gpusched(
                "replay",
                "--trace",
                dir.toString(),
                "--cluster",
                CLUSTER,
                "--policy",
                "fifo",
                "--out",
                tmp.resolve("x").toString());
        assertOneLine(r, "--trace " + dir + ": is a directory, not a file");
        var produce = gpusched("produce", "--trace", dir.toString(), "--bootstrap", "127.0.0.1:1");
        assertOneLine(produce, "--trace " + dir + ": is a directory, not a file");
    }

    @Test
    void theTopLevelHelpShowsWholeFirstSentences() {
        var r = gpusched("--help");
        assertEquals(ExitCode.OK, r.exit());
        String help = r.out().replaceAll("\\s+", " ");
        CommandLine cl = GpuSched.commandLine();
        for (var e : cl.getSubcommands().entrySet()) {
            if (e.getKey().equals("help")) continue;
            String summary = UsageErrors.firstSentence(
                    e.getValue().getCommandSpec().usageMessage().description());
            assertTrue(summary.endsWith("."), e.getKey() + ": " + summary);
            // picocli may break a line inside a word at a dot ("cluster. yaml"): compare without spaces
            assertTrue(
                    help.replace(" ", "").contains(e.getKey() + summary.replace(" ", "")),
                    e.getKey() + " summary in: " + r.out());
        }
        assertEquals(
                "Replays a trace through the scheduler on an embedded Flink mini cluster (no Kafka).",
                UsageErrors.firstSentence(new String[] {
                    "Replays a trace through the scheduler on an embedded Flink mini cluster (no Kafka): the trace is read as a bounded stream."
                }));
        assertEquals(
                "Compares runs, e.g. two policies.",
                UsageErrors.firstSentence(new String[] {"Compares runs, e.g. two", "policies. More."}));
        assertEquals(
                "Runs SQL over the topics (decisions, rejected: the catalog).",
                UsageErrors.firstSentence(
                        new String[] {"Runs SQL over the topics (decisions, rejected: the catalog). More."}));
    }

    @Test
    void helpTextsAreParagraphsNotLinesBrokenMidSentence() {
        // picocli starts each description element on a line of its own and wraps it at 80 columns: an element laid
        // out by hand must fit, and a longer one must be a whole paragraph, or the text breaks mid-sentence
        for (var e : GpuSched.commandLine().getSubcommands().entrySet()) {
            collectCommands(e.getKey(), e.getValue()).forEach((name, cmd) -> {
                String[] description = cmd.getCommandSpec().usageMessage().description();
                assertParagraphs(name, description);
                for (var option : cmd.getCommandSpec().options())
                    assertParagraphs(name + " " + option.longestName(), option.description());
                String summary = UsageErrors.firstSentence(description);
                assertEquals(
                        summary.chars().filter(c -> c == '(').count(),
                        summary.chars().filter(c -> c == ')').count(),
                        name + ": unbalanced parentheses in its summary: " + summary);
            });
        }
    }

    @Test
    void anOutputThatCannotBeCreatedSaysWhatFailed() {
        // /proc takes no new files: the message says what failed, not only the path
        var replay = gpusched(
                "replay", "--trace", TRACE, "--cluster", CLUSTER, "--policy", "fifo", "--out", "/proc/gpusched/x");
        assertOneLine(replay, "--out /proc/gpusched/x: cannot create it (", "no such file or directory)");
        Path run = tmp.resolve("run");
        assertEquals(
                0,
                gpusched("replay", "--trace", TRACE, "--cluster", CLUSTER, "--policy", "fifo", "--out", run.toString())
                        .exit());
        var report = gpusched("report", run.toString(), "--out", "/proc/gpusched/r");
        assertOneLine(report, "--out /proc/gpusched/r: cannot create the directory (", "no such file or directory)");
        var written = gpusched("generate", "--scenario", "armida", "--out", "/proc/gpusched/g");
        assertOneLine(written, "/proc/gpusched", "no such file or directory");
    }

    @Test
    void theHelpNamesEveryPolicyAndEachTopicsSubcommandOnce() {
        String replay = gpusched("replay", "--help").out().replaceAll("\\s+", " ");
        for (String policy : org.gpusched.core.policy.Policies.names())
            assertTrue(
                    replay.matches("(?s).*[ (]" + java.util.regex.Pattern.quote(policy) + "[,)].*"),
                    policy + ": " + replay);
        String topics = gpusched("topics", "--help").out();
        for (String sub : List.of("create", "list", "describe"))
            assertEquals(
                    1,
                    topics.lines()
                            .filter(l -> l.matches("\\s+" + sub + "\\s.*"))
                            .count(),
                    topics);
    }

    private static void assertParagraphs(String where, String[] lines) {
        for (int i = 0; i < lines.length - 1; i++) {
            String line = lines[i].strip();
            assertTrue(
                    lines[i].length() <= 80 || line.matches("(?s).*[.:!?]\\)?(%n)?"),
                    where + " --help breaks a sentence after: " + line);
        }
    }

    private static java.util.Map<String, CommandLine> collectCommands(String name, CommandLine cl) {
        java.util.Map<String, CommandLine> all = new java.util.LinkedHashMap<>();
        all.put(name, cl);
        cl.getSubcommands().forEach((sub, c) -> all.putAll(collectCommands(name + " " + sub, c)));
        return all;
    }

    @Test
    void everyCommandsHelpListsTheSameExitCodes() {
        for (String cmd : GpuSched.commandLine().getSubcommands().keySet()) {
            if (cmd.equals("help")) continue;
            var r = gpusched(cmd, "--help");
            assertEquals(ExitCode.OK, r.exit(), cmd);
            for (String code : ExitCode.HELP) {
                String[] kv = code.split(":", 2);
                assertTrue(
                        r.out().replaceAll("\\s+", " ").contains(kv[0] + " " + kv[1].replaceAll("\\s+", " ")),
                        cmd + " --help lacks '" + code + "':\n" + r.out());
            }
        }
    }

    @Test
    void withNoBrokerProduceRunAndConsumeFailFastWithOneLineSayingHowToStartOne() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        String bootstrap = "127.0.0.1:" + port;
        long started = System.nanoTime();
        var produce = gpusched("produce", "--trace", TRACE, "--bootstrap", bootstrap);
        var run = gpusched("run", "--bootstrap", bootstrap, "--cluster", CLUSTER, "--policy", "fifo", "--bounded");
        var consume = gpusched("consume", "--bootstrap", bootstrap, "--topic", "decisions");
        double seconds = (System.nanoTime() - started) / 1e9;
        for (var r : List.of(produce, run, consume)) {
            assertEquals(ExitCode.UNAVAILABLE, r.exit(), r.err());
            assertEquals(1, r.err().lines().count(), r.err());
            assertTrue(
                    r.err().contains("no Kafka broker at " + bootstrap)
                            && r.err().contains("bin/kafka-local start"),
                    r.err());
            assertFalse(r.out().contains("published"), r.out());
        }
        // the Kafka clients would retry for 20-30 s each before failing
        assertTrue(seconds < 15, "the three failed in " + seconds + " s");
    }

    @Test
    void anUnknownFailureIsOneLineWithExitThreeAndInputFailuresExitTwo() {
        StringWriter err = new StringWriter();
        CommandLine cl = GpuSched.commandLine();
        cl.setErr(new PrintWriter(err, true));
        int code = Failures.handle(
                new RuntimeException(new java.util.concurrent.CompletionException(new IllegalStateException("boom"))),
                cl.getSubcommands().get("replay"),
                null);
        assertEquals(ExitCode.INTERNAL, code);
        assertEquals(
                "gpusched replay: boom" + Failures.DEBUG_HINT, err.toString().strip());
        assertEquals(
                ExitCode.BAD_INPUT,
                Failures.exitCode(new RuntimeException(new org.gpusched.formats.FormatException("f.yaml:3", "bad"))));
        assertEquals(
                ExitCode.UNAVAILABLE,
                Failures.exitCode(new org.apache.kafka.common.errors.TimeoutException("no metadata")));
    }

    @Test
    void progressIsPlainLinesOffATerminalAndRejectedJobsAreNotFinished() {
        StringWriter file = new StringWriter();
        ProgressLine lines = new ProgressLine(new PrintWriter(file), false);
        lines.update("a");
        lines.update("b"); // within the interval: held back
        lines.update("c");
        lines.finish();
        assertEquals("a\nc\n", file.toString().replace("\r\n", "\n"));
        StringWriter tty = new StringWriter();
        ProgressLine terminal = new ProgressLine(new PrintWriter(tty), true);
        terminal.update("a");
        terminal.update("b");
        terminal.finish();
        assertEquals("\ra\rb\n", tty.toString().replace("\r\n", "\n").replace(System.lineSeparator(), "\n"));

        String line = ReplayCommand.progressLine("replay", new LocalRun.Progress(90, 10), 100, 2.0, new ProgressRate());
        assertEquals("replay: 90/100 jobs finished, 10 rejected (100%), 2.0 s", line);
        ProgressRate rate = new ProgressRate();
        assertEquals(
                "replay: 10/1,000 jobs finished, 0 rejected (1%), 1.0 s",
                ReplayCommand.progressLine("replay", new LocalRun.Progress(10, 0), 1000, 1.0, rate));
        // 90 more jobs in the next 9 s: 10 jobs/s, 900 left, 90 s to go.
        assertEquals(
                "replay: 100/1,000 jobs finished, 0 rejected (10%), 10.0 s, 10 jobs/s, ETA 1 min 30 s",
                ReplayCommand.progressLine("replay", new LocalRun.Progress(100, 0), 1000, 10.0, rate));
    }

    @Test
    void aNodeTypeNoNodeUsesIsWarnedAbout() throws Exception {
        Path cluster = tmp.resolve("c.yaml");
        Files.writeString(
                cluster,
                "nodeTypes:\n  A: {gpuModel: M, gpus: 1, pricePerHour: 1}\n  B: {gpuModel: M, gpus: 2, pricePerHour: 2}\nnodes:\n  - {id: n1, type: A}\n");
        StringWriter err = new StringWriter();
        ClusterWarnings.print(new PrintWriter(err), "gpusched replay", cluster, ClusterYaml.read(cluster));
        assertEquals(
                "gpusched replay: warning: " + cluster
                        + ": node type 'B' is used by no node (no job will ever run as it; "
                        + "a node's type or allowedTypes may be misspelled)",
                err.toString().strip());
        StringWriter none = new StringWriter();
        ClusterWarnings.print(
                new PrintWriter(none), "gpusched replay", Path.of(CLUSTER), ClusterYaml.read(Path.of(CLUSTER)));
        assertEquals("", none.toString());
    }

    @Test
    void aCheckpointDirectoryThatCannotBeOneIsOneLineSayingWhy() throws Exception {
        Path file = Files.writeString(tmp.resolve("a-file"), "not a directory");
        String[][] cases = {
            {file.toString(), file + ": is a file, not a directory"},
            {
                file.resolve("under").toString(),
                file.resolve("under") + ": " + file + " is a file, so no directory can be made under it"
            },
            {"/proc/gpusched-x", "/proc/gpusched-x: cannot make the directory ("},
        };
        for (String[] c : cases) {
            var r = gpusched(
                    "run",
                    "--bootstrap",
                    "127.0.0.1:1",
                    "--cluster",
                    CLUSTER,
                    "--checkpoint-interval",
                    "1",
                    "--checkpoint-dir",
                    c[0]);
            assertOneLine(r, "gpusched run: --checkpoint-dir " + c[1]);
        }
        var noRestore = gpusched("run", "--bootstrap", "127.0.0.1:1", "--cluster", CLUSTER, "--restore-new-settings");
        assertOneLine(noRestore, "--restore-new-settings needs --restore");
    }

    @Test
    void runningOutOfMemorySaysHowToRaiseTheHeapNotThatItIsAnInternalError() {
        // in the command's own thread the Error reaches main; in a Flink task it comes wrapped in the job's failure
        String direct = Failures.uncaught(
                new String[] {"validate", "runs/big"}, new OutOfMemoryError("GC overhead limit exceeded"));
        StringWriter err = new StringWriter();
        CommandLine validate = GpuSched.commandLine().getSubcommands().get("validate");
        validate.setErr(new PrintWriter(err));
        int code = Failures.handle(
                new RuntimeException("job failed", new OutOfMemoryError("Java heap space")), validate, null);
        for (String line : List.of(direct, err.toString().strip())) {
            assertTrue(line.startsWith("gpusched validate: out of memory ("), line);
            assertTrue(line.contains("GPUSCHED_JAVA_OPTS=-Xmx") && line.contains("bin/gpusched validate"), line);
            assertTrue(line.contains("docs/cli.md#memory"), line);
            assertFalse(line.contains("internal error"), line);
        }
        assertEquals(ExitCode.INTERNAL, code);
        assertTrue(Failures.uncaught(new String[] {"validate"}, new IllegalStateException("boom"))
                .contains("boom (internal error"));
    }
}
