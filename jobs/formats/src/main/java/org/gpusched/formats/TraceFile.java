package org.gpusched.formats;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** Whole-file access to a JSON Lines trace, for the command line and tests (the stream parses line by line). */
public final class TraceFile {
    private TraceFile() {}

    /** Reads every job; the first bad line throws "FILE:LINE: reason". Blank lines are skipped. */
    public static List<TraceJob> read(Path file) {
        List<TraceJob> jobs = new ArrayList<>();
        Set<String> ids = new HashSet<>();
        try (LineReader in = LineReader.open(file)) {
            LineReader.Line line;
            while ((line = in.next()) != null) {
                long lineNo = line.number();
                if (!line.ok())
                    throw new FormatException(line.error(), FormatException.WHOLE_RECORD).at(file.toString(), lineNo);
                if (line.text().isBlank()) continue;
                TraceJob job;
                try {
                    job = TraceJson.parse(line.text());
                } catch (FormatException e) {
                    throw e.at(file.toString(), lineNo);
                }
                if (!ids.add(job.job().id()))
                    throw new FormatException("job " + job.job().id() + ": duplicate id", "id")
                            .at(file.toString(), lineNo);
                jobs.add(job);
            }
        } catch (NoSuchFileException e) {
            throw new FormatException(file + ": no such trace file", null);
        } catch (IOException e) {
            throw new UncheckedIOException(file + ": cannot read trace", e);
        }
        return jobs;
    }

    public static void write(Path file, Iterable<TraceJob> jobs) {
        try (Writer out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            for (TraceJob job : jobs) {
                out.write(TraceJson.write(job));
                out.write('\n');
            }
        } catch (IOException e) {
            throw new UncheckedIOException(file + ": cannot write trace", e);
        }
    }
}
