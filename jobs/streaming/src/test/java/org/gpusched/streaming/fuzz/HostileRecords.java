package org.gpusched.streaming.fuzz;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.HexFormat;

/** Submissions-topic values built to make a decoder allocate what the record does not hold. */
public final class HostileRecords {
    private HostileRecords() {}

    /** 6 bytes: a JobSubmitted whose id claims 2,000,000,000 bytes, then one byte. */
    public static byte[] twoGigabyteString() {
        return HexFormat.of().parseHex("80d0acf30e41");
    }

    /** 37 bytes: a JobSubmitted (id "x", submit, due, weight) whose times array claims 2^30 items, then 6 bytes. */
    public static byte[] hugeArray() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(2);
        out.write('x');
        ByteBuffer doubles = ByteBuffer.allocate(24)
                .order(ByteOrder.LITTLE_ENDIAN)
                .putDouble(1)
                .putDouble(100)
                .putDouble(1);
        out.writeBytes(doubles.array());
        writeLong(out, 1L << 30);
        out.writeBytes(new byte[] {2, 'G', '1', 2, 0, 0});
        return out.toByteArray();
    }

    /** Avro's zig-zag varint, as its encoder writes a long. */
    static void writeLong(ByteArrayOutputStream out, long value) {
        long n = (value << 1) ^ (value >> 63);
        while ((n & ~0x7FL) != 0) {
            out.write((int) ((n & 0x7F) | 0x80));
            n >>>= 7;
        }
        out.write((int) n);
    }
}
