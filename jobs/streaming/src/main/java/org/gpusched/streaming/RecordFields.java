package org.gpusched.streaming;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.avro.specific.SpecificRecordBase;
import org.gpusched.formats.FormatException;
import org.gpusched.formats.LineReader;
import org.gpusched.formats.TraceJson;
import org.gpusched.streaming.avro.JobCompleted;
import org.gpusched.streaming.avro.RejectedRecord;
import org.gpusched.streaming.kafka.AvroBinary;

/**
 * Reads the fields of the input parsers' records ({@link RecordParser}, the powerflow parser): a JSON object with
 * duplicate keys and trailing tokens refused, Avro binary of a schema, typed fields, and the completion record both
 * read. Every failure is a {@link Rejection} with the reason and the field at fault. Not serializable: a parser makes
 * one in {@code open()}.
 */
public final class RecordFields {
    /** A record the job cannot use: reason and the field ({@value FormatException#WHOLE_RECORD} when not one). */
    public static final class Rejection extends Exception {
        public final String field;

        public Rejection(String message, String field) {
            super(message, null, false, false);
            this.field = field == null ? FormatException.WHOLE_RECORD : field;
        }
    }

    /** Reads one record of a parser's input. */
    @FunctionalInterface
    public interface Reader<T> {
        T read(RawRecord raw) throws Rejection;
    }

    /**
     * What {@code reader} makes of the record, or null: a blank text line is skipped, and an unreadable record, a
     * {@link Rejection} or any exception or Error while reading it (an OutOfMemoryError included) goes to {@code
     * reject} with the reason and field, so that one record cannot stop the job.
     */
    public static <T> T readOrReject(RawRecord raw, Reader<T> reader, Consumer<RejectedRecord> reject) {
        if (raw.error != null) {
            reject.accept(rejected(raw, raw.error, null));
            return null;
        }
        if (raw.text != null && raw.text.isBlank()) return null;
        try {
            return reader.read(raw);
        } catch (Rejection e) {
            reject.accept(rejected(raw, e.getMessage(), e.field));
        } catch (RuntimeException | Error e) {
            reject.accept(rejected(
                    raw,
                    "the record could not be read (" + e.getClass().getSimpleName() + ": " + e.getMessage() + ")",
                    null));
        }
        return null;
    }

    private final ObjectMapper json = JsonMapper.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .build();
    private final Map<Class<?>, AvroBinary<?>> avro = new HashMap<>();

    /** The text as one JSON object. */
    public JsonNode object(String text) throws Rejection {
        JsonNode root;
        try {
            root = json.readTree(text);
        } catch (JsonProcessingException e) {
            String message = e.getOriginalMessage();
            if (message.startsWith("Duplicate field '")) {
                String field = message.substring(
                        "Duplicate field '".length(),
                        Math.max("Duplicate field '".length(), message.lastIndexOf('\'')));
                throw new Rejection("field '" + field + "' is given twice", field);
            }
            throw new Rejection("not valid JSON (" + message + ")", null);
        }
        if (root == null || !root.isObject()) throw new Rejection("a record must be a JSON object", null);
        return root;
    }

    /** One record of the schema, decoded within its own size ({@link AvroBinary}); anything else is rejected. */
    @SuppressWarnings("unchecked")
    public <T extends SpecificRecordBase> T decode(RawRecord raw, Class<T> type) throws Rejection {
        AvroBinary<T> coder = (AvroBinary<T>) avro.computeIfAbsent(type, k -> new AvroBinary<>(type));
        try {
            return coder.decode(raw.bytes);
        } catch (IOException e) {
            throw new Rejection(e.getMessage(), null);
        }
    }

    /** A completion record ({@code time}, {@code job}) in JSON or Avro, its time checked. */
    public JobCompleted completion(RawRecord raw) throws Rejection {
        JobCompleted c;
        if (raw.text != null) {
            JsonNode root = object(raw.text);
            c = JobCompleted.newBuilder()
                    .setTime(number(root, "time"))
                    .setJob(text(root, "job"))
                    .build();
        } else {
            c = decode(raw, JobCompleted.class);
        }
        checkTime(c.getTime(), "time");
        if (c.getJob() == null || c.getJob().isBlank()) throw new Rejection("field 'job' is missing", "job");
        return c;
    }

    public static void checkTime(double t, String field) throws Rejection {
        if (!(t >= 0 && t <= TraceJson.MAX_SECONDS))
            throw new Rejection(
                    "field '" + field + "' must be a time in [0, " + TraceJson.MAX_SECONDS + "] seconds, got " + t,
                    field);
    }

    public static double number(JsonNode root, String field) throws Rejection {
        JsonNode v = root.get(field);
        if (v == null || v.isNull()) throw new Rejection("field '" + field + "' is missing", field);
        if (!v.isNumber()) throw new Rejection("field '" + field + "' must be a number, got " + v, field);
        return v.doubleValue();
    }

    public static Double optionalNumber(JsonNode root, String field) throws Rejection {
        JsonNode v = root.get(field);
        return v == null || v.isNull() ? null : number(root, field);
    }

    public static Integer optionalInt(JsonNode root, String field) throws Rejection {
        Double d = optionalNumber(root, field);
        if (d == null) return null;
        if (d != Math.rint(d) || Math.abs(d) > Integer.MAX_VALUE)
            throw new Rejection("field '" + field + "' must be a whole number, got " + d, field);
        return d.intValue();
    }

    public static String text(JsonNode root, String field) throws Rejection {
        JsonNode v = root.get(field);
        if (v == null || v.isNull() || v.asText().isBlank())
            throw new Rejection("field '" + field + "' is missing", field);
        return unicode(v.asText(), field);
    }

    public static String optionalText(JsonNode root, String field) throws Rejection {
        JsonNode v = root.get(field);
        return v == null || v.isNull() ? null : unicode(v.asText(), field);
    }

    /**
     * The text when it is Unicode: a {@code \\u} escape can give half of a surrogate pair, which UTF-8 output writes as
     * '?', so two distinct job or node names would become one.
     */
    public static String unicode(String text, String field) throws Rejection {
        try {
            TraceJson.checkUnicode(text, field, "field '" + field + "'");
        } catch (FormatException e) {
            throw new Rejection(e.getMessage(), e.field());
        }
        return text;
    }

    /**
     * The rejection of a record, its text or bytes cut to {@value LineReader#MAX_LINE_BYTES} (a file line longer is
     * already cut by its reader) so that one huge record cannot make the rejected output unreadable.
     */
    public static RejectedRecord rejected(RawRecord raw, String reason, String field) {
        String text = raw.text == null || raw.text.length() <= LineReader.MAX_LINE_BYTES
                ? raw.text
                : raw.text.substring(0, LineReader.MAX_LINE_BYTES);
        byte[] bytes = raw.bytes == null || raw.bytes.length <= LineReader.MAX_LINE_BYTES
                ? raw.bytes
                : Arrays.copyOf(raw.bytes, LineReader.MAX_LINE_BYTES);
        return RejectedRecord.newBuilder()
                .setSource(raw.source == null ? "" : raw.source)
                .setPosition(raw.position == null ? "" : raw.position)
                .setText(text)
                .setBytes(bytes == null ? null : java.nio.ByteBuffer.wrap(bytes))
                .setReason(reason)
                .setField(field == null ? FormatException.WHOLE_RECORD : field)
                .build();
    }
}
