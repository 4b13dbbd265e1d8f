package org.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code gpusched place-replay} end to end on the hand-checked fixture (jobs/streaming/.../place-replay/README.md). */
class PlaceReplayCommandIT {
    private static final Path PODS = Path.of("src/test/resources/place-replay/pods.csv");
    private static final Path NODES = Path.of("src/test/resources/place-replay/nodes.csv");

    @TempDir
    Path dir;

    private static int run(StringBuilder err, StringBuilder out, String... args) {
        PrintStream oldErr = System.err, oldOut = System.out;
        ByteArrayOutputStream e = new ByteArrayOutputStream(), o = new ByteArrayOutputStream();
        System.setErr(new PrintStream(e, true));
        System.setOut(new PrintStream(o, true));
        try {
            return GpuSched.commandLine().execute(args);
        } finally {
            System.setErr(oldErr);
            System.setOut(oldOut);
            err.append(e);
            out.append(o);
        }
    }

    @Test
    void replaysTheFixtureWritingTheRunFilesAndTheSummaryTable() throws Exception {
        StringBuilder err = new StringBuilder(), out = new StringBuilder();
        Path runDir = dir.resolve("run");
        int code = run(
                err,
                out,
                "place-replay",
                "--pods",
                PODS.toString(),
                "--nodes",
                NODES.toString(),
                "--policy",
                "bestfit",
                "--out",
                runDir.toString());
        assertEquals(0, code, err.toString());
        assertTrue(
                out.toString()
                        .matches("(?s).*bestfit\\s+42\\s+5\\s+4\\s+1\\s+4\\s+230\\s+260\\s+0\\.006\\s+0\\.6250\\s.*"),
                out.toString());
        assertTrue(out.toString().contains("rejected rows: 0"), out.toString());
        assertTrue(err.toString().contains("[     5/5]"), err.toString());
        assertEquals(9, Files.readAllLines(runDir.resolve("decisions.jsonl")).size());
        assertEquals(0, Files.size(runDir.resolve("rejected.jsonl")));
        assertEquals(10, Files.readAllLines(runDir.resolve("metrics.csv")).size());
        assertTrue(Files.readString(runDir.resolve("metrics.json")).contains("\"energyKWh\" : 0.00638888"));
    }

    @Test
    void replayWithPodsAndNodesIsThePlacementReplay() throws Exception {
        StringBuilder err = new StringBuilder(), out = new StringBuilder();
        Path viaPlaceReplay = dir.resolve("place-replay"), viaReplay = dir.resolve("replay");
        assertEquals(
                0,
                run(
                        err,
                        out,
                        "place-replay",
                        "--pods",
                        PODS.toString(),
                        "--nodes",
                        NODES.toString(),
                        "--policy",
                        "pwr-fgd",
                        "--alpha",
                        "0.2",
                        "--seed",
                        "7",
                        "--out",
                        viaPlaceReplay.toString()),
                err.toString());
        assertEquals(
                0,
                run(
                        err,
                        out,
                        "replay",
                        "--pods",
                        PODS.toString(),
                        "--nodes",
                        NODES.toString(),
                        "--policy",
                        "pwr-fgd",
                        "--alpha",
                        "0.2",
                        "--seed",
                        "7",
                        "--out",
                        viaReplay.toString()),
                err.toString());
        assertEquals(
                Files.readAllLines(viaPlaceReplay.resolve("decisions.jsonl")),
                Files.readAllLines(viaReplay.resolve("decisions.jsonl")));
        assertEquals(
                Files.readAllLines(viaPlaceReplay.resolve("metrics.csv")),
                Files.readAllLines(viaReplay.resolve("metrics.csv")));

        StringBuilder mixedErr = new StringBuilder();
        assertEquals(
                2,
                run(
                        mixedErr,
                        new StringBuilder(),
                        "replay",
                        "--pods",
                        PODS.toString(),
                        "--nodes",
                        NODES.toString(),
                        "--trace",
                        "t.jsonl",
                        "--policy",
                        "fgd",
                        "--out",
                        dir.resolve("x").toString()));
        assertTrue(
                mixedErr.toString().contains("gpusched place-replay: Unknown options: '--trace'"),
                "replay --pods is place-replay, which takes no scheduling input: " + mixedErr);
        StringBuilder schedulerOption = new StringBuilder();
        assertEquals(
                2,
                run(
                        schedulerOption,
                        new StringBuilder(),
                        "replay",
                        "--pods",
                        PODS.toString(),
                        "--nodes",
                        NODES.toString(),
                        "--controllers",
                        "2",
                        "--policy",
                        "fgd",
                        "--out",
                        dir.resolve("y").toString()));
        assertTrue(
                schedulerOption.toString().contains("gpusched place-replay: Unknown option")
                        && schedulerOption.toString().contains("'--controllers'"),
                schedulerOption.toString());
        StringBuilder defaultSeed = new StringBuilder();
        Path aliasDefault = dir.resolve("alias-default");
        assertEquals(
                0,
                run(
                        defaultSeed,
                        new StringBuilder(),
                        "replay",
                        "--pods",
                        PODS.toString(),
                        "--nodes",
                        NODES.toString(),
                        "--policy",
                        "random",
                        "--out",
                        aliasDefault.toString()),
                defaultSeed.toString());
        assertTrue(
                Files.readString(aliasDefault.resolve("metrics.json")).contains("--seed 42 "),
                "the alias takes place-replay's defaults (seed 42), not replay's");
    }

    @Test
    void aBadRowIsRejectedWithFileLineAndColumnAndTheReplayGoesOn() throws Exception {
        Path pods = dir.resolve("bad.csv");
        Files.writeString(
                pods,
                "name,cpu_milli,memory_mib,num_gpu,gpu_milli,creation_time,deletion_time,scheduled_time\n"
                        + "a,1000,1024,0,0,10,20,10\nb,1000,1024,0,0,30,5,30\nc,1000,1024,3,300,40,50,40\n");
        StringBuilder err = new StringBuilder(), out = new StringBuilder();
        Path runDir = dir.resolve("run");
        int code = run(
                err,
                out,
                "place-replay",
                "--pods",
                pods.toString(),
                "--nodes",
                NODES.toString(),
                "--policy",
                "fgd",
                "--out",
                runDir.toString());
        assertEquals(0, code, err.toString());
        assertTrue(
                out.toString().matches("(?s).*fgd\\s+42\\s+1\\s+1\\s+0\\s+1\\s.*"),
                "only the good row is replayed: " + out);
        assertTrue(out.toString().contains("rejected rows: 2 (see rejected.jsonl)"), out.toString());
        assertTrue(err.toString().contains("2 bad rows, rejected"), err.toString());
        var rejected = Files.readAllLines(runDir.resolve("rejected.jsonl"));
        assertEquals(2, rejected.size());
        assertTrue(
                rejected.get(0).contains("\"line\":3")
                        && rejected.get(0).contains("column 'deletion_time': 5 before creation_time 30")
                        && rejected.get(0).contains("\"field\":\"deletion_time\""),
                rejected.get(0));
        assertTrue(
                rejected.get(1).contains("\"line\":4")
                        && rejected.get(1).contains("\"field\":\"gpu_milli\"")
                        && rejected.get(1).contains("\"text\":\"c,1000,1024,3,300,40,50,40\""),
                rejected.get(1));
    }

    @Test
    void aFileWithNoValidRowFailsWithFileAndLine() throws Exception {
        Path pods = dir.resolve("allbad.csv");
        Files.writeString(
                pods,
                "name,cpu_milli,memory_mib,num_gpu,gpu_milli,creation_time,deletion_time,scheduled_time\n"
                        + "b,1000,1024,0,0,30,5,30\n");
        StringBuilder err = new StringBuilder(), out = new StringBuilder();
        int code = run(
                err,
                out,
                "place-replay",
                "--pods",
                pods.toString(),
                "--nodes",
                NODES.toString(),
                "--policy",
                "fgd",
                "--out",
                dir.resolve("run").toString());
        assertEquals(ExitCode.BAD_INPUT, code);
        assertTrue(
                err.toString().contains("allbad.csv:1: no scheduled pods to replay (1 bad rows, first: ")
                        && err.toString().contains("allbad.csv:2: column 'deletion_time'"),
                err.toString());
        assertFalse(err.toString().contains("Exception"), err.toString());
    }

    @Test
    void anUnknownPolicyIsAnOptionError() {
        StringBuilder err = new StringBuilder(), out = new StringBuilder();
        int code = run(
                err,
                out,
                "place-replay",
                "--pods",
                PODS.toString(),
                "--nodes",
                NODES.toString(),
                "--policy",
                "nope",
                "--out",
                dir.resolve("run").toString());
        assertEquals(2, code);
        assertTrue(err.toString().contains("unknown --policy 'nope'"), err.toString());
    }
}
