package org.gpusched.formats;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AlibabaCsvTest {
    private static final List<String> REQUIRED = List.of("name", "num_gpu");

    @TempDir
    Path dir;

    private Path file(String text) throws IOException {
        Path p = dir.resolve("pods.csv");
        Files.writeString(p, text);
        return p;
    }

    @Test
    void rowsKeepTheirFileLinesAcrossBlankLinesAndQuotedCommas() throws IOException {
        Path p = file("name,num_gpu,gpu_spec\r\na,1,\n\n  \n\"b\",2,\"V100M16|V100M32\"\nc, 3 ,x\n");
        List<AlibabaCsv.Row> rows = AlibabaCsv.readAll(p, REQUIRED);
        assertEquals(
                List.of(2L, 5L, 6L), rows.stream().map(AlibabaCsv.Row::line).toList());
        assertEquals("", rows.get(0).text("gpu_spec"));
        assertEquals("V100M16|V100M32", rows.get(1).text("gpu_spec"));
        assertEquals(3, rows.get(2).integer("num_gpu"));
        assertEquals("", rows.get(2).text("no_such_column"));
    }

    @Test
    void aBadValueNamesFileLineAndColumn() throws IOException {
        Path p = file("name,num_gpu\na,1\nb,two\nc,\n");
        List<AlibabaCsv.Row> rows = AlibabaCsv.readAll(p, REQUIRED);
        CsvFormatException e =
                assertThrows(CsvFormatException.class, () -> rows.get(1).integer("num_gpu"));
        assertEquals(p + ":3: column 'num_gpu': not an integer: 'two'", e.getMessage());
        assertEquals("num_gpu", e.column());
        assertEquals("column 'num_gpu': not an integer: 'two'", e.reason());
        e = assertThrows(CsvFormatException.class, () -> rows.get(2).integer("num_gpu"));
        assertEquals(p + ":4: column 'num_gpu': empty", e.getMessage());
        e = assertThrows(CsvFormatException.class, () -> rows.get(0).integer("num_gpu", 2, 8));
        assertEquals(p + ":2: column 'num_gpu': 1 out of range [2, 8]", e.getMessage());
    }

    @Test
    void theWholeRowOrFileIsAtFaultWithoutAColumn() throws IOException {
        Path extra = file("name,num_gpu\na,1\nb,2,3\n");
        CsvFormatException e = assertThrows(CsvFormatException.class, () -> AlibabaCsv.readAll(extra, REQUIRED));
        assertEquals(extra + ":3: 3 fields, the header has 2", e.getMessage());
        assertNull(e.column());
        Path missing = file("name,gpu\na,1\n");
        e = assertThrows(CsvFormatException.class, () -> AlibabaCsv.readAll(missing, REQUIRED));
        assertEquals(
                missing + ":1: missing column 'num_gpu' (header: [name, gpu], need [name, num_gpu])", e.getMessage());
        Path quote = file("name,num_gpu\n\"a,1\n");
        e = assertThrows(CsvFormatException.class, () -> AlibabaCsv.readAll(quote, REQUIRED));
        assertEquals(
                quote + ":2: unreadable row: ", e.getMessage().substring(0, (quote + ":2: unreadable row: ").length()));
        Path empty = file("");
        e = assertThrows(CsvFormatException.class, () -> AlibabaCsv.readAll(empty, REQUIRED));
        assertEquals(empty + ":1: empty file: no header", e.getMessage());
        e = assertThrows(CsvFormatException.class, () -> AlibabaCsv.readAll(dir.resolve("nope.csv"), REQUIRED));
        assertEquals(dir.resolve("nope.csv") + ": no such file", e.getMessage());
    }

    @Test
    void aLineThatIsNotUtf8IsNamedAndTheLineParserAgreesWithTheFileReader() throws IOException {
        Path p = dir.resolve("bytes.csv");
        Files.write(p, new byte[] {
            'n', 'a', 'm', 'e', ',', 'n', 'u', 'm', '_', 'g', 'p', 'u', '\n', 'a', (byte) 0xff, ',', '1', '\n'
        });
        CsvFormatException e = assertThrows(CsvFormatException.class, () -> AlibabaCsv.readAll(p, REQUIRED));
        assertEquals(p + ":2: not valid UTF-8 at byte 2 (length 1)", e.getMessage());
        AlibabaCsv format = new AlibabaCsv("stream", "name,num_gpu", REQUIRED, "; hint");
        assertEquals(
                Map.of("name", "x", "num_gpu", "4"), format.parse(9, " x ,4").values());
        e = assertThrows(CsvFormatException.class, () -> new AlibabaCsv("stream", "name", REQUIRED, "; hint"));
        assertEquals("stream:1: missing column 'num_gpu' (header: [name], need [name, num_gpu]); hint", e.getMessage());
    }
}
