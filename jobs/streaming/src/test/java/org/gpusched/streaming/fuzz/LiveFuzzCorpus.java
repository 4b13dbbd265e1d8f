package org.gpusched.streaming.fuzz;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.function.Function;
import org.gpusched.streaming.avro.JobCompleted;
import org.gpusched.streaming.avro.Telemetry;
import org.gpusched.streaming.avro.TelemetryKind;
import org.gpusched.streaming.kafka.AvroBinary;
import org.gpusched.testkit.HostileRecords;

/**
 * The fuzz corpus of the live inputs: values for the completions and telemetry topics that the job must each reject,
 * made from valid records and a fixed seed, as {@link FuzzCorpus} makes them for the submissions topic. Bytes that are
 * not Avro or claim more than they hold, records cut or extended, fields out of range or missing, a kind past the
 * enum, names that are not UTF-8 or half a surrogate pair, JSON (marked as a trace line, or not), empty values,
 * records of jobs never submitted or already finished; for the scheduler also nodes it never saw and progress out of
 * range; for PowerFlow performance samples that are partial or out of range. The same seed makes the same corpus.
 */
public final class LiveFuzzCorpus {
    /** One value for a topic: its bytes (null: a tombstone), whether it is marked as a JSON line, and its kind. */
    public record Value(byte[] bytes, boolean jsonLine, String kind) {}

    /** Whose inputs: the scheduler's live mode, or the PowerFlow scheduler's. */
    public enum Target {
        SCHEDULER,
        POWERFLOW
    }

    private record Mutation<T>(String name, Function<T, Value> apply) {}

    private final Random random;
    private final AvroBinary<JobCompleted> completionAvro = new AvroBinary<>(JobCompleted.class);
    private final AvroBinary<Telemetry> telemetryAvro = new AvroBinary<>(Telemetry.class);

    public LiveFuzzCorpus(long seed) {
        this.random = new Random(seed);
    }

    /** {@code count} bad completions, each a mutation of a random valid one, and how many each kind made. */
    public List<Value> completions(List<JobCompleted> valid, int count, Target target, Map<String, Integer> byKind) {
        List<Mutation<JobCompleted>> m = new ArrayList<>();
        common(m, completionAvro::encode, this::json);
        m.add(new Mutation<>("time negative", c -> avro(copy(c).setTime(-1 - random.nextInt(100)))));
        m.add(new Mutation<>("time not a number", c -> avro(copy(c).setTime(Double.NaN))));
        m.add(new Mutation<>("time past the bound", c -> avro(copy(c).setTime(1e11))));
        m.add(new Mutation<>("blank job", c -> avro(copy(c).setJob(" "))));
        m.add(new Mutation<>("job name not UTF-8", c -> {
            byte[] bytes = completionAvro.encode(copy(c).setJob("AAA").build());
            return new Value(replace(bytes, "AAA", new byte[] {(byte) 0xED, (byte) 0xA0, (byte) 0x80}), false, null);
        }));
        m.add(new Mutation<>("job string claiming 2 GB", c -> {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            out.writeBytes(doubleBytes(c.getTime()));
            HostileRecords.writeLong(out, 2_000_000_000L);
            out.write('x');
            return new Value(out.toByteArray(), false, null);
        }));
        m.add(new Mutation<>(
                "JSON job half a surrogate pair",
                c -> jsonText(
                        String.format(Locale.ROOT, "{\"time\":%s,\"job\":\"\\ud800%s\"}", c.getTime(), c.getJob()))));
        m.add(new Mutation<>("JSON time as text", c -> jsonText("{\"time\":\"soon\",\"job\":\"" + c.getJob() + "\"}")));
        m.add(new Mutation<>("job never submitted", c -> avro(copy(c).setJob("ghost-" + random.nextInt(1_000_000)))));
        m.add(new Mutation<>(
                "completion of a finished job", c -> avro(copy(c).setTime(c.getTime() + 1e6 + random.nextInt(100)))));
        return draw(valid, count, m, byKind);
    }

    /** {@code count} bad telemetry records, each a mutation of a random valid one (JOB_PROGRESS with a job). */
    public List<Value> telemetry(List<Telemetry> valid, int count, Target target, Map<String, Integer> byKind) {
        List<Mutation<Telemetry>> m = new ArrayList<>();
        common(m, telemetryAvro::encode, this::json);
        m.add(new Mutation<>("time negative", t -> avro(copy(t).setTime(-1 - random.nextInt(100)))));
        m.add(new Mutation<>("time not a number", t -> avro(copy(t).setTime(Double.NaN))));
        m.add(new Mutation<>("time past the bound", t -> avro(copy(t).setTime(1e11))));
        m.add(new Mutation<>("JOB_PROGRESS without its job", t -> avro(copy(t).setJob(null))));
        m.add(new Mutation<>("kind past the enum", t -> {
            byte[] bytes = telemetryAvro.encode(t);
            bytes[8] = (byte) (2 * (2 + random.nextInt(40))); // zig-zag of an index the enum lacks
            return new Value(bytes, false, null);
        }));
        m.add(new Mutation<>("job string claiming 2 GB", t -> {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            out.writeBytes(doubleBytes(t.getTime()));
            out.write(0); // JOB_PROGRESS
            out.write(2); // the union's string branch
            HostileRecords.writeLong(out, 2_000_000_000L);
            out.write('x');
            return new Value(out.toByteArray(), false, null);
        }));
        m.add(new Mutation<>(
                "JSON kind unknown",
                t -> jsonText(String.format(
                        Locale.ROOT, "{\"time\":%s,\"kind\":\"JOB_SPEED\",\"job\":\"%s\"}", t.getTime(), t.getJob()))));
        m.add(new Mutation<>(
                "JSON job half a surrogate pair",
                t -> jsonText(
                        json(copy(t).setJob(t.getJob() + "\ud800").build()).replace("\ud800", "\\udbff"))));
        if (target == Target.SCHEDULER) {
            m.add(new Mutation<>("progress 1 or more", t -> avro(copy(t).setProgress(1.0 + random.nextInt(5)))));
            m.add(new Mutation<>("progress negative", t -> avro(copy(t).setProgress(-0.1))));
            m.add(new Mutation<>("progress missing", t -> avro(copy(t).setProgress(null))));
            m.add(new Mutation<>(
                    "progress of a job never submitted",
                    t -> avro(copy(t).setJob("ghost-" + random.nextInt(1_000_000)))));
            m.add(new Mutation<>("NODE_POWER negative", t -> avro(power(t, "n", -5.0))));
            m.add(new Mutation<>("NODE_POWER past the bound", t -> avro(power(t, "n", 1e9))));
            m.add(new Mutation<>("NODE_POWER not a number", t -> avro(power(t, "n", Double.NaN))));
            m.add(new Mutation<>("NODE_POWER without its node", t -> avro(power(t, null, 100.0))));
            m.add(new Mutation<>("NODE_POWER of an unknown node", t -> avro(power(t, "no-such-node", 100.0))));
        } else {
            m.add(new Mutation<>(
                    "sample of a job never submitted",
                    t -> avro(copy(t).setJob("ghost-" + random.nextInt(1_000_000)))));
            m.add(new Mutation<>(
                    "sample after its job finished",
                    t -> avro(copy(t).setTime(t.getTime() + 1e6 + random.nextInt(100)))));
            m.add(new Mutation<>(
                    "sample without its GPU count", t -> avro(sample(t).setGpus(null))));
            m.add(new Mutation<>("sample step time zero", t -> avro(sample(t).setStepSeconds(0.0))));
            m.add(new Mutation<>("sample power negative", t -> avro(sample(t).setGpuPowerWatts(-1.0))));
            m.add(new Mutation<>(
                    "sample power limit past the bound", t -> avro(sample(t).setPowerLimitWatts(1e6))));
            m.add(new Mutation<>("sample local batch zero", t -> avro(sample(t).setLocalBatch(0.0))));
            m.add(new Mutation<>("sample on zero GPUs", t -> avro(sample(t).setGpus(0))));
            m.add(new Mutation<>("iterations done negative", t -> avro(copy(t).setIterationsDone(-1.0))));
            m.add(new Mutation<>(
                    "neither iterations nor a sample",
                    t -> avro(copy(t).setIterationsDone(null)
                            .setStepSeconds(null)
                            .setGpuPowerWatts(null)
                            .setGpus(null)
                            .setPowerLimitWatts(null)
                            .setLocalBatch(null))));
        }
        return draw(valid, count, m, byKind);
    }

    /** The valid values in order with the bad ones spread between them; {@code bad} receives their positions. */
    public List<Value> mix(List<Value> valid, List<Value> badValues, List<Integer> badPositions) {
        List<Value> out = new ArrayList<>();
        int v = 0, b = 0;
        while (v < valid.size() || b < badValues.size()) {
            boolean takeBad = b < badValues.size()
                    && (v == valid.size()
                            || random.nextInt(valid.size() - v + badValues.size() - b) >= valid.size() - v);
            if (takeBad) {
                badPositions.add(out.size());
                out.add(badValues.get(b++));
            } else out.add(valid.get(v++));
        }
        return out;
    }

    /** Mutations every live input shares: random bytes, records cut or extended, JSON, empty values. */
    private <T> void common(List<Mutation<T>> m, Function<T, byte[]> encode, Function<T, String> json) {
        m.add(new Mutation<>("random bytes", r -> new Value(randomBytes(1 + random.nextInt(200)), false, null)));
        m.add(new Mutation<>("valid record cut", r -> {
            byte[] bytes = encode.apply(r);
            return new Value(Arrays.copyOf(bytes, random.nextInt(bytes.length)), false, null);
        }));
        m.add(new Mutation<>("valid record extended", r -> {
            byte[] bytes = encode.apply(r);
            byte[] longer = Arrays.copyOf(bytes, bytes.length + 1 + random.nextInt(8));
            for (int k = bytes.length; k < longer.length; k++) longer[k] = (byte) random.nextInt(256);
            return new Value(longer, false, null);
        }));
        m.add(new Mutation<>("empty value (tombstone)", r -> new Value(null, false, null)));
        m.add(new Mutation<>(
                "JSON without the trace-line header",
                r -> new Value(json.apply(r).getBytes(StandardCharsets.UTF_8), false, null)));
        m.add(new Mutation<>("JSON cut short", r -> {
            String text = json.apply(r);
            return jsonText(text.substring(0, 1 + random.nextInt(text.length() - 1)));
        }));
        m.add(new Mutation<>("JSON key given twice", r -> {
            String text = json.apply(r);
            return jsonText(text.substring(0, text.length() - 1) + ",\"time\":1}");
        }));
        m.add(new Mutation<>("JSON not an object", r -> jsonText("[" + json.apply(r) + "]")));
    }

    private <T> List<Value> draw(List<T> valid, int count, List<Mutation<T>> m, Map<String, Integer> byKind) {
        List<Value> out = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            Mutation<T> mutation = m.get(random.nextInt(m.size()));
            Value v = mutation.apply().apply(valid.get(random.nextInt(valid.size())));
            out.add(new Value(v.bytes(), v.jsonLine(), mutation.name()));
            byKind.merge(mutation.name(), 1, Integer::sum);
        }
        return out;
    }

    private static JobCompleted.Builder copy(JobCompleted c) {
        return JobCompleted.newBuilder(c);
    }

    private static Telemetry.Builder copy(Telemetry t) {
        return Telemetry.newBuilder(t);
    }

    private static Telemetry power(Telemetry t, String node, Double watts) {
        return Telemetry.newBuilder()
                .setTime(t.getTime())
                .setKind(TelemetryKind.NODE_POWER)
                .setNode(node)
                .setPowerWatts(watts)
                .build();
    }

    /** A whole PowerFlow performance sample at the record's time, to be spoilt one field at a time. */
    private static Telemetry.Builder sample(Telemetry t) {
        return Telemetry.newBuilder(t)
                .setStepSeconds(0.5)
                .setGpuPowerWatts(200.0)
                .setGpus(1)
                .setPowerLimitWatts(200.0)
                .setLocalBatch(64.0);
    }

    private Value avro(JobCompleted.Builder c) {
        return new Value(completionAvro.encode(c.build()), false, null);
    }

    private Value avro(Telemetry.Builder t) {
        return avro(t.build());
    }

    private Value avro(Telemetry t) {
        return new Value(telemetryAvro.encode(t), false, null);
    }

    private static Value jsonText(String text) {
        return new Value(text.getBytes(StandardCharsets.UTF_8), true, null);
    }

    private String json(JobCompleted c) {
        return String.format(Locale.ROOT, "{\"time\":%s,\"job\":\"%s\"}", c.getTime(), c.getJob());
    }

    private String json(Telemetry t) {
        Map<String, Object> fields = new TreeMap<>();
        for (var f : Telemetry.getClassSchema().getFields()) {
            Object v = t.get(f.name());
            if (v != null) fields.put(f.name(), v);
        }
        StringBuilder s = new StringBuilder("{");
        fields.forEach((k, v) -> {
            if (s.length() > 1) s.append(',');
            s.append('"').append(k).append("\":");
            s.append(v instanceof Number ? String.valueOf(v) : "\"" + v + "\"");
        });
        return s.append('}').toString();
    }

    private static byte[] doubleBytes(double d) {
        return ByteBuffer.allocate(8)
                .order(ByteOrder.LITTLE_ENDIAN)
                .putDouble(d)
                .array();
    }

    private static byte[] replace(byte[] bytes, String what, byte[] with) {
        byte[] target = what.getBytes(StandardCharsets.UTF_8);
        for (int i = 0; i + target.length <= bytes.length; i++) {
            if (Arrays.equals(bytes, i, i + target.length, target, 0, target.length)) {
                byte[] out = bytes.clone();
                System.arraycopy(with, 0, out, i, with.length);
                return out;
            }
        }
        throw new IllegalArgumentException(what + " not in the record");
    }

    private byte[] randomBytes(int n) {
        byte[] bytes = new byte[n];
        random.nextBytes(bytes);
        return bytes;
    }
}
