package org.gpusched.streaming.file;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.StreamWriteFeature;
import com.fasterxml.jackson.core.io.SerializedString;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.Base64;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericRecord;

/**
 * Avro records as plain JSON objects (field name: value; unions unwrapped, enums as names, bytes as base64, NaN and
 * infinities as null), the form the run directory files use. Avro's own JSON encoding wraps unions and is awkward to
 * read, hence this.
 */
public final class AvroJson {
    /** Doubles written by Jackson's Schubfach writer: shortest round-trip text, several times cheaper than Double.toString. */
    public static final ObjectMapper MAPPER = JsonMapper.builder()
            .enable(StreamWriteFeature.USE_FAST_DOUBLE_WRITER)
            .build();

    /** Per record schema, its field names quoted and encoded once: names are most of a metrics line's bytes. */
    private static final Map<Schema, SerializedString[]> FIELD_NAMES = new ConcurrentHashMap<>();

    private AvroJson() {}

    /** One record as one line of JSON (no newline), streamed without building a tree. */
    public static String toLine(GenericRecord record) {
        StringWriter text = new StringWriter(256);
        try (JsonGenerator g = MAPPER.getFactory().createGenerator(text)) {
            write(g, (Object) record);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return text.toString();
    }

    private static SerializedString[] fieldNames(Schema schema) {
        List<Schema.Field> fields = schema.getFields();
        SerializedString[] names = new SerializedString[fields.size()];
        for (Schema.Field f : fields) names[f.pos()] = new SerializedString(f.name());
        return names;
    }

    /** One record as one JSON object on {@code g}. */
    public static void write(JsonGenerator g, GenericRecord record) throws IOException {
        write(g, (Object) record);
    }

    private static void write(JsonGenerator g, Object v) throws IOException {
        if (v == null) g.writeNull();
        else if (v instanceof GenericRecord r) {
            g.writeStartObject();
            SerializedString[] names = FIELD_NAMES.computeIfAbsent(r.getSchema(), AvroJson::fieldNames);
            for (int i = 0; i < names.length; i++) {
                g.writeFieldName(names[i]);
                write(g, r.get(i));
            }
            g.writeEndObject();
        } else if (v instanceof Double d) {
            if (d.isNaN() || d.isInfinite()) g.writeNull();
            else g.writeNumber(d);
        } else if (v instanceof CharSequence s) g.writeString(s.toString());
        else if (v instanceof Integer i) g.writeNumber(i);
        else if (v instanceof Long l) g.writeNumber(l);
        else if (v instanceof Enum<?> e) g.writeString(e.name());
        else if (v instanceof Boolean b) g.writeBoolean(b);
        else if (v instanceof Collection<?> c) {
            g.writeStartArray();
            for (Object x : c) write(g, x);
            g.writeEndArray();
        } else if (v instanceof Float f) {
            if (f.isNaN() || f.isInfinite()) g.writeNull();
            else g.writeNumber(f);
        } else if (v instanceof ByteBuffer b) {
            ByteBuffer copy = b.duplicate();
            byte[] bytes = new byte[copy.remaining()];
            copy.get(bytes);
            g.writeString(Base64.getEncoder().encodeToString(bytes));
        } else if (v instanceof Map<?, ?> m) {
            g.writeStartObject();
            for (Map.Entry<?, ?> e : m.entrySet()) {
                g.writeFieldName(String.valueOf(e.getKey()));
                write(g, e.getValue());
            }
            g.writeEndObject();
        } else g.writeString(v.toString());
    }
}
