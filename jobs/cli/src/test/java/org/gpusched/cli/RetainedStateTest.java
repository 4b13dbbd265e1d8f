package org.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RetainedStateTest {
    @TempDir
    Path dir;

    private Path snapshot(String relative, long modifiedMillis) throws Exception {
        Path d = dir.resolve(relative);
        Files.createDirectories(d);
        Path metadata = Files.writeString(d.resolve(RetainedState.METADATA), "x");
        Files.setLastModifiedTime(metadata, FileTime.fromMillis(modifiedMillis));
        return d;
    }

    @Test
    void latestIsTheNewestCompletedCheckpointOrSavepointUnderTheDirectory() throws Exception {
        snapshot("job-a/chk-7", 1_000);
        Path newest = snapshot("job-b/chk-2", 3_000);
        snapshot("savepoints/savepoint-1", 2_000);
        Files.createDirectories(dir.resolve("job-b/chk-3")); // in progress when killed: no _metadata
        assertEquals(newest, RetainedState.resolve("latest", dir));
        Path savepoint = snapshot("savepoints/savepoint-2", 4_000);
        assertEquals(savepoint, RetainedState.resolve("latest", dir));
    }

    @Test
    void aPathIsTheSnapshotItNamesOrTheNewestBelowIt() throws Exception {
        Path old = snapshot("job-a/chk-1", 1_000);
        Path recent = snapshot("job-a/chk-2", 2_000);
        assertEquals(old, RetainedState.resolve(old.toString(), null));
        assertEquals(
                old, RetainedState.resolve(old.resolve(RetainedState.METADATA).toString(), null));
        assertEquals(recent, RetainedState.resolve(dir.resolve("job-a").toString(), null));
    }

    @Test
    void nothingToRestoreIsAClearError() throws Exception {
        var noDir = assertThrows(IllegalArgumentException.class, () -> RetainedState.resolve("latest", null));
        assertTrue(noDir.getMessage().contains("--checkpoint-dir"), noDir.getMessage());
        var empty = assertThrows(IllegalArgumentException.class, () -> RetainedState.resolve("latest", dir));
        assertTrue(empty.getMessage().contains("no completed checkpoint"), empty.getMessage());
        var missing = assertThrows(
                IllegalArgumentException.class,
                () -> RetainedState.resolve(dir.resolve("nope").toString(), null));
        assertTrue(missing.getMessage().contains("does not exist"), missing.getMessage());
    }
}
