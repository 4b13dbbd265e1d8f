package org.gpusched.streaming.placement;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.gpusched.formats.CsvFormatException;
import org.gpusched.placement.model.Task;

/**
 * What the driver learns from one pass over a pod list before the replay stream starts: its {@link PodListFormat}, the
 * tasks of its valid rows (fgd and pwr-fgd score against the trace's own target workload, which has to be known before
 * the first decision) and counts and time span for progress and the summary. The rows themselves reach the placement
 * only through the stream's {@link PodParser}, which parses them with the same format and sends the bad ones to the
 * rejected output; here they are only counted, and the first one is kept for messages.
 */
public record ReplayTrace(
        PodListFormat format,
        List<Task> workloadTasks,
        int replayable,
        int unscheduled,
        int rejected,
        String firstRejection,
        long startTime,
        long endTime) {

    /** Scans {@code file}; fails only when the file or its header is unusable or no row can be replayed. */
    public static ReplayTrace scan(Path file) {
        String name = file.toString();
        PodListFormat format = PodListFormat.read(file, name);
        List<Task> tasks = new ArrayList<>();
        int replayable = 0, unscheduled = 0, rejected = 0;
        String firstRejection = null;
        long start = Long.MAX_VALUE, end = Long.MIN_VALUE;
        try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            in.readLine();
            long line = 1;
            String text;
            while ((text = in.readLine()) != null) {
                line++;
                if (text.isBlank()) continue;
                PodListFormat.Row row;
                try {
                    row = format.parse(line, text);
                } catch (CsvFormatException e) {
                    if (rejected++ == 0) firstRejection = e.getMessage();
                    continue;
                }
                tasks.add(row.task());
                if (row.pod() == null) {
                    unscheduled++;
                    continue;
                }
                replayable++;
                start = Math.min(start, row.pod().creationTime);
                end = Math.max(end, Math.max(row.pod().creationTime, row.pod().deletionTime));
            }
        } catch (IOException e) {
            throw new CsvFormatException(name, 0, "cannot read: " + e.getMessage());
        }
        if (replayable == 0)
            throw new CsvFormatException(
                    name,
                    1,
                    "no scheduled pods to replay"
                            + (rejected == 0 ? "" : " (" + rejected + " bad rows, first: " + firstRejection + ")"));
        return new ReplayTrace(
                format, List.copyOf(tasks), replayable, unscheduled, rejected, firstRejection, start, end);
    }
}
