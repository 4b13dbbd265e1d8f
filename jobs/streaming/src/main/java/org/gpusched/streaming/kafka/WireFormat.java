package org.gpusched.streaming.kafka;

import java.util.Arrays;

/**
 * How a topic's Avro record is framed in a Kafka value. Readers accept both ({@link AvroBinary#decode}); the setting
 * chooses what writers write.
 */
public enum WireFormat {
    /** The record's Avro binary alone: what earlier versions wrote and flink-avro's {@code avro} format reads. */
    PLAIN("plain"),
    /**
     * Avro single-object encoding: {@code C3 01}, the writer schema's 8-byte little-endian CRC-64-AVRO fingerprint,
     * then the binary. Avro's own {@code BinaryMessageDecoder} (Java) and its equivalents in other languages read it
     * given the schema, and the fingerprint says which schema wrote the value.
     */
    SINGLE_OBJECT("single-object");

    private final String label;

    WireFormat(String label) {
        this.label = label;
    }

    /** The name on the command line and in the docs. */
    public String label() {
        return label;
    }

    /** The format named {@code label} (case-insensitive). */
    public static WireFormat of(String label) {
        for (WireFormat f : values()) if (f.label.equalsIgnoreCase(label.trim())) return f;
        throw new IllegalArgumentException("unknown wire format '" + label + "' (known: "
                + String.join(
                        ", ", Arrays.stream(values()).map(WireFormat::label).toList()) + ")");
    }
}
