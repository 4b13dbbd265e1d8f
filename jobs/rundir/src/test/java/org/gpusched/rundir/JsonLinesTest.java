package org.gpusched.rundir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JsonLinesTest {
    @TempDir
    Path dir;

    @Test
    void nonBlankLinesComeInFileOrderWithTheirLineNumbers() throws Exception {
        Path f = Files.writeString(dir.resolve("a.jsonl"), "{\"x\":1}\n\n   \n{\"x\":2}\n{\"x\":3}");
        List<String> seen = new ArrayList<>();
        JsonLines.forEachLine(f, (text, number) -> seen.add(number + " " + text));
        assertEquals(List.of("1 {\"x\":1}", "4 {\"x\":2}", "5 {\"x\":3}"), seen);
        List<String> trees = new ArrayList<>();
        JsonLines.forEach(
                f,
                new ObjectMapper(),
                IllegalStateException::new,
                (v, where) -> trees.add(v.get("x").asInt() + "@" + where.substring(where.lastIndexOf(':') + 1)));
        assertEquals(List.of("1@1", "2@4", "3@5"), trees);
    }

    @Test
    void aLineThatIsNotJsonEndsTheReadingWithTheCallersExceptionNamingFileAndLine() throws Exception {
        Path f = Files.writeString(dir.resolve("b.jsonl"), "{\"x\":1}\n{\"x\":\n{\"x\":3}\n");
        List<Integer> read = new ArrayList<>();
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class,
                () -> JsonLines.forEach(
                        f,
                        new ObjectMapper(),
                        IllegalArgumentException::new,
                        (v, where) -> read.add(v.get("x").asInt())));
        assertTrue(e.getMessage().startsWith(f + ":2: not valid JSON ("), e.getMessage());
        assertEquals(List.of(1), read, "the lines before it were handled, none after");
    }

    @Test
    void aMissingFileIsAnIoErrorForTheCallerToWord() {
        assertThrows(NoSuchFileException.class, () -> JsonLines.forEachLine(dir.resolve("none.jsonl"), (t, n) -> {}));
    }

    @Test
    void aDirectoryIsInProgressWhileAMarkerIsInItOrUnderAStagingName() throws Exception {
        Path run = Files.createDirectories(dir.resolve("run"));
        assertFalse(RunLayout.inProgress(run));
        Files.createFile(run.resolve(RunLayout.INCOMPLETE));
        assertTrue(RunLayout.inProgress(run));
        Files.delete(run.resolve(RunLayout.INCOMPLETE));
        Files.createDirectories(run.resolve(RunLayout.PARTS));
        assertTrue(RunLayout.inProgress(run));
        assertTrue(RunLayout.inProgress(Files.createDirectories(dir.resolve(".out.partial-1234"))));
        assertFalse(RunLayout.inProgress(Files.createDirectories(dir.resolve("out.partial-1234"))));
    }
}
