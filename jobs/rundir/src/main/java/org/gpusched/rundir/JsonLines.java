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
        forEachLine(file, (text, number) -> {
            String where = file + ":" + number;
            JsonNode value;
            try {
                value = json.readTree(text);
            } catch (JsonProcessingException e) {
                throw invalid.apply(where + ": not valid JSON (" + e.getOriginalMessage() + ")");
            }
            handler.line(value, where);
        });
    }
}
