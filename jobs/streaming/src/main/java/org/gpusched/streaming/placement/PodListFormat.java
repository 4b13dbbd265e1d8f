package org.gpusched.streaming.placement;

import java.io.Serializable;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.gpusched.formats.AlibabaCsv;
import org.gpusched.formats.CsvFormatException;
import org.gpusched.placement.io.AlibabaTraceCsv;
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
 * Lines are split by the trace's one CSV reader ({@link AlibabaCsv}): a bad line fails with a {@link CsvFormatException}
 * naming the line and, when one value is at fault, the column; a missing required column is a fault of the whole file.
 */
public final class PodListFormat implements Serializable {
    private static final long serialVersionUID = 1L;
    static final List<String> TIME_COLUMNS = List.of("creation_time", "deletion_time");
    private static final String NEEDS_TIMES =
            "; the time-driven replay needs creation_time and deletion_time (the multigpu pod lists lack them; use inflate for those)";

    private final AlibabaCsv csv;

    /** A parsed row: its task and, unless it was never scheduled, its pod. */
    public record Row(Task task, ReplayPod pod) {}

    public PodListFormat(String file, String headerLine) {
        this.csv = new AlibabaCsv(file, headerLine, required(), NEEDS_TIMES);
    }

    private PodListFormat(AlibabaCsv csv) {
        this.csv = csv;
    }

    private static List<String> required() {
        List<String> required = new ArrayList<>(AlibabaTraceCsv.podColumns());
        required.addAll(TIME_COLUMNS);
        return required;
    }

    /** The format of {@code file}, from its first line; {@code name} is how messages name the file. */
    public static PodListFormat read(Path file, String name) {
        return new PodListFormat(AlibabaCsv.open(file, name, required(), NEEDS_TIMES));
    }

    public String file() {
        return csv.file();
    }

    public List<String> columns() {
        return csv.columns();
    }

    /** Parses data line {@code line} (1-based, the header is line 1). */
    public Row parse(long line, String text) {
        return parse(csv.parse(line, text));
    }

    /**
     * Validates one row given as column -> value (trimmed, "" when empty), with the checks and messages of a text line;
     * a record that is not a CSV line (a {@link org.gpusched.streaming.avro.PodEvent}) is validated through this.
     */
    public Row parse(long line, Map<String, String> row) {
        return parse(csv.row(line, row));
    }

    private Row parse(AlibabaCsv.Row row) {
        Task task = AlibabaTraceCsv.pod(row);
        long created = time(row, "creation_time");
        long deleted = row.text("deletion_time").isEmpty() ? ReplayPod.CUT_OFF : time(row, "deletion_time");
        if (deleted != ReplayPod.CUT_OFF && deleted < created)
            throw row.error("deletion_time", deleted + " before creation_time " + created);
        if (csv.columns().contains("scheduled_time")
                && row.text("scheduled_time").isEmpty()) return new Row(task, null);
        return new Row(task, new ReplayPod(row.line(), task, created, deleted));
    }

    private static long time(AlibabaCsv.Row row, String column) {
        long t = row.integer(column);
        if (t < 0) throw row.error(column, "negative time " + t);
        return t;
    }
}
