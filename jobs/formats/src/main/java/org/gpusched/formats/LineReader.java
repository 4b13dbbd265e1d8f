package org.gpusched.formats;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.MalformedInputException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;

/**
 * Reads the lines of a UTF-8 text file (JSON Lines traces, node events, telemetry) one at a time, where a bad line is
 * a line like any other and does not end the file: a line that is not valid UTF-8, or longer than the limit, comes
 * back with a reason instead of aborting the read (a {@link java.io.BufferedReader} with a strict decoder throws
 * "Input length = 1" for the whole file, a lenient one silently puts U+FFFD into ids). Lines end at {@code \n}; a
 * {@code \r} before it is dropped, and so is a UTF-8 byte order mark at the start of the input. Not thread-safe.
 */
public final class LineReader implements Closeable {
    /**
     * The longest line read, in bytes: far above any real job (a few hundred bytes) and within the default size limit of
     * a Kafka record (1 MiB with its framing), so a line the file replay accepts also fits on the submissions topic.
     */
    public static final int MAX_LINE_BYTES = 1_000_000;
    /** How much of an over-long line a rejection keeps, so one bad line cannot fill the rejected output. */
    public static final int KEPT_PREFIX_BYTES = 1 << 10;

    /**
     * One line: its 1-based number, its text (for an unusable line, the bytes decoded leniently, an over-long one cut
     * to its first {@value #KEPT_PREFIX_BYTES} bytes) and, when the line cannot be used, why.
     */
    public record Line(long number, String text, String error) {
        public boolean ok() {
            return error == null;
        }
    }

    private final InputStream in;
    private final int maxBytes;
    private final CharsetDecoder strict = StandardCharsets.UTF_8
            .newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT);
    private final byte[] chunk = new byte[64 * 1024];
    private int pos;
    private int limit;
    private byte[] buffer = new byte[512];
    private long number;

    public LineReader(InputStream in) {
        this(in, MAX_LINE_BYTES);
    }

    public LineReader(InputStream in, int maxBytes) {
        this.in = in;
        this.maxBytes = maxBytes;
    }

    public static LineReader open(Path file) throws IOException {
        return new LineReader(Files.newInputStream(file));
    }

    /** The next line, or null at the end of the input (a last line without {@code \n} is a line). */
    public Line next() throws IOException {
        int length = 0;
        long total = 0;
        boolean newline = false;
        while (!newline) {
            if (pos == limit && !fill()) break;
            int end = pos;
            while (end < limit && chunk[end] != '\n') end++;
            newline = end < limit;
            int n = end - pos;
            total += n;
            int keep = (int) Math.min(n, maxBytes - length);
            if (keep > 0) {
                if (length + keep > buffer.length)
                    buffer = Arrays.copyOf(buffer, Math.min(maxBytes, Math.max(length + keep, buffer.length * 2)));
                System.arraycopy(chunk, pos, buffer, length, keep);
                length += keep;
            }
            pos = newline ? end + 1 : end;
        }
        if (!newline && total == 0) return null;
        number++;
        if (total > maxBytes) {
            String prefix = new String(buffer, 0, Math.min(length, KEPT_PREFIX_BYTES), StandardCharsets.UTF_8);
            return new Line(
                    number,
                    prefix,
                    String.format(Locale.ROOT, "line is %,d bytes, over the limit of %,d", total, maxBytes));
        }
        if (length > 0 && buffer[length - 1] == '\r') length--;
        if (number == 1
                && length >= 3
                && buffer[0] == (byte) 0xEF
                && buffer[1] == (byte) 0xBB
                && buffer[2] == (byte) 0xBF) {
            // A UTF-8 byte order mark, as some editors write at the start of a file: not part of the first line.
            System.arraycopy(buffer, 3, buffer, 0, length - 3);
            length -= 3;
        }
        return decode(length);
    }

    private boolean fill() throws IOException {
        int n = in.read(chunk);
        pos = 0;
        limit = Math.max(n, 0);
        return n > 0;
    }

    private Line decode(int length) {
        boolean ascii = true;
        for (int i = 0; i < length && ascii; i++) ascii = buffer[i] >= 0;
        if (ascii) return new Line(number, new String(buffer, 0, length, StandardCharsets.ISO_8859_1), null);
        try {
            CharBuffer chars = strict.reset().decode(ByteBuffer.wrap(buffer, 0, length));
            return new Line(number, chars.toString(), null);
        } catch (CharacterCodingException e) {
            String at = e instanceof MalformedInputException m
                    ? " at byte " + (firstBadByte(length) + 1) + " (length " + m.getInputLength() + ")"
                    : "";
            return new Line(number, new String(buffer, 0, length, StandardCharsets.UTF_8), "not valid UTF-8" + at);
        }
    }

    /** The offset of the first byte of the line that does not decode, for the message. */
    private int firstBadByte(int length) {
        ByteBuffer bytes = ByteBuffer.wrap(buffer, 0, length);
        CharBuffer out = CharBuffer.allocate(length);
        strict.reset().decode(bytes, out, true);
        return bytes.position();
    }

    @Override
    public void close() throws IOException {
        in.close();
    }
}
