package org.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Run and compare directories are written whole or not at all: a killed replay leaves the finished run that was there
 * (and nothing that passes for finished), a second run into a directory in use fails at once naming the first, a
 * compare into an old compare directory replaces it whole, and a trace without a valid job fails.
 */
class RunDirectoryIT {
    private static final Path EXAMPLES =
            Path.of("../../examples").toAbsolutePath().normalize();
    private static final String TRACE = EXAMPLES.resolve("armida-trace.jsonl").toString();
    private static final String CLUSTER =
            EXAMPLES.resolve("armida-cluster.yaml").toString();

    @TempDir
    static Path shared;

    @TempDir
    Path tmp;

    private static Path bigTrace;
    private static Path bigCluster;

    /** A trace that takes a replay several seconds, long enough to be caught in the middle. */
    @BeforeAll
    static void generateABigTrace() {
        WorkloadCommandsTest.generate(
                "--scenario",
                "hierarchical",
                "--nodes",
                "20",
                "--jobs",
                "6000",
                "--out",
                shared.resolve("big").toString());
        bigTrace = shared.resolve("big/trace.jsonl");
        bigCluster = shared.resolve("big/cluster.yaml");
    }

    /** The launcher in a JVM of its own, as a user runs it, output to a file. */
    private static Process launch(Path log, String... args) throws IOException {
        return launchWithHeap(log, "1g", args);
    }

    /** The launcher in a JVM of its own with a heap of {@code heap} (as -Xmx takes it), output to a file. */
    static Process launchWithHeap(Path log, String heap, String... args) throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        for (String a : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (!a.startsWith("-Xmx") && !a.startsWith("-javaagent") && !a.startsWith("-agentlib")) cmd.add(a);
        }
        cmd.addAll(List.of("-Xmx" + heap, "-cp", System.getProperty("java.class.path"), GpuSched.class.getName()));
        cmd.addAll(List.of(args));
        return new ProcessBuilder(cmd)
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
    }

    /** Waits until the replay in {@code child} has finished some jobs (its staging directory's job metrics grow). */
    private static void awaitMidRun(Process child, Path out, Path log) throws Exception {
        Path parts = out.resolveSibling("." + out.getFileName() + ".partial-" + child.pid())
                .resolve(".parts");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
        while (System.nanoTime() < deadline) {
            assertTrue(child.isAlive(), "the replay ended before it could be interrupted:\n" + Files.readString(log));
            if (Files.isDirectory(parts)) {
                try (Stream<Path> files = Files.list(parts)) {
                    if (files.anyMatch(f -> f.getFileName().toString().startsWith("job-metrics") && sizeOf(f) > 0))
                        return;
                }
            }
            Thread.sleep(50);
        }
        throw new AssertionError("the replay did not get going within 180 s:\n" + Files.readString(log));
    }

    private static long sizeOf(Path f) {
        try {
            return Files.size(f);
        } catch (IOException gone) {
            return 0;
        }
    }

    private static List<String> leftovers(Path out) throws IOException {
        try (Stream<Path> siblings = Files.list(out.getParent())) {
            return siblings.map(p -> p.getFileName().toString())
                    .filter(n -> n.startsWith("." + out.getFileName() + "."))
                    .toList();
        }
    }

    @Test
    void anInterruptedReplayLeavesTheFinishedRunThereAndAConcurrentOneIsRefused() throws Exception {
        Path out = tmp.resolve("run");
        var first = WorkloadCommandsTest.gpusched(
                "replay", "--trace", TRACE, "--cluster", CLUSTER, "--policy", "fifo", "--out", out.toString());
        assertEquals(0, first.exit(), first.err());
        List<String> finished = Files.readAllLines(out.resolve("decisions.jsonl"));

        // Ctrl-C (SIGTERM) in the middle of a replay into the same directory
        Path log = tmp.resolve("interrupted.log");
        Process child = launch(
                log,
                "replay",
                "--trace",
                bigTrace.toString(),
                "--cluster",
                bigCluster.toString(),
                "--policy",
                "andreas-rg",
                "--out",
                out.toString());
        awaitMidRun(child, out, log);
        // meanwhile, a second run into the same --out fails at once, naming the first
        var second = WorkloadCommandsTest.gpusched(
                "replay", "--trace", TRACE, "--cluster", CLUSTER, "--policy", "edf", "--out", out.toString());
        assertEquals(2, second.exit(), second.err());
        assertTrue(second.err().contains("is being written by another run (pid " + child.pid()), second.err());
        assertEquals(1, second.err().strip().lines().count(), "one line: " + second.err());
        child.destroy();
        assertTrue(child.waitFor(60, TimeUnit.SECONDS));
        assertEquals(finished, Files.readAllLines(out.resolve("decisions.jsonl")), "the finished run is untouched");
        assertEquals(List.of(), leftovers(out), "the interrupted run cleaned up its staging directory and lock");
        var valid = WorkloadCommandsTest.gpusched("validate", out.toString());
        assertEquals(0, valid.exit(), valid.out() + valid.err());

        // killed outright (SIGKILL): nothing runs at exit, so its staging directory stays, hidden and marked incomplete
        Process killed = launch(
                tmp.resolve("killed.log"),
                "replay",
                "--trace",
                bigTrace.toString(),
                "--cluster",
                bigCluster.toString(),
                "--policy",
                "andreas-rg",
                "--out",
                out.toString());
        awaitMidRun(killed, out, tmp.resolve("killed.log"));
        killed.destroyForcibly();
        assertTrue(killed.waitFor(60, TimeUnit.SECONDS));
        assertEquals(finished, Files.readAllLines(out.resolve("decisions.jsonl")), "the finished run is untouched");
        Path staging = out.resolveSibling("." + out.getFileName() + ".partial-" + killed.pid());
        assertTrue(Files.exists(staging.resolve(".incomplete")), leftovers(out).toString());
        var refused = WorkloadCommandsTest.gpusched("validate", staging.toString());
        assertEquals(2, refused.exit(), refused.out() + refused.err());
        assertTrue(refused.err().contains("an incomplete run (interrupted, or still being written)"), refused.err());
        var notReported = WorkloadCommandsTest.gpusched(
                "report", staging.toString(), "--out", tmp.resolve("report").toString());
        assertEquals(2, notReported.exit(), notReported.err());
        assertTrue(notReported.err().contains("an incomplete run"), notReported.err());

        // the next run into the directory clears the leftovers and replaces the old run whole
        var next = WorkloadCommandsTest.gpusched(
                "replay", "--trace", TRACE, "--cluster", CLUSTER, "--policy", "edf", "--out", out.toString());
        assertEquals(0, next.exit(), next.err());
        assertTrue(Files.readString(out.resolve("run.json")).contains("\"policy\" : \"edf\""));
        assertEquals(List.of(), leftovers(out));
    }

    @Test
    void aDirectoryAnOlderVersionLeftHalfWrittenIsRefused() throws Exception {
        Path out = tmp.resolve("old");
        assertEquals(
                0,
                WorkloadCommandsTest.gpusched(
                                "replay",
                                "--trace",
                                TRACE,
                                "--cluster",
                                CLUSTER,
                                "--policy",
                                "fifo",
                                "--out",
                                out.toString())
                        .exit());
        Files.createDirectories(
                out.resolve(".parts")); // what an interrupted replay used to leave beside the old run's files
        Files.writeString(out.resolve(".parts/decisions-0.jsonl"), "{}\n");
        var v = WorkloadCommandsTest.gpusched("validate", out.toString());
        assertEquals(2, v.exit());
        assertTrue(v.err().contains(out + ": an incomplete run"), v.err());
    }

    @Test
    void compareIntoAnOldCompareDirectoryReplacesItWholeAndValidateAndReportTakeIt() throws Exception {
        Path out = tmp.resolve("cmp");
        var wide = WorkloadCommandsTest.gpusched(
                "compare",
                "--trace",
                TRACE,
                "--cluster",
                CLUSTER,
                "--policies",
                "fifo,edf",
                "--noise",
                "0.2",
                "--out",
                out.toString());
        assertEquals(0, wide.exit(), wide.err());
        assertTrue(Files.isDirectory(out.resolve("edf")));
        var narrow = WorkloadCommandsTest.gpusched(
                "compare", "--trace", TRACE, "--cluster", CLUSTER, "--policies", "fifo", "--out", out.toString());
        assertEquals(0, narrow.exit(), narrow.err());
        assertFalse(Files.exists(out.resolve("edf")), "no policy directory of the older compare is left");
        assertEquals(2, Files.readAllLines(out.resolve("comparison.csv")).size());
        assertTrue(
                Files.readAllLines(out.resolve("comparison.csv")).get(1).contains(",fifo,"),
                "the run is named relative to the CSV");
        assertEquals(List.of(), leftovers(out));

        // validate and report take a compare directory: every run in it
        var v = WorkloadCommandsTest.gpusched("validate", out.toString());
        assertEquals(0, v.exit(), v.out() + v.err());
        var r = WorkloadCommandsTest.gpusched(
                "report", out.toString(), "--out", tmp.resolve("rep").toString());
        assertEquals(0, r.exit(), r.err());
        assertEquals(2, Files.readAllLines(tmp.resolve("rep/comparison.csv")).size());
        assertTrue(Files.readString(tmp.resolve("rep/comparison.csv"))
                .lines()
                .skip(1)
                .allMatch(l -> l.startsWith("fifo,")));

        // the same run given twice (itself, and inside its compare directory) is named and reported once
        var twice = WorkloadCommandsTest.gpusched(
                "report",
                out.toString(),
                out.resolve("fifo").toString(),
                "--out",
                tmp.resolve("rep3").toString());
        assertEquals(2, twice.exit(), twice.err());
        assertTrue(
                twice.err().contains(out.resolve("fifo") + " is given twice (" + out + " holds it too); reported once"),
                twice.err());
        assertEquals(2, Files.readAllLines(tmp.resolve("rep3/comparison.csv")).size());
    }

    @Test
    void reportTakesAPlaceReplayDirectoryAndValidateSaysWhyItDoesNot() throws Exception {
        Path out = tmp.resolve("placed");
        var placed = WorkloadCommandsTest.gpusched(
                "place-replay",
                "--pods",
                "src/test/resources/place-replay/pods.csv",
                "--nodes",
                "src/test/resources/place-replay/nodes.csv",
                "--policy",
                "bestfit",
                "--out",
                out.toString());
        assertEquals(0, placed.exit(), placed.err());
        var r = WorkloadCommandsTest.gpusched(
                "report", out.toString(), "--out", tmp.resolve("rep").toString());
        assertEquals(0, r.exit(), r.err());
        assertTrue(Files.readAllLines(tmp.resolve("rep/comparison.csv")).get(1).startsWith("bestfit,"));
        var v = WorkloadCommandsTest.gpusched("validate", out.toString());
        assertEquals(2, v.exit());
        assertTrue(
                v.err().contains("a placement replay (place-replay, compare --pods); validate audits scheduling runs"),
                v.err());
        var mixed = WorkloadCommandsTest.gpusched(
                "report",
                out.toString(),
                tmp.resolve("nothing").toString(),
                "--out",
                tmp.resolve("rep2").toString());
        assertEquals(2, mixed.exit());
    }

    @Test
    void anOutputDirectoryHoldingOtherFilesIsNotReplaced() throws Exception {
        Path out = tmp.resolve("mine");
        Files.createDirectories(out);
        Files.writeString(out.resolve("notes.txt"), "keep me");
        var r = WorkloadCommandsTest.gpusched(
                "replay", "--trace", TRACE, "--cluster", CLUSTER, "--policy", "fifo", "--out", out.toString());
        assertEquals(2, r.exit());
        assertTrue(r.err().contains("is not a gpusched output directory (it holds notes.txt)"), r.err());
        assertEquals("keep me", Files.readString(out.resolve("notes.txt")));
    }

    @Test
    void aRunIntoAnEarlierRunDirectoryKeepsTheUsersFiles() throws Exception {
        Path out = tmp.resolve("again");
        String[] fifo = {"replay", "--trace", TRACE, "--cluster", CLUSTER, "--policy", "fifo", "--out", out.toString()};
        assertEquals(0, WorkloadCommandsTest.gpusched(fifo).exit());
        Files.writeString(out.resolve("notes.md"), "why this run");
        var again = WorkloadCommandsTest.gpusched(
                "replay", "--trace", TRACE, "--cluster", CLUSTER, "--policy", "edf", "--out", out.toString());
        assertEquals(0, again.exit(), again.err());
        assertTrue(Files.readString(out.resolve("run.json")).contains("\"policy\" : \"edf\""), "the new run is there");
        assertEquals("why this run", Files.readString(out.resolve("notes.md")), "the user's file is kept");
        assertEquals(List.of(), leftovers(out));
        var valid = WorkloadCommandsTest.gpusched("validate", out.toString());
        assertEquals(0, valid.exit(), valid.out() + valid.err());
    }

    @Test
    void aTraceWithoutAValidJobFails() throws Exception {
        Path empty = tmp.resolve("empty.jsonl");
        Files.writeString(empty, "");
        var e = WorkloadCommandsTest.gpusched(
                "replay",
                "--trace",
                empty.toString(),
                "--cluster",
                CLUSTER,
                "--policy",
                "fifo",
                "--out",
                tmp.resolve("e").toString());
        assertEquals(2, e.exit(), e.out());
        assertTrue(e.err().contains(empty + ": empty trace"), e.err());

        Path csv = tmp.resolve("jobs.csv");
        Files.writeString(csv, "id,submit,due,weight\nJ1,0,100,1\nJ2,5,200,1\n");
        Path out = tmp.resolve("c");
        var c = WorkloadCommandsTest.gpusched(
                "replay", "--trace", csv.toString(), "--cluster", CLUSTER, "--policy", "fifo", "--out", out.toString());
        assertEquals(2, c.exit(), c.out());
        assertTrue(c.err().contains(csv + ": no valid job (3 lines rejected; the first: " + csv + ":1: "), c.err());
        assertFalse(Files.exists(out), "no run directory for a run that replayed nothing");
        assertEquals(List.of(), leftovers(out));

        var cmp = WorkloadCommandsTest.gpusched(
                "compare",
                "--trace",
                csv.toString(),
                "--cluster",
                CLUSTER,
                "--policies",
                "fifo,edf",
                "--out",
                out.toString());
        assertEquals(2, cmp.exit(), cmp.out());
        assertTrue(cmp.err().contains("no valid job"), cmp.err());
        assertFalse(Files.exists(out));
    }

    @Test
    void reportTellsApartRunsThatShareAPolicyAndSeed() throws Exception {
        Path k1 = tmp.resolve("k1"), k3 = tmp.resolve("k3"), it = tmp.resolve("it5");
        for (var args : List.of(
                List.of("--out", k1.toString()),
                List.of("--controllers", "3", "--out", k3.toString()),
                List.of("--iterations", "5", "--out", it.toString()))) {
            List<String> all = new ArrayList<>(
                    List.of("replay", "--trace", TRACE, "--cluster", CLUSTER, "--policy", "andreas-rg", "--seed", "2"));
            all.addAll(args);
            var r = WorkloadCommandsTest.gpusched(all.toArray(String[]::new));
            assertEquals(0, r.exit(), r.err());
        }
        Path rep = tmp.resolve("rep");
        var r = WorkloadCommandsTest.gpusched(
                "report", k1.toString(), k3.toString(), it.toString(), "--out", rep.toString());
        assertEquals(0, r.exit(), r.err());
        assertTrue(
                r.out().contains("andreas-rg K=1 iterations=1000 ")
                        && r.out().contains("andreas-rg K=3 iterations=1000 ")
                        && r.out().contains("andreas-rg K=1 iterations=5 "),
                r.out());
        List<String> csv = Files.readAllLines(rep.resolve("comparison.csv"));
        assertTrue(
                csv.get(0).endsWith(",run,settings,lowerBound,overBoundPercent,optimizerCalls,callsUnderPressure"),
                csv.get(0));
        assertTrue(csv.get(2).contains("k3\",\"K=3 iterations=1000\","), csv.get(2));
        String html = Files.readString(rep.resolve("report.html"));
        assertTrue(html.contains("andreas-rg K=3 iterations=1000"), "the chart legend and the table say what differs");
        for (String name : List.of(
                "andreas-rg K=1 iterations=1000", "andreas-rg K=3 iterations=1000", "andreas-rg K=1 iterations=5")) {
            assertTrue(html.contains("<h3>" + name + "</h3>"), "a GPUs-busy chart for " + name);
            assertTrue(html.contains("<tr><td>" + name + "</td>"), "a row of the moves table for " + name);
        }

        // two runs alike in every setting are told apart by their directory
        Path copy = tmp.resolve("copy");
        assertEquals(
                0,
                WorkloadCommandsTest.gpusched(
                                "replay",
                                "--trace",
                                TRACE,
                                "--cluster",
                                CLUSTER,
                                "--policy",
                                "andreas-rg",
                                "--seed",
                                "2",
                                "--out",
                                copy.toString())
                        .exit());
        var same = WorkloadCommandsTest.gpusched(
                "report",
                k1.toString(),
                copy.toString(),
                "--out",
                tmp.resolve("rep2").toString());
        assertEquals(0, same.exit(), same.err());
        assertTrue(
                same.out().contains("dir=")
                        && same.out().contains("/k1")
                        && same.out().contains("/copy"),
                same.out());
    }
}
