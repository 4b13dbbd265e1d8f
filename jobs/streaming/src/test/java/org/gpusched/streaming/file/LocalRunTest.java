package org.gpusched.streaming.file;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The progress count of a local run: finished jobs counted from job-metrics part files as they grow. */
class LocalRunTest {
    @TempDir
    Path dir;

    private static void append(Path file, String text) throws Exception {
        Files.writeString(file, text, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    }

    @Test
    void countsEveryCompleteLineOfEveryPartFileAlsoWhenMegabytesArriveBetweenTwoCalls() throws Exception {
        LocalRun.LineCounter counter = new LocalRun.LineCounter(dir, FileJobSinks.JOB_METRICS);
        assertEquals(0, counter.count());
        Path part0 = dir.resolve(FileJobSinks.JOB_METRICS + "-0.jsonl");
        String line = "{\"time\":1.0,\"job\":\"j\",\"policy\":\"fifo\",\"padding\":\"" + "x".repeat(200) + "\"}\n";
        append(part0, line.repeat(12_000)); // about 3 MB in one second of a fast replay
        assertEquals(12_000, counter.count());

        append(part0, line.repeat(3) + "{\"time\":2.0,\"job\""); // a line the sink is still writing
        append(dir.resolve(FileJobSinks.JOB_METRICS + "-1.jsonl"), line.repeat(5));
        append(dir.resolve(FileJobSinks.DECISIONS + "-0.jsonl"), line.repeat(7));
        assertEquals(12_008, counter.count(), "complete lines only, of job-metrics part files only");

        append(part0, ":\"k\"}\n");
        assertEquals(12_009, counter.count());
        assertEquals(12_009, counter.count(), "nothing new, nothing counted twice");
    }
}
