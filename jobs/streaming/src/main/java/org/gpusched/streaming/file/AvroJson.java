package org.gpusched.streaming.file;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.Base64;
import java.util.Collection;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericRecord;

/**
 * Avro records as plain JSON objects (field name: value; unions unwrapped, enums as names, bytes as base64, NaN and
 * infinities as null), the form the run directory files use. Avro's own JSON encoding wraps unions and is awkward to
 * read, hence this.
 */
public final class AvroJson {
    public static final ObjectMapper MAPPER = new ObjectMapper();
    private static final JsonNodeFactory F = JsonNodeFactory.instance;

    private AvroJson() {}

    public static ObjectNode toJson(GenericRecord record) {
        ObjectNode o = F.objectNode();
        for (Schema.Field f : record.getSchema().getFields()) o.set(f.name(), value(record.get(f.pos())));
        return o;
    }

    /** The same text as {@code MAPPER.writeValueAsString(toJson(record))}, streamed without building the tree. */
    public static String toLine(GenericRecord record) {
        StringWriter text = new StringWriter(256);
        try (JsonGenerator g = MAPPER.getFactory().createGenerator(text)) {
            write(g, record);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return text.toString();
    }

    private static void write(JsonGenerator g, Object v) throws IOException {
        if (v == null) g.writeNull();
        else if (v instanceof GenericRecord r) {
            g.writeStartObject();
            for (Schema.Field f : r.getSchema().getFields()) {
                g.writeFieldName(f.name());
                write(g, r.get(f.pos()));
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
        } else {
            g.writeTree(value(v)); // floats, bytes, maps: not in the hot records; the tree form keeps one definition
        }
    }

    private static JsonNode value(Object v) {
        if (v == null) return F.nullNode();
        if (v instanceof GenericRecord r) return toJson(r);
        if (v instanceof CharSequence s) return F.textNode(s.toString());
        if (v instanceof Double d) return d.isNaN() || d.isInfinite() ? F.nullNode() : F.numberNode(d);
        if (v instanceof Float d) return d.isNaN() || d.isInfinite() ? F.nullNode() : F.numberNode(d);
        if (v instanceof Integer i) return F.numberNode(i);
        if (v instanceof Long l) return F.numberNode(l);
        if (v instanceof Boolean b) return F.booleanNode(b);
        if (v instanceof Enum<?> e) return F.textNode(e.name());
        if (v instanceof ByteBuffer b) {
            ByteBuffer copy = b.duplicate();
            byte[] bytes = new byte[copy.remaining()];
            copy.get(bytes);
            return F.textNode(Base64.getEncoder().encodeToString(bytes));
        }
        if (v instanceof Collection<?> c) {
            ArrayNode a = F.arrayNode();
            c.forEach(x -> a.add(value(x)));
            return a;
        }
        if (v instanceof Map<?, ?> m) {
            ObjectNode o = F.objectNode();
            m.forEach((k, x) -> o.set(String.valueOf(k), value(x)));
            return o;
        }
        return F.textNode(v.toString());
    }
}
