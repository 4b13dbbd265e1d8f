package org.gpusched.formats;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class LineReaderTest {
    private static List<LineReader.Line> lines(byte[] bytes, int max) throws Exception {
        List<LineReader.Line> lines = new ArrayList<>();
        try (LineReader in = new LineReader(new ByteArrayInputStream(bytes), max)) {
            LineReader.Line l;
            while ((l = in.next()) != null) lines.add(l);
        }
        return lines;
    }

    @Test
    void badBytesAndLongLinesAreBadLinesAndTheRestIsRead() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write("caf\u00e9 ok\r\n".getBytes(StandardCharsets.UTF_8));
        out.write(new byte[] {'{', '"', (byte) 0xC3, '"', '}', '\n'});
        out.write("x".repeat(100).getBytes(StandardCharsets.US_ASCII));
        out.write("\n\nlast".getBytes(StandardCharsets.US_ASCII));
        List<LineReader.Line> lines = lines(out.toByteArray(), 50);
        assertEquals(5, lines.size());
        assertEquals(new LineReader.Line(1, "caf\u00e9 ok", null), lines.get(0));
        assertEquals(2, lines.get(1).number());
        assertEquals("not valid UTF-8 at byte 3 (length 1)", lines.get(1).error());
        assertEquals("line is 100 bytes, over the limit of 50", lines.get(2).error());
        assertEquals("x".repeat(50), lines.get(2).text());
        assertEquals(new LineReader.Line(4, "", null), lines.get(3));
        assertEquals(new LineReader.Line(5, "last", null), lines.get(4));
    }

    @Test
    void linesLongerThanTheReadChunkAreWholeAndAnEmptyInputHasNone() throws Exception {
        String big = "y".repeat(200_000);
        List<LineReader.Line> lines =
                lines((big + "\n" + big + "\u00e9").getBytes(StandardCharsets.UTF_8), LineReader.MAX_LINE_BYTES);
        assertEquals(big, lines.get(0).text());
        assertEquals(big + "\u00e9", lines.get(1).text());
        assertTrue(lines.get(1).ok());
        assertTrue(lines(new byte[0], 10).isEmpty());
        try (LineReader in = new LineReader(new ByteArrayInputStream("\n".getBytes()), 10)) {
            assertEquals(new LineReader.Line(1, "", null), in.next());
            assertNull(in.next());
        }
    }

    @Test
    void aByteOrderMarkAtTheStartIsNoPartOfTheFirstLineElsewhereItIs() throws Exception {
        byte[] bom = {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF};
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(bom);
        out.write("{\"a\":1}\n".getBytes(StandardCharsets.UTF_8));
        out.write(bom);
        out.write("{\"b\":2}".getBytes(StandardCharsets.UTF_8));
        List<LineReader.Line> lines = lines(out.toByteArray(), 50);
        assertEquals(new LineReader.Line(1, "{\"a\":1}", null), lines.get(0));
        assertEquals(new LineReader.Line(2, "\ufeff{\"b\":2}", null), lines.get(1));
        assertEquals(List.of(new LineReader.Line(1, "", null)), lines(bom, 50));
    }
}
