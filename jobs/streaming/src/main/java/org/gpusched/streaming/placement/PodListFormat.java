package org.gpusched.streaming.placement;

import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.dataformat.csv.CsvMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.gpusched.placement.io.AlibabaTraceCsv;
import org.gpusched.placement.io.TraceFormatException;
import org.gpusched.placement.model.Task;

/**
 * The pod-list CSV of the time-driven replay, one line at a time: the header (line 1) fixes the columns, {@link #parse}
 * turns one data line into its task (as {@link AlibabaTraceCsv#pod} reads it) and its life from {@code creation_time},
 * {@code deletion_time} and {@code scheduled_time} (seconds):
 * <ul>
 *   <li>{@code scheduled_time} empty: never scheduled in the production cluster (pending at the trace's end); the row
 *       has a task (it counts in the target workload) but no pod: it is not replayed.</li>
 *   <li>{@code deletion_time} empty: the trace was cut before the task ended; it leaves at the end of the replay
 *       ({@link ReplayPod#CUT_OFF}).</li>
 * </ul>
 * A bad line fails with a {@link TraceFormatException} naming the line and, when one value is at fault, the column. A
 * missing required column is a fault of the whole file. Rows are parsed line by line, so a quoted value cannot span
 * lines (the Alibaba lists have none).
 */
public final class PodListFormat implements Serializable {
    private static final long serialVersionUID = 1L;
    static final List<String> TIME_COLUMNS = List.of("creation_time", "deletion_time");

    private final String file;
    private final List<String> columns;
    private transient ObjectReader rowReader;

    /** A parsed row: its task and, unless it was never scheduled, its pod. */
    public record Row(Task task, ReplayPod pod) {}

    public PodListFormat(String file, String headerLine) {
        this.file = file;
        List<String> names = new ArrayList<>();
        try {
            for (String c : fields(headerLine)) names.add(c.trim());
        } catch (IOException e) {
            throw new TraceFormatException(file, 1, "unreadable header: " + firstLine(e.getMessage()));
        }
        List<String> required = new ArrayList<>(AlibabaTraceCsv.podColumns());
        required.addAll(TIME_COLUMNS);
        for (String c : required)
            if (!names.contains(c))
                throw new TraceFormatException(
                        file,
                        1,
                        "missing column '" + c + "' (header: " + names + ", need " + required
                                + "); the time-driven replay needs creation_time and deletion_time (the multigpu pod lists lack them; use inflate for those)");
        this.columns = List.copyOf(names);
    }

    /** The format of {@code file}, from its first line; {@code name} is how messages name the file. */
    public static PodListFormat read(Path file, String name) {
        if (!Files.isRegularFile(file)) throw new TraceFormatException(name, 0, "no such file");
        try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            String header = in.readLine();
            if (header == null) throw new TraceFormatException(name, 1, "empty file: no header");
            return new PodListFormat(name, header);
        } catch (IOException e) {
            throw new TraceFormatException(name, 0, "cannot read: " + e.getMessage());
        }
    }

    public String file() {
        return file;
    }

    public List<String> columns() {
        return columns;
    }

    /** Parses data line {@code line} (1-based, the header is line 1). */
    public Row parse(long line, String text) {
        String[] values;
        try {
            values = fields(text);
        } catch (IOException e) {
            throw new TraceFormatException(file, line, "unreadable row: " + firstLine(e.getMessage()));
        }
        if (values.length != columns.size())
            throw new TraceFormatException(file, line, values.length + " fields, the header has " + columns.size());
        Map<String, String> row = new HashMap<>();
        for (int i = 0; i < values.length; i++) row.put(columns.get(i), values[i] == null ? "" : values[i].trim());
        return parse(line, row);
    }

    /**
     * Validates one row given as column -> value (trimmed, "" when empty), with the checks and messages of a text line;
     * a record that is not a CSV line (a {@link org.gpusched.streaming.avro.PodEvent}) is validated through this.
     */
    public Row parse(long line, Map<String, String> row) {
        Task task = AlibabaTraceCsv.pod(file, line, row);
        long created = time(row, "creation_time", line);
        String deletion = row.get("deletion_time");
        long deleted = deletion.isEmpty() ? ReplayPod.CUT_OFF : time(row, "deletion_time", line);
        if (deleted != ReplayPod.CUT_OFF && deleted < created)
            throw new TraceFormatException(file, line, "deletion_time", deleted + " before creation_time " + created);
        if (columns.contains("scheduled_time") && row.get("scheduled_time").isEmpty()) return new Row(task, null);
        return new Row(task, new ReplayPod(line, task, created, deleted));
    }

    private long time(Map<String, String> row, String column, long line) {
        String v = row.get(column);
        if (v.isEmpty()) throw new TraceFormatException(file, line, column, "empty");
        long t;
        try {
            t = Long.parseLong(v);
        } catch (NumberFormatException e) {
            throw new TraceFormatException(file, line, column, "not an integer: '" + v + "'");
        }
        if (t < 0) throw new TraceFormatException(file, line, column, "negative time " + t);
        return t;
    }

    private String[] fields(String text) throws IOException {
        if (rowReader == null) rowReader = new CsvMapper().readerFor(String[].class);
        try {
            return rowReader.readValue(text);
        } catch (RuntimeException e) {
            throw new IOException(e.getMessage(), e);
        }
    }

    private static String firstLine(String s) {
        if (s == null) return "";
        int i = s.indexOf('\n');
        return i < 0 ? s : s.substring(0, i);
    }
}
