package org.gpusched.streaming;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;

/**
 * One input record exactly as a source received it, before any parsing: either text (a JSON line of a file) or bytes
 * (an Avro-encoded Kafka value), with where it came from. Parsing and validation happen in an operator, so a bad
 * record can be rejected with its origin instead of failing the source. A Flink POJO (public fields, no-arg
 * constructor) so it needs no Kryo.
 */
public class RawRecord {
    /** Topic name or file path. */
    public String source;
    /** "file:line" or "topic-partition@offset". */
    public String position;
    /** The text, or null for binary input. */
    public String text;
    /** The bytes, or null for text input. */
    public byte[] bytes;
    /**
     * Why the source could not read the record (a line that is not UTF-8 or too long: then {@link #text} is what could
     * be read of it), or null. The parse operator rejects such a record with this reason.
     */
    public String error;

    public RawRecord() {}

    public RawRecord(String source, String position, String text, byte[] bytes) {
        this.source = source;
        this.position = position;
        this.text = text;
        this.bytes = bytes;
    }

    public static RawRecord text(String source, String position, String text) {
        return new RawRecord(source, position, text, null);
    }

    /** A record the source could not read, with what it could read of it and why. */
    public static RawRecord unreadable(String source, String position, String text, String error) {
        RawRecord r = new RawRecord(source, position, text, null);
        r.error = error;
        return r;
    }

    public static RawRecord bytes(String source, String position, byte[] bytes) {
        return new RawRecord(source, position, null, bytes);
    }

    /** The payload as text for messages: the text, or the bytes decoded leniently as UTF-8. */
    public String payloadText() {
        if (text != null) return text;
        return bytes == null ? "" : new String(bytes, StandardCharsets.UTF_8);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RawRecord r
                && Objects.equals(r.source, source)
                && Objects.equals(r.position, position)
                && Objects.equals(r.text, text)
                && Arrays.equals(r.bytes, bytes)
                && Objects.equals(r.error, error);
    }

    @Override
    public int hashCode() {
        return Objects.hash(source, position, text, Arrays.hashCode(bytes), error);
    }

    @Override
    public String toString() {
        return source + "@" + position + ": "
                + (text != null ? text : (bytes == null ? "null" : bytes.length + " bytes"));
    }
}
