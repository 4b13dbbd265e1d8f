package org.gpusched.streaming.placement;

import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.dataformat.csv.CsvMapper;
import com.fasterxml.jackson.dataformat.csv.CsvParser;
import com.fasterxml.jackson.dataformat.csv.CsvSchema;
import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.gpusched.placement.io.AlibabaTraceCsv;
import org.gpusched.placement.io.TraceFormatException;
import org.gpusched.placement.model.Task;

/**
 * A pod list read for the time-driven replay: the tasks (as {@link AlibabaTraceCsv#readPods} reads them, all rows, so
 * the target workload of fgd/pwr-fgd is the trace's) and, per row, its life from {@code creation_time},
 * {@code deletion_time} and {@code scheduled_time} (seconds).
 *
 * <ul>
 *   <li>{@code scheduled_time} empty: the task was never scheduled in the production cluster (pending at the trace's
 *       end); it is not replayed, only counted in {@link #unscheduled}.</li>
 *   <li>{@code deletion_time} empty: the trace was cut before the task ended; it leaves at the end of the replay
 *       ({@link ReplayPod#CUT_OFF}).</li>
 *   <li>{@code deletion_time <= creation_time}: held for 1 s (the trace's resolution).</li>
 *   <li>CPU-only tasks are replayed like the others: they take CPU and memory and so count in the CPU power.</li>
 * </ul>
 * Bad rows fail with {@code file:line: column 'x': reason}.
 */
public record ReplayTrace(List<Task> tasks, List<ReplayPod> pods, int unscheduled, long startTime, long endTime) {
    static final List<String> TIME_COLUMNS = List.of("name", "creation_time", "deletion_time");

    public static ReplayTrace read(Path file) {
        List<Task> tasks = AlibabaTraceCsv.readPods(file);
        String name = file.toString();
        CsvMapper csv = new CsvMapper();
        csv.enable(CsvParser.Feature.SKIP_EMPTY_LINES);
        List<ReplayPod> pods = new ArrayList<>();
        int unscheduled = 0;
        long start = Long.MAX_VALUE;
        long end = Long.MIN_VALUE;
        try (Reader reader = Files.newBufferedReader(file);
             MappingIterator<Map<String, String>> it = csv.readerForMapOf(String.class).with(CsvSchema.emptySchema().withHeader()).readValues(reader)) {
            List<String> columns = new ArrayList<>();
            ((CsvSchema) it.getParser().getSchema()).forEach(c -> columns.add(c.getName()));
            for (String c : TIME_COLUMNS)
                if (!columns.contains(c))
                    throw new TraceFormatException(name, 1, "missing column '" + c + "': the time-driven replay needs creation_time and "
                            + "deletion_time (the multigpu pod lists lack them; use inflate for those)");
            boolean hasScheduled = columns.contains("scheduled_time");
            int row = 0;
            while (it.hasNextValue()) {
                Map<String, String> values = it.nextValue();
                long line = it.getParser().currentTokenLocation().getLineNr();
                if (row >= tasks.size()) throw new TraceFormatException(name, line, "more rows than the pod reader saw");
                String podName = text(values, "name");
                if (!podName.equals(tasks.get(row).name()))
                    throw new TraceFormatException(name, line, "column 'name': row order changed while reading ('" + podName + "')");
                if (hasScheduled && text(values, "scheduled_time").isEmpty()) {
                    unscheduled++;
                    row++;
                    continue;
                }
                long created = time(values, "creation_time", name, line, false);
                long deleted = time(values, "deletion_time", name, line, true);
                if (deleted != ReplayPod.CUT_OFF && deleted < created)
                    throw new TraceFormatException(name, line, "column 'deletion_time': " + deleted + " before creation_time " + created);
                pods.add(new ReplayPod(row, created, deleted));
                start = Math.min(start, created);
                end = Math.max(end, Math.max(created, deleted));
                row++;
            }
        } catch (IOException | RuntimeException e) {
            if (e instanceof TraceFormatException t) throw t;
            throw new TraceFormatException(name, 0, "cannot read: " + e.getMessage());
        }
        if (pods.isEmpty()) throw new TraceFormatException(name, 1, "no scheduled pods to replay");
        pods.sort(Comparator.comparingLong((ReplayPod p) -> p.creationTime).thenComparingInt(p -> p.traceIndex));
        return new ReplayTrace(List.copyOf(tasks), List.copyOf(pods), unscheduled, start, end);
    }

    private static String text(Map<String, String> values, String column) {
        String v = values.get(column);
        return v == null ? "" : v.trim();
    }

    private static long time(Map<String, String> values, String column, String file, long line, boolean emptyIsCutOff) {
        String v = text(values, column);
        if (v.isEmpty()) {
            if (emptyIsCutOff) return ReplayPod.CUT_OFF;
            throw new TraceFormatException(file, line, "column '" + column + "': empty");
        }
        try {
            long t = Long.parseLong(v);
            if (t < 0) throw new TraceFormatException(file, line, "column '" + column + "': negative time " + t);
            return t;
        } catch (NumberFormatException e) {
            throw new TraceFormatException(file, line, "column '" + column + "': not an integer: '" + v + "'");
        }
    }
}
