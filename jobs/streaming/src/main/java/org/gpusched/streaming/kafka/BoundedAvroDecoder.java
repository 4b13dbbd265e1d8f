package org.gpusched.streaming.kafka;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.Decoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.util.Utf8;

/**
 * Avro binary decoding of one record held in memory, where no length or count the bytes claim can make the reader
 * allocate more than the record holds. Avro's own decoder allocates what a length prefix says before reading it: a
 * 6-byte record claiming a 2 GB string, or one claiming a 2^30-item array, throws OutOfMemoryError (its
 * {@code org.apache.avro.limits.*} system properties only cap those at one fixed size for the whole JVM). Here a string
 * or bytes longer than the bytes left, or an array or map block with more items than bytes left (every item of the
 * product's schemas takes at least one byte), is an {@link IOException} naming what was claimed, before any
 * allocation. Strings must be valid UTF-8. Everything else is Avro's {@link BinaryDecoder}.
 */
public final class BoundedAvroDecoder extends Decoder {
    private final BinaryDecoder in;
    private final InputStream left;
    private final CharsetDecoder utf8 = StandardCharsets.UTF_8
            .newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT);

    public BoundedAvroDecoder(byte[] record) {
        this(record, 0, record.length);
    }

    /** The record held in {@code length} bytes of {@code bytes} from {@code offset}. */
    public BoundedAvroDecoder(byte[] bytes, int offset, int length) {
        this.in = DecoderFactory.get().binaryDecoder(bytes, offset, length, null);
        this.left = in.inputStream();
    }

    /** Whether every byte of the record was read. */
    public boolean isEnd() throws IOException {
        return in.isEnd();
    }

    /** Bytes of the record not read yet. */
    long remaining() throws IOException {
        return left.available();
    }

    private int length(String what) throws IOException {
        long n = in.readLong();
        if (n < 0) throw new IOException(what + " of negative length " + n);
        long remaining = remaining();
        if (n > remaining)
            throw new IOException(what + " of " + n + " bytes claimed with " + remaining + " bytes left in the record");
        return (int) n;
    }

    private long items(long n, String what) throws IOException {
        long remaining = remaining();
        if (n < 0 || n > remaining)
            throw new IOException(
                    what + " block of " + n + " items claimed with " + remaining + " bytes left in the record");
        return n;
    }

    private String text(byte[] bytes, int length) throws IOException {
        try {
            return utf8.reset().decode(ByteBuffer.wrap(bytes, 0, length)).toString();
        } catch (CharacterCodingException e) {
            throw new IOException("a string that is not valid UTF-8");
        }
    }

    @Override
    public Utf8 readString(Utf8 old) throws IOException {
        int n = length("a string");
        Utf8 result = old != null ? old : new Utf8();
        result.setByteLength(n);
        in.readFixed(result.getBytes(), 0, n);
        text(result.getBytes(), n);
        return result;
    }

    @Override
    public String readString() throws IOException {
        int n = length("a string");
        byte[] bytes = new byte[n];
        in.readFixed(bytes, 0, n);
        return text(bytes, n);
    }

    @Override
    public ByteBuffer readBytes(ByteBuffer old) throws IOException {
        int n = length("bytes");
        ByteBuffer result = old != null && old.capacity() >= n ? old.clear() : ByteBuffer.allocate(n);
        in.readFixed(result.array(), result.arrayOffset(), n);
        result.limit(n);
        return result;
    }

    @Override
    public long readArrayStart() throws IOException {
        return items(in.readArrayStart(), "an array");
    }

    @Override
    public long arrayNext() throws IOException {
        return items(in.arrayNext(), "an array");
    }

    @Override
    public long readMapStart() throws IOException {
        return items(in.readMapStart(), "a map");
    }

    @Override
    public long mapNext() throws IOException {
        return items(in.mapNext(), "a map");
    }

    @Override
    public void readNull() throws IOException {
        in.readNull();
    }

    @Override
    public boolean readBoolean() throws IOException {
        return in.readBoolean();
    }

    @Override
    public int readInt() throws IOException {
        return in.readInt();
    }

    @Override
    public long readLong() throws IOException {
        return in.readLong();
    }

    @Override
    public float readFloat() throws IOException {
        return in.readFloat();
    }

    @Override
    public double readDouble() throws IOException {
        return in.readDouble();
    }

    @Override
    public void skipString() throws IOException {
        in.skipFixed(length("a string"));
    }

    @Override
    public void skipBytes() throws IOException {
        in.skipFixed(length("bytes"));
    }

    @Override
    public void readFixed(byte[] bytes, int start, int length) throws IOException {
        in.readFixed(bytes, start, length);
    }

    @Override
    public void skipFixed(int length) throws IOException {
        in.skipFixed(length);
    }

    @Override
    public int readEnum() throws IOException {
        return in.readEnum();
    }

    @Override
    public long skipArray() throws IOException {
        return in.skipArray();
    }

    @Override
    public long skipMap() throws IOException {
        return in.skipMap();
    }

    @Override
    public int readIndex() throws IOException {
        return in.readIndex();
    }
}
