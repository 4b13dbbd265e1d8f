package org.gpusched.rundir;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Function;

/**
 * Reads a JSON Lines file line by line, blank lines skipped, each line with its place ({@code file:line}) for
 * messages. The one copy of that loop for run-directory files and part files.
 */
public final class JsonLines {
    private JsonLines() {}

    /** Takes one non-blank line as text, with its line number (from 1). */
    public interface TextHandler {
        void line(String text, long number) throws IOException;
    }

    /** Takes one non-blank line read as JSON. */
    public interface TreeHandler {
        void line(JsonNode value, String where) throws IOException;
    }

    /** Each non-blank line of {@code file}, as text, in file order. */
    public static void forEachLine(Path file, TextHandler handler) throws IOException {
        try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            String line;
            long number = 0;
            while ((line = in.readLine()) != null) {
                number++;
                if (line.isBlank()) continue;
                handler.line(line, number);
            }
        }
    }

    /**
     * Each non-blank line of {@code file} read with {@code json}, in file order. A line that is not JSON ends the
     * reading with the exception {@code invalid} makes of the message "FILE:LINE: not valid JSON (why)".
     */
    public static void forEach(
            Path file, ObjectMapper json, Function<String, ? extends RuntimeException> invalid, TreeHandler handler)
            throws IOException {
        try (TreeReader in = TreeReader.open(file, json, invalid)) {
            for (JsonNode value = in.next(); value != null; value = in.next()) handler.line(value, in.where());
        }
    }

    /**
     * The lines of {@link #forEach} taken one at a time, at the reader's pace: a second file read alongside another
     * (the auditor reads jobs.jsonl as far as the decisions it has reached need, not whole).
     */
    public static final class TreeReader implements AutoCloseable {
        private final Path file;
        private final BufferedReader in;
        private final ObjectMapper json;
        private final Function<String, ? extends RuntimeException> invalid;
        private long number;

        private TreeReader(
                Path file, BufferedReader in, ObjectMapper json, Function<String, ? extends RuntimeException> invalid) {
            this.file = file;
            this.in = in;
            this.json = json;
            this.invalid = invalid;
        }

        /** Opens {@code file}; a missing one throws {@link java.nio.file.NoSuchFileException}. */
        public static TreeReader open(
                Path file, ObjectMapper json, Function<String, ? extends RuntimeException> invalid) throws IOException {
            return new TreeReader(file, Files.newBufferedReader(file, StandardCharsets.UTF_8), json, invalid);
        }

        /** The next non-blank line's value, or null at the end of the file. */
        public JsonNode next() throws IOException {
            String line;
            do {
                line = in.readLine();
                if (line == null) return null;
                number++;
            } while (line.isBlank());
            try {
                return json.readTree(line);
            } catch (JsonProcessingException e) {
                throw invalid.apply(where() + ": not valid JSON (" + e.getOriginalMessage() + ")");
            }
        }

        /** FILE:LINE of the value {@link #next()} returned last. */
        public String where() {
            return file + ":" + number;
        }

        @Override
        public void close() throws IOException {
            in.close();
        }
    }
}
