package org.gpusched.testkit;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Submissions-topic values built to make a decoder allocate what the record does not hold, and the {@code extrasJson}
 * another producer than gpusched's may put in a valid record.
 */
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
    public static void writeLong(ByteArrayOutputStream out, long value) {
        long n = (value << 1) ^ (value >> 63);
        while ((n & ~0x7FL) != 0) {
            out.write((int) ((n & 0x7F) | 0x80));
            n >>>= 7;
        }
        out.write((int) n);
    }

    /**
     * {@code extrasJson} values of an otherwise valid JobSubmitted that the job must reject, by kind: not JSON, not one
     * object, a key twice, keys of the record's own fields (which would forge them in jobs.jsonl), text after the
     * object, nesting past the parser's limit.
     */
    public static Map<String, String> badExtras() {
        Map<String, String> extras = new LinkedHashMap<>();
        extras.put("extras not JSON", "{not json");
        extras.put("extras not an object", "[1,2]");
        extras.put("extras with a key twice", "{\"epochs\":1,\"epochs\":2}");
        extras.put(
                "extras forging the record's fields",
                "{\"id\":\"spoofed\",\"submit\":999,\"times\":{\"G1\":{\"1\":1}}}");
        extras.put("extras forging the actualFactor", "{\"actualFactor\":0.001}");
        extras.put("extras with text after the object", "{\"epochs\":1} trailing");
        extras.put("extras nested too deep", "{\"deep\":" + "[".repeat(5000) + "]".repeat(5000) + "}");
        return extras;
    }
}
