package org.gpusched.streaming.kafka;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.avro.specific.SpecificRecord;
import org.apache.avro.specific.SpecificRecordBase;

/**
 * Plain Avro binary (no single-object header, no schema registry framing) for one generated record class: the
 * encoding the topics carry and flink-avro reads. The generated {@code toByteBuffer()} writes the single-object
 * encoding (C3 01 + fingerprint), which Flink rejects, so producers outside Flink go through this class.
 * Not thread-safe (it reuses its encoder); one per producer or reader.
 */
public final class AvroBinary<T extends SpecificRecord> {
    private final Class<T> type;
    private final SpecificDatumWriter<T> writer;
    private final SpecificDatumReader<T> reader;
    private final ByteArrayOutputStream buffer = new ByteArrayOutputStream(256);
    private BinaryEncoder encoder;

    public AvroBinary(Class<T> type) {
        this.type = type;
        this.writer = new SpecificDatumWriter<>(type);
        this.reader = new SpecificDatumReader<>(type);
    }

    public static <T extends SpecificRecordBase> AvroBinary<T> of(Class<T> type) {
        return new AvroBinary<>(type);
    }

    public byte[] encode(T record) {
        buffer.reset();
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
     */
    public T decode(byte[] bytes) throws IOException {
        BoundedAvroDecoder decoder = new BoundedAvroDecoder(bytes);
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
}
