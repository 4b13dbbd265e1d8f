package org.gpusched.streaming.fuzz;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Function;
import org.gpusched.streaming.avro.JobSubmitted;
import org.gpusched.streaming.kafka.AvroBinary;
import org.gpusched.testkit.HostileRecords;

/**
 * The fuzz corpus: from a valid trace and a fixed seed, thousands of records that must each be rejected, mixed
 * between the valid lines. Every mutation is one that no valid job survives (a line cut short, a byte that is not
 * UTF-8, a key given twice, a second object, a required field removed or out of range, a node type the cluster lacks,
 * random bytes, a line too long, nesting too deep, half a surrogate pair in the id, the id of a job submitted before),
 * so the test can require that exactly the valid lines are scheduled
 * and every other one rejected. The same seed writes the same corpus.
 */
public final class FuzzCorpus {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String[] REQUIRED = {"id", "submit", "due", "weight", "times"};

    /** The mixed trace as bytes, the 1-based numbers of its bad lines, and how many lines each mutation made. */
    public record Mixed(byte[] bytes, List<Long> badLines, Map<String, Integer> byMutation) {}

    private final Random random;
    private final List<Mutation> mutations = new ArrayList<>();

    private record Mutation(String name, Function<String, byte[]> apply) {}

    public FuzzCorpus(long seed) {
        this.random = new Random(seed);
        add("cut short", line -> utf8(line.substring(0, 1 + random.nextInt(line.length() - 1))));
        add("invalid UTF-8 byte", this::badByte);
        add("key given twice", line -> utf8(line.replaceFirst("\\}$", "," + keyValue(line) + "}")));
        add("second object", line -> utf8(line + (random.nextBoolean() ? "" : " ") + line));
        add("trailing words", line -> utf8(line + " trailing " + random.nextInt(1000)));
        add("required field removed", line -> edit(line, o -> o.remove(REQUIRED[random.nextInt(REQUIRED.length)])));
        add("negative weight", line -> edit(line, o -> o.put("weight", -1 - random.nextInt(100))));
        add("weight past the bound", line -> edit(line, o -> o.put("weight", 1.5e308)));
        add(
                "submit past the ms range",
                line -> edit(line, o -> o.put("submit", 1e17).put("due", 2e17)));
        add(
                "due before submit",
                line -> edit(line, o -> o.put("due", o.get("submit").asDouble() - 1 - random.nextInt(100))));
        add(
                "execution time past the bound",
                line -> edit(line, o -> firstTimes(o).put(firstGpus(o), 1e16)));
        add("execution time zero", line -> edit(line, o -> firstTimes(o).put(firstGpus(o), 0)));
        add("GPU count given twice", line -> edit(line, o -> firstTimes(o).put("0" + firstGpus(o), 100)));
        add("GPU count zero", line -> edit(line, o -> firstTimes(o).put("0", 100)));
        add("more GPUs than the type has", line -> edit(line, o -> firstTimes(o).put("64", 100)));
        add(
                "unknown node type",
                line -> edit(
                        line,
                        o -> ((ObjectNode) o.get("times"))
                                .set("NoSuchType", JSON.createObjectNode().put("1", 10))));
        add("no times", line -> edit(line, o -> o.putObject("times")));
        add("wrong type", line -> edit(line, o -> o.put(REQUIRED[1 + random.nextInt(3)], "soon")));
        add("blank id", line -> edit(line, o -> o.put("id", " ")));
        add("not an object", line -> utf8(random.nextBoolean() ? "[" + line + "]" : String.valueOf(random.nextInt())));
        add("control character", line -> utf8(line.replaceFirst("\"id\":\"", "\"id\":\"\u0001")));
        add(
                "nesting too deep",
                line -> utf8(line.replaceFirst("\\}$", ",\"deep\":" + "[".repeat(5000) + "]".repeat(5000) + "}")));
        add("random bytes", line -> randomBytes(1 + random.nextInt(300)));
        add(
                "half a surrogate pair in the id",
                line -> utf8(line.replaceFirst(
                        "\"id\":\"", "\"id\":\"\\\\ud" + String.format("%03x", 0x800 + random.nextInt(0x800)))));
        add(
                "submit past the bound",
                line -> edit(line, o -> o.put("submit", 1e11).put("due", 2e11)));
        add(
                "id of an earlier job",
                line -> edit(line, o -> {
                    double later = o.get("submit").asDouble() + 1e6;
                    o.put(
                                    "due",
                                    later
                                            + o.get("due").asDouble()
                                            - o.get("submit").asDouble())
                            .put("submit", later);
                }));
    }

    private void add(String name, Function<String, byte[]> apply) {
        mutations.add(new Mutation(name, apply));
    }

    /**
     * The valid lines in order with {@code bad} bad lines spread between them (and {@code longLines} lines over the
     * line limit), each bad line a mutation of a random valid line.
     */
    public Mixed mix(List<String> valid, int bad, int longLines) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        List<Long> badLines = new ArrayList<>();
        Map<String, Integer> byMutation = new java.util.TreeMap<>();
        int total = valid.size() + bad + longLines;
        int validLeft = valid.size(), badLeft = bad, longLeft = longLines;
        long number = 0;
        for (int i = 0; i < total; i++) {
            number++;
            int pick = random.nextInt(validLeft + badLeft + longLeft);
            if (pick < validLeft) {
                out.writeBytes(utf8(valid.get(valid.size() - validLeft--)));
            } else if (pick < validLeft + badLeft) {
                badLeft--;
                Mutation m = mutations.get(random.nextInt(mutations.size()));
                out.writeBytes(m.apply().apply(valid.get(random.nextInt(valid.size()))));
                badLines.add(number);
                byMutation.merge(m.name(), 1, Integer::sum);
            } else {
                longLeft--;
                out.writeBytes(
                        utf8("{\"id\":\"long\",\"pad\":\"" + "x".repeat(1_000_000 + random.nextInt(200_000)) + "\"}"));
                badLines.add(number);
                byMutation.merge("line over the limit", 1, Integer::sum);
            }
            out.write('\n');
        }
        return new Mixed(out.toByteArray(), badLines, byMutation);
    }

    /** Raw values for a topic, and how many each kind of value made. */
    public record Raw(List<byte[]> values, Map<String, Integer> byKind) {}

    /**
     * Values for the submissions topic that are not one valid JobSubmitted: random bytes, valid records cut or
     * extended, hostile lengths, JSON without the trace-line header, and valid records whose extras another producer
     * made unusable ({@link HostileRecords#badExtras}).
     */
    public Raw rawRecords(List<JobSubmitted> valid, int count) {
        AvroBinary<JobSubmitted> avro = new AvroBinary<>(JobSubmitted.class);
        List<byte[]> records = new ArrayList<>();
        Map<String, Integer> byKind = new java.util.TreeMap<>();
        List<Map.Entry<String, String>> extras =
                new ArrayList<>(HostileRecords.badExtras().entrySet());
        for (int i = 0; i < count; i++) {
            JobSubmitted job = valid.get(random.nextInt(valid.size()));
            byte[] base = avro.encode(job);
            String kind;
            byte[] value;
            switch (random.nextInt(7)) {
                case 0 -> {
                    kind = "random bytes";
                    value = randomBytes(random.nextInt(200));
                }
                case 1 -> {
                    kind = "valid record cut";
                    value = java.util.Arrays.copyOf(base, random.nextInt(base.length));
                }
                case 2 -> {
                    kind = "valid record extended";
                    value = java.util.Arrays.copyOf(base, base.length + 1 + random.nextInt(8));
                    for (int k = base.length; k < value.length; k++) value[k] = (byte) random.nextInt(256);
                }
                case 3 -> {
                    kind = "string claiming 2 GB";
                    value = HostileRecords.twoGigabyteString();
                }
                case 4 -> {
                    kind = "array claiming 2^30 items";
                    value = HostileRecords.hugeArray();
                }
                case 5 -> {
                    kind = "JSON without the trace-line header";
                    value = utf8("{\"id\":\"json-" + i + "\",\"submit\":1}");
                }
                default -> {
                    Map.Entry<String, String> bad = extras.get(random.nextInt(extras.size()));
                    kind = bad.getKey();
                    JobSubmitted forged = JobSubmitted.newBuilder(job)
                            .setId("extras-" + i)
                            .setExtrasJson(bad.getValue())
                            .build();
                    value = avro.encode(forged);
                }
            }
            records.add(value);
            byKind.merge(kind, 1, Integer::sum);
        }
        return new Raw(records, byKind);
    }

    /** Writes a mixed trace to a file. */
    public static void write(Path file, Mixed mixed) {
        try {
            Files.write(file, mixed.bytes());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private byte[] badByte(String line) {
        byte[] bytes = utf8(line);
        int at = 1 + random.nextInt(bytes.length - 1);
        byte[][] bad = {
            {(byte) 0x80},
            {(byte) 0xFF},
            {(byte) 0xC3, 'a'},
            {(byte) 0xED, (byte) 0xA0, (byte) 0x80},
            {(byte) 0xF8, (byte) 0x88}
        };
        byte[] insert = bad[random.nextInt(bad.length)];
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(bytes, 0, at);
        out.writeBytes(insert);
        out.write(bytes, at, bytes.length - at);
        return out.toByteArray();
    }

    private String keyValue(String line) {
        ObjectNode o = parse(line);
        String key = REQUIRED[1 + random.nextInt(3)];
        return "\"" + key + "\":" + o.get(key);
    }

    private byte[] edit(String line, java.util.function.Consumer<ObjectNode> change) {
        ObjectNode o = parse(line);
        change.accept(o);
        return utf8(o.toString());
    }

    private static ObjectNode firstTimes(ObjectNode o) {
        return (ObjectNode) o.get("times").elements().next();
    }

    private static String firstGpus(ObjectNode o) {
        Iterator<String> names = firstTimes(o).fieldNames();
        return names.next();
    }

    private byte[] randomBytes(int n) {
        byte[] bytes = new byte[Math.max(1, n)];
        for (int i = 0; i < bytes.length; i++) {
            int b;
            do b = random.nextInt(256);
            while (b == '\n' || b == '\r' || b == '{' && i == 0);
            bytes[i] = (byte) b;
        }
        if (bytes[0] >= 0 && Character.isWhitespace((char) bytes[0])) bytes[0] = 'x';
        return bytes;
    }

    private static ObjectNode parse(String line) {
        try {
            return (ObjectNode) JSON.readTree(line);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
