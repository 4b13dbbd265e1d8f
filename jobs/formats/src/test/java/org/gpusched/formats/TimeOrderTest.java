package org.gpusched.formats;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TimeOrderTest {
    @TempDir
    Path dir;

    private Path file(String... lines) throws Exception {
        Path p = dir.resolve("f.jsonl");
        Files.writeString(p, String.join("\n", lines) + "\n");
        return p;
    }

    @Test
    void equalTimesAndMalformedLinesKeepAFileInOrder() throws Exception {
        Path p = file(
                "{\"id\":\"a\",\"submit\":0}",
                "not json",
                "{\"id\":\"b\",\"times\":{\"submit\":-5},\"submit\":0}",
                "{\"id\":\"c\",\"submit\":\"late\"}",
                "",
                "{\"submit\":3.5,\"id\":\"d\"}");
        assertEquals(0, TimeOrder.firstLineOutOfOrder(p, "submit"));
    }

    @Test
    void namesTheFirstLineEarlierThanOneBefore() throws Exception {
        Path p = file("{\"submit\":10}", "{\"submit\":20}", "{\"submit\":15}", "{\"submit\":1}");
        assertEquals(3, TimeOrder.firstLineOutOfOrder(p, "submit"));
    }

    @Test
    void onlyTheTopLevelFieldCounts() {
        assertTrue(Double.isNaN(TimeOrder.topLevelNumber("{\"times\":{\"time\":4}}", "time")));
        assertEquals(7.0, TimeOrder.topLevelNumber("{\"times\":{\"time\":4},\"time\":7}", "time"));
    }

    @Test
    void aLineOfBadBytesIsSkippedNotAnAbort() throws Exception {
        Path p = dir.resolve("bytes.jsonl");
        byte[] bad = "{\"id\":\"b\u00ff\",\"submit\":1}".getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
        try (var out = Files.newOutputStream(p)) {
            out.write("{\"submit\":5}\n".getBytes());
            out.write(bad);
            out.write("\n{\"submit\":4}\n".getBytes());
        }
        assertEquals(3, TimeOrder.firstLineOutOfOrder(p, "submit"));
    }

    @Test
    void aTimeTheJobRejectsDoesNotCount() throws Exception {
        // 1e11 s is past the latest time a trace may give: the job rejects the line, so it orders nothing
        Path p = file("{\"submit\":10}", "{\"submit\":1e11}", "{\"submit\":-3}", "{\"submit\":20}");
        assertEquals(0, TimeOrder.firstLineOutOfOrder(p, "submit"));
        // with a parser's view of the lines: whatever it rejects is skipped
        assertEquals(
                0,
                TimeOrder.firstLineOutOfOrder(
                        file("{\"submit\":10}", "{\"submit\":30,\"bad\":1}", "{\"submit\":20}"),
                        line -> line.contains("bad") ? Double.NaN : TimeOrder.topLevelNumber(line, "submit")));
    }
}
