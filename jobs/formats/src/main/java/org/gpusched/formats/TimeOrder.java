package org.gpusched.formats;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.nio.file.Path;
import java.util.function.ToDoubleFunction;

/**
 * Whether a JSON Lines file is in time order by one top-level numeric field ({@code submit} for traces, {@code time}
 * for node events). A replay streams such a file through event-time watermarks that follow it; a file out of order
 * has to be buffered whole before the first event is handled. Only the lines the job accepts count: a line the job
 * rejects never becomes an event, so its time cannot put the valid ones out of order (lines that are not UTF-8 or too
 * long, see {@link LineReader}, are skipped as well).
 */
public final class TimeOrder {
    private static final JsonFactory JSON = new JsonFactory();

    private TimeOrder() {}

    /**
     * The first line whose field is earlier than a previous line's, or 0 when the file is in order; lines that are not
     * JSON objects, lack the field or give a time outside [0, {@link TraceJson#MAX_SECONDS}] are skipped.
     */
    public static long firstLineOutOfOrder(Path file, String field) throws IOException {
        return firstLineOutOfOrder(file, line -> {
            double t = topLevelNumber(line, field);
            return t >= 0 && t <= TraceJson.MAX_SECONDS ? t : Double.NaN;
        });
    }

    /**
     * The first line whose time is earlier than a previous line's, or 0 when the file is in order; {@code timeOfLine}
     * gives a line's time, or NaN for a line the job rejects (skipped).
     */
    public static long firstLineOutOfOrder(Path file, ToDoubleFunction<String> timeOfLine) throws IOException {
        double latest = Double.NEGATIVE_INFINITY;
        try (LineReader in = LineReader.open(file)) {
            LineReader.Line line;
            while ((line = in.next()) != null) {
                if (!line.ok()) continue;
                double t = timeOfLine.applyAsDouble(line.text());
                if (Double.isNaN(t)) continue;
                if (t < latest) return line.number();
                latest = t;
            }
        }
        return 0;
    }

    /** The field's value when the line is an object holding it as a number at top level, else NaN. */
    static double topLevelNumber(String line, String field) {
        try (JsonParser p = JSON.createParser(line)) {
            if (p.nextToken() != JsonToken.START_OBJECT) return Double.NaN;
            JsonToken token;
            while ((token = p.nextToken()) == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                JsonToken value = p.nextToken();
                if (name.equals(field)) return value.isNumeric() ? p.getDoubleValue() : Double.NaN;
                p.skipChildren();
            }
            return Double.NaN;
        } catch (IOException malformed) {
            return Double.NaN;
        }
    }
}
