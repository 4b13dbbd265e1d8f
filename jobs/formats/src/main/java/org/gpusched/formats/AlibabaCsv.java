package org.gpusched.formats;

import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.dataformat.csv.CsvMapper;
import java.io.IOException;
import java.io.Serializable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The one reader of the Alibaba 2023 GPU trace's CSV files (node lists, pod lists): the header (line 1) names the
 * columns, each data line is split by Jackson CSV into a {@link Row} keyed by column, and every error is a
 * {@link CsvFormatException} with the file, the 1-based line and, when one value is at fault, the column. A file is read
 * whole ({@link #readAll}) or a line at a time ({@link #parse}, for streams that see one line per record). Blank lines
 * are skipped but counted; a quoted value cannot span lines (the trace's files have none).
 */
public final class AlibabaCsv implements Serializable {
    private static final long serialVersionUID = 1L;

    private final String file;
    private final List<String> columns;
    private transient ObjectReader lineReader;

    /**
     * The format of {@code file} from its header line; a missing column of {@code required} fails the whole file, with
     * {@code hint} (may be empty) appended to the message.
     */
    public AlibabaCsv(String file, String headerLine, List<String> required, String hint) {
        this.file = file;
        List<String> names = new ArrayList<>();
        try {
            for (String c : fields(headerLine)) names.add(c == null ? "" : c.trim());
        } catch (IOException e) {
            throw new CsvFormatException(file, 1, "unreadable header: " + firstLine(e.getMessage()));
        }
        for (String c : required)
            if (!names.contains(c))
                throw new CsvFormatException(
                        file, 1, "missing column '" + c + "' (header: " + names + ", need " + required + ")" + hint);
        this.columns = List.copyOf(names);
    }

    /** The format of {@code file} from its first line; {@code name} is how messages name the file. */
    public static AlibabaCsv open(Path file, String name, List<String> required, String hint) {
        try (LineReader in = openLines(file, name)) {
            return header(in, name, required, hint);
        } catch (IOException e) {
            throw new CsvFormatException(name, 0, "cannot read: " + e.getMessage());
        }
    }

    /** Every non-blank data row of {@code file} (named by its path), in file order; the first bad line fails. */
    public static List<Row> readAll(Path file, List<String> required) {
        String name = file.toString();
        List<Row> rows = new ArrayList<>();
        try (LineReader in = openLines(file, name)) {
            AlibabaCsv format = header(in, name, required, "");
            for (LineReader.Line l = in.next(); l != null; l = in.next()) {
                if (!l.ok()) throw new CsvFormatException(name, l.number(), l.error());
                if (!l.text().isBlank()) rows.add(format.parse(l.number(), l.text()));
            }
        } catch (IOException e) {
            throw new CsvFormatException(name, 0, "cannot read: " + e.getMessage());
        }
        return rows;
    }

    private static LineReader openLines(Path file, String name) throws IOException {
        if (!Files.isRegularFile(file)) throw new CsvFormatException(name, 0, "no such file");
        return LineReader.open(file);
    }

    private static AlibabaCsv header(LineReader in, String name, List<String> required, String hint)
            throws IOException {
        LineReader.Line header = in.next();
        if (header == null) throw new CsvFormatException(name, 1, "empty file: no header");
        if (!header.ok()) throw new CsvFormatException(name, 1, header.error());
        return new AlibabaCsv(name, header.text(), required, hint);
    }

    public String file() {
        return file;
    }

    public List<String> columns() {
        return columns;
    }

    /** Data line {@code line} (1-based, the header is line 1) as a row; a line whose field count differs fails. */
    public Row parse(long line, String text) {
        String[] values;
        try {
            values = fields(text);
        } catch (IOException e) {
            throw new CsvFormatException(file, line, "unreadable row: " + firstLine(e.getMessage()));
        }
        if (values.length != columns.size())
            throw new CsvFormatException(file, line, values.length + " fields, the header has " + columns.size());
        Map<String, String> row = new HashMap<>();
        for (int i = 0; i < values.length; i++) row.put(columns.get(i), values[i] == null ? "" : values[i].trim());
        return new Row(file, line, row);
    }

    /** A row given as column -> value rather than as text (a record carrying the same fields), located at line. */
    public Row row(long line, Map<String, String> values) {
        return new Row(file, line, values);
    }

    private String[] fields(String text) throws IOException {
        if (lineReader == null) lineReader = new CsvMapper().readerFor(String[].class);
        try {
            return lineReader.readValue(text);
        } catch (RuntimeException e) {
            throw new IOException(e.getMessage(), e);
        }
    }

    private static String firstLine(String s) {
        if (s == null) return "";
        int i = s.indexOf('\n');
        return i < 0 ? s : s.substring(0, i);
    }

    /** One data row with its location: typed access whose errors name file, line and column. */
    public record Row(String file, long line, Map<String, String> values) {
        public CsvFormatException error(String column, String message) {
            return new CsvFormatException(file, line, column, message);
        }

        /** The error of the whole row (no single column at fault). */
        public CsvFormatException error(String message) {
            return new CsvFormatException(file, line, message);
        }

        /** The trimmed value, "" when empty or when the file has no such column. */
        public String text(String column) {
            String v = values.get(column);
            return v == null ? "" : v.trim();
        }

        public String required(String column) {
            String v = text(column);
            if (v.isEmpty()) throw error(column, "empty");
            return v;
        }

        public long integer(String column) {
            String v = required(column);
            try {
                return Long.parseLong(v);
            } catch (NumberFormatException e) {
                throw error(column, "not an integer: '" + v + "'");
            }
        }

        public long integer(String column, long min, long max) {
            long x = integer(column);
            if (x < min || x > max) throw error(column, x + " out of range [" + min + ", " + max + "]");
            return x;
        }
    }
}
