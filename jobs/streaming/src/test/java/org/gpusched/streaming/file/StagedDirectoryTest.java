package org.gpusched.streaming.file;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** An output directory appears whole on commit, never when abandoned, and is locked while written. */
class StagedDirectoryTest {
    @TempDir
    Path tmp;

    private List<String> names(Path dir) throws Exception {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    @Test
    void aCommittedDirectoryReplacesTheOldOneWholeAndAnAbandonedOneLeavesNothing() throws Exception {
        Path out = tmp.resolve("run");
        Files.createDirectories(out.resolve("edf"));
        Files.writeString(out.resolve("edf/metrics.json"), "{}");
        Files.writeString(out.resolve("comparison.csv"), "old");
        try (StagedDirectory staged = StagedDirectory.open(out, "test", List.of())) {
            assertTrue(Files.exists(staged.dir().resolve(StagedDirectory.INCOMPLETE)));
            assertEquals(
                    "old",
                    Files.readString(out.resolve("comparison.csv")),
                    "the old output stays until the new one is complete");
            Files.writeString(staged.dir().resolve("comparison.csv"), "new");
            staged.commit();
        }
        assertEquals(List.of("comparison.csv"), names(out), "nothing of the old output is merged in");
        assertEquals("new", Files.readString(out.resolve("comparison.csv")));
        assertEquals(List.of("run"), names(tmp), "no lock file or staging directory left");

        try (StagedDirectory staged = StagedDirectory.open(out, "test", List.of())) {
            Files.writeString(staged.dir().resolve("comparison.csv"), "abandoned");
        }
        assertEquals("new", Files.readString(out.resolve("comparison.csv")));
        assertEquals(List.of("run"), names(tmp));
    }

    @Test
    void whatNoGpuschedCommandWritesIsKeptWhenAnEarlierOutputIsReplaced() throws Exception {
        Path out = tmp.resolve("cmp");
        Files.createDirectories(out.resolve("fifo"));
        Files.createDirectories(out.resolve("edf/plots"));
        Files.writeString(out.resolve("comparison.csv"), "old");
        Files.writeString(out.resolve("notes.md"), "my notes");
        Files.writeString(out.resolve("fifo/run.json"), "old");
        Files.writeString(out.resolve("fifo/decisions.jsonl"), "old");
        Files.writeString(out.resolve("fifo/late-jobs.txt"), "my list");
        Files.writeString(out.resolve("edf/run.json"), "old");
        Files.writeString(out.resolve("edf/plots/jct.png"), "my plot");
        Files.writeString(out.resolve("power-fifo.csv"), "old");
        try (StagedDirectory staged = StagedDirectory.open(out, "test", List.of())) {
            Files.createDirectories(staged.dir().resolve("fifo"));
            Files.writeString(staged.dir().resolve("fifo/run.json"), "new");
            Files.writeString(staged.dir().resolve("comparison.csv"), "new");
            staged.commit();
        }
        assertEquals(List.of("comparison.csv", "edf", "fifo", "notes.md"), names(out));
        assertEquals("my notes", Files.readString(out.resolve("notes.md")));
        assertEquals("new", Files.readString(out.resolve("comparison.csv")));
        assertEquals(List.of("late-jobs.txt", "run.json"), names(out.resolve("fifo")), "the old decisions are gone");
        assertEquals("new", Files.readString(out.resolve("fifo/run.json")));
        assertEquals("my list", Files.readString(out.resolve("fifo/late-jobs.txt")));
        assertEquals(List.of("plots"), names(out.resolve("edf")), "edf's run is gone, the user's plot is not");
        assertEquals("my plot", Files.readString(out.resolve("edf/plots/jct.png")));
        assertEquals(List.of("cmp"), names(tmp));
    }

    @Test
    void aSecondWriterIsRefusedNamingTheFirstAndForeignOrInputHoldingDirectoriesAreRefused() throws Exception {
        Path out = tmp.resolve("run");
        try (StagedDirectory first = StagedDirectory.open(out, "gpusched replay --out run", List.of())) {
            var e = assertThrows(StagedDirectory.Refused.class, () -> StagedDirectory.open(out, "second", List.of()));
            assertTrue(
                    e.getMessage()
                            .contains("is being written by another run (pid "
                                    + ProcessHandle.current().pid()),
                    e.getMessage());
            assertTrue(e.getMessage().contains("gpusched replay --out run"), e.getMessage());
        }
        Path mine = tmp.resolve("mine");
        Files.createDirectories(mine);
        Files.writeString(mine.resolve("thesis.tex"), "");
        var foreign = assertThrows(StagedDirectory.Refused.class, () -> StagedDirectory.open(mine, "x", List.of()));
        assertTrue(
                foreign.getMessage().contains("not a gpusched output directory (it holds thesis.tex)"),
                foreign.getMessage());
        Path runs = tmp.resolve("runs");
        Files.createDirectories(runs.resolve("a"));
        Files.writeString(runs.resolve("a/run.json"), "{}");
        var folder = assertThrows(StagedDirectory.Refused.class, () -> StagedDirectory.open(runs, "x", List.of()));
        assertTrue(
                folder.getMessage().contains("(it holds a)"),
                "a folder of runs is not one run's output: " + folder.getMessage());
        Path withInput = tmp.resolve("data");
        Files.createDirectories(withInput);
        Files.writeString(withInput.resolve("run.json"), "{}");
        var input = assertThrows(
                StagedDirectory.Refused.class,
                () -> StagedDirectory.open(withInput, "x", List.of(withInput.resolve("run.json"))));
        assertTrue(input.getMessage().contains("contains the input"), input.getMessage());
        assertFalse(Files.exists(tmp.resolve(".mine.lock")));
    }
}
