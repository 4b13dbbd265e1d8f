package org.gpusched.streaming.kafka;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;
import org.apache.avro.SchemaNormalization;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.avro.specific.SpecificRecord;
import org.apache.avro.specific.SpecificRecordBase;

/**
 * The one place where a topic's Kafka value is framed: Avro binary of one generated record class, written in the
 * {@link WireFormat} chosen (plain by default, or Avro single-object encoding, {@code C3 01} + the schema's
 * CRC-64-AVRO fingerprint, which Avro's own decoders read without this code). {@link #decode} reads both: a value that
 * starts with the single-object marker and this schema's fingerprint is single-object encoded (a plain record would
 * have to begin with those exact 10 bytes), anything else is read as plain binary.
 * Not thread-safe (it reuses its encoder); one per producer or reader.
 */
public final class AvroBinary<T extends SpecificRecord> {
    /** The single-object encoding's marker (Avro specification, "Single-object encoding"). */
    private static final byte[] MARKER = {(byte) 0xC3, 0x01};

    private final Class<T> type;
    private final WireFormat format;
    /** MARKER followed by the schema's fingerprint: the first bytes of every single-object encoded value. */
    private final byte[] header;

    private final SpecificDatumWriter<T> writer;
    private final SpecificDatumReader<T> reader;
    private final ByteArrayOutputStream buffer = new ByteArrayOutputStream(256);
    private BinaryEncoder encoder;

    public AvroBinary(Class<T> type) {
        this(type, WireFormat.PLAIN);
    }

    public AvroBinary(Class<T> type, WireFormat format) {
        this.type = type;
        this.format = format;
        this.writer = new SpecificDatumWriter<>(type);
        this.reader = new SpecificDatumReader<>(type);
        this.header = singleObjectHeader(writer.getSpecificData().getSchema(type));
    }

    public static <T extends SpecificRecordBase> AvroBinary<T> of(Class<T> type) {
        return new AvroBinary<>(type);
    }

    /** {@code C3 01} and the schema's CRC-64-AVRO fingerprint of its parsing canonical form, little-endian. */
    public static byte[] singleObjectHeader(org.apache.avro.Schema schema) {
        long fingerprint = SchemaNormalization.parsingFingerprint64(schema);
        byte[] h = Arrays.copyOf(MARKER, MARKER.length + Long.BYTES);
        for (int i = 0; i < Long.BYTES; i++) h[MARKER.length + i] = (byte) (fingerprint >>> (8 * i));
        return h;
    }

    public WireFormat format() {
        return format;
    }

    public byte[] encode(T record) {
        buffer.reset();
        if (format == WireFormat.SINGLE_OBJECT) buffer.write(header, 0, header.length);
        encoder = EncoderFactory.get().directBinaryEncoder(buffer, encoder);
        try {
            writer.write(record, encoder);
            encoder.flush();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot encode a " + type.getSimpleName(), e);
        }
        return buffer.toByteArray();
    }

    /**
     * Decodes one record, bounded by its size ({@link BoundedAvroDecoder}); bytes that are not a {@code T} throw an
     * {@link IOException} naming the type, and so does any Error while decoding them: one record never stops a reader.
     * Either wire format is accepted.
     */
    public T decode(byte[] bytes) throws IOException {
        int start = isSingleObject(bytes) ? header.length : 0;
        BoundedAvroDecoder decoder = new BoundedAvroDecoder(bytes, start, bytes.length - start);
        T record;
        try {
            record = reader.read(null, decoder);
        } catch (IOException | RuntimeException | Error e) {
            throw new IOException(
                    "not a " + type.getSimpleName() + " (" + e.getClass().getSimpleName() + ": " + e.getMessage() + ")",
                    e);
        }
        if (!decoder.isEnd())
            throw new IOException(
                    "not a " + type.getSimpleName() + ": " + decoder.remaining() + " bytes after the record");
        return record;
    }

    /** Whether the value starts with this schema's single-object header. */
    public boolean isSingleObject(byte[] bytes) {
        return startsWith(bytes, header);
    }

    /** Whether {@code bytes} begin with {@code header} (a {@link #singleObjectHeader}). */
    public static boolean startsWith(byte[] bytes, byte[] header) {
        return bytes.length >= header.length && Arrays.equals(bytes, 0, header.length, header, 0, header.length);
    }
}
