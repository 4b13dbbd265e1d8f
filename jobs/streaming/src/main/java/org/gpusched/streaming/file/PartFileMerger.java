package org.gpusched.streaming.file;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.gpusched.rundir.JsonLines;

/**
 * Reads the part files of {@link FileJobSinks} ({@code NAME-*.jsonl}, one per sink subtask): lines merged across the
 * files into one key order without holding them all, a file copied whole when it is in order already, and the
 * top-level fields of a line streamed without building a tree.
 */
final class PartFileMerger {
    private static final ObjectMapper LINE = AvroJson.MAPPER;

    private PartFileMerger() {}

    /**
     * An output line with its sort key: (time, number, sequence, text); {@code parsed}, what the key was read with, for
     * a consumer that needs more of the line than its key (the job metrics' tally), or null.
     */
    record Keyed(double time, long number, long sequence, String text, String line, Object parsed) {
        Keyed(double time, long number, long sequence, String text, String line) {
            this(time, number, sequence, text, line, null);
        }
    }

    static final Comparator<Keyed> ORDER = Comparator.comparingDouble(Keyed::time)
            .thenComparingLong(Keyed::number)
            .thenComparingLong(Keyed::sequence)
            .thenComparing(Keyed::text);

    /** A part-file line as an output line with its key, or null to leave it out. */
    interface LineKey {
        Keyed apply(String line) throws IOException;
    }

    /** Takes the kept lines in key order and makes a result of them; a fresh one serves each attempt of {@link #inOrder}. */
    interface Ordered<R> {
        void accept(Keyed line) throws IOException;

        /** Called once, at the end, also of an abandoned attempt: closes what it opened. */
        R result() throws IOException;
    }

    interface OrderedFactory<R> {
        Ordered<R> create() throws IOException;
    }

    /**
     * Hands the kept lines of part files to a fresh {@link Ordered} in key order without holding them all: each part
     * file is in time order (a subtask's timers fire in time order), so the files are merged and only the lines of one
     * time are sorted in memory. A part file out of time order (late input in live mode) abandons the merge, whose
     * partial result is dropped, for a full in-memory sort handed to another fresh one.
     */
    static <R> R inOrder(List<Path> files, LineKey key, OrderedFactory<R> fresh) throws IOException {
        Ordered<R> merged = fresh.create();
        boolean complete = false;
        try {
            complete = merge(files, key, merged);
        } finally {
            if (!complete) merged.result(); // abandoned (or failed): closed, its result dropped
        }
        if (complete) return merged.result();
        List<Keyed> all = new ArrayList<>();
        for (Path f : files) {
            try (BufferedReader in = Files.newBufferedReader(f, StandardCharsets.UTF_8)) {
                Keyed k;
                while ((k = next(in, key)) != null) all.add(k);
            }
        }
        all.sort(ORDER);
        Ordered<R> sorted = fresh.create();
        boolean done = false;
        try {
            for (Keyed k : all) sorted.accept(k);
            done = true;
        } finally {
            if (!done) sorted.result();
        }
        return sorted.result();
    }

    /** The merge of {@link #inOrder}: false when a part file turns out to be out of time order. */
    private static boolean merge(List<Path> files, LineKey key, Ordered<?> out) throws IOException {
        List<BufferedReader> readers = new ArrayList<>();
        try {
            Keyed[] heads = new Keyed[files.size()];
            for (int i = 0; i < files.size(); i++) {
                readers.add(Files.newBufferedReader(files.get(i), StandardCharsets.UTF_8));
                heads[i] = next(readers.get(i), key);
            }
            List<Keyed> group = new ArrayList<>();
            while (true) {
                double t = Double.POSITIVE_INFINITY;
                for (Keyed h : heads) if (h != null) t = Math.min(t, h.time());
                if (t == Double.POSITIVE_INFINITY) return true;
                group.clear();
                for (int i = 0; i < heads.length; i++) {
                    while (heads[i] != null && heads[i].time() == t) {
                        group.add(heads[i]);
                        heads[i] = next(readers.get(i), key);
                        if (heads[i] != null && heads[i].time() < t) return false;
                    }
                }
                group.sort(ORDER);
                for (Keyed k : group) out.accept(k);
            }
        } finally {
            for (BufferedReader r : readers) r.close();
        }
    }

    /** How many lines went to a file, and the first one's time. */
    record Lines(long count, double firstTime) {}

    /** Writes the lines to a file (replacing it). */
    static final class LinesTo implements Ordered<Lines> {
        private final BufferedWriter w;
        private long count;
        private double firstTime = Double.NaN;

        LinesTo(Path file) throws IOException {
            w = Files.newBufferedWriter(file, StandardCharsets.UTF_8);
        }

        @Override
        public void accept(Keyed k) throws IOException {
            if (count++ == 0) firstTime = k.time();
            w.write(k.line());
            w.write('\n');
        }

        @Override
        public Lines result() throws IOException {
            w.close();
            return new Lines(count, firstTime);
        }
    }

    /** The next kept line of a part file with its key, or null at the end. */
    private static Keyed next(BufferedReader in, LineKey key) throws IOException {
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isBlank()) continue;
            Keyed k = key.apply(line);
            if (k != null) return k;
        }
        return null;
    }

    static List<Path> partFiles(Path parts, String name) throws IOException {
        List<Path> files = new ArrayList<>();
        if (!Files.isDirectory(parts)) return files;
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(parts, name + "-*.jsonl")) {
            ds.forEach(files::add);
        }
        files.sort(null);
        return files;
    }

    /** Takes the top-level fields of a JSON object line, one at a time, the parser on the field's value. */
    interface FieldReader {
        void field(String name, JsonParser p) throws IOException;
    }

    /** Streams a part-file line's top-level fields to a reader (nested values skipped), without building a tree. */
    static void fields(String line, FieldReader reader) throws IOException {
        try (JsonParser p = LINE.getFactory().createParser(line)) {
            if (p.nextToken() != JsonToken.START_OBJECT)
                throw new IOException("part-file line is not a JSON object: " + line);
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                p.nextToken();
                reader.field(name, p);
                p.skipChildren();
            }
        }
    }

    /** All records of the part files NAME-*.jsonl in a directory. */
    static List<JsonNode> read(Path parts, String name) throws IOException {
        List<JsonNode> records = new ArrayList<>();
        for (Path f : partFiles(parts, name))
            JsonLines.forEachLine(f, (line, number) -> records.add(LINE.readTree(line)));
        return records;
    }

    /**
     * The lines of the only non-empty part file, copied as they are when they are already in key order (the
     * dispatcher's accepted jobs: one key, so one part file, written in submission order); null otherwise, for a merge.
     */
    static Lines copiedIfInOrder(List<Path> files, LineKey key, Path to) throws IOException {
        Path only = null;
        for (Path f : files) {
            if (Files.size(f) == 0) continue;
            if (only != null) return null;
            only = f;
        }
        if (only == null) return null;
        long count = 0;
        Keyed first = null, previous = null;
        try (BufferedReader in = Files.newBufferedReader(only, StandardCharsets.UTF_8)) {
            String line;
            while ((line = in.readLine()) != null) {
                if (line.isBlank()) return null;
                Keyed k = key.apply(line);
                if (k == null || (previous != null && ORDER.compare(previous, k) > 0)) return null;
                if (first == null) first = k;
                previous = k;
                count++;
            }
        }
        if (!endsWithNewline(only)) return null;
        Files.copy(only, to, StandardCopyOption.REPLACE_EXISTING);
        return new Lines(count, first.time());
    }

    private static boolean endsWithNewline(Path file) throws IOException {
        try (SeekableByteChannel c = Files.newByteChannel(file)) {
            ByteBuffer last = ByteBuffer.allocate(1);
            c.position(c.size() - 1);
            return c.read(last) == 1 && last.get(0) == '\n';
        }
    }
}
