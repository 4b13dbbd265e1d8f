package org.gpusched.streaming;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.avro.specific.SpecificRecordBase;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.formats.avro.typeutils.AvroTypeInfo;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;
import org.gpusched.core.model.InvalidInstanceException;
import org.gpusched.core.model.Job;
import org.gpusched.core.model.NodeType;
import org.gpusched.core.random.RandomState;
import org.gpusched.formats.FormatException;
import org.gpusched.formats.LineReader;
import org.gpusched.formats.TraceJob;
import org.gpusched.formats.TraceJson;
import org.gpusched.streaming.avro.ExecutionTime;
import org.gpusched.streaming.avro.JobCompleted;
import org.gpusched.streaming.avro.JobSubmitted;
import org.gpusched.streaming.avro.NodeEvent;
import org.gpusched.streaming.avro.NodeEventKind;
import org.gpusched.streaming.avro.RejectedRecord;
import org.gpusched.streaming.avro.Telemetry;
import org.gpusched.streaming.avro.TelemetryKind;
import org.gpusched.streaming.kafka.AvroBinary;
import org.gpusched.streaming.state.ControllerEvent;
import org.gpusched.streaming.state.EventKind;

/**
 * Parses and validates the raw records of one input topic into {@link ControllerEvent}s. Text is JSON (a trace line
 * for submissions), bytes are Avro binary of the topic's schema (plain or single-object). Anything unusable (unreadable, a missing or
 * impossible field, an unknown node type, a due date before submission, a configuration with more GPUs than its
 * type has) goes to {@link #REJECTED} with the reason and the job goes on. Blank text lines are skipped. Stateless;
 * under noise it also draws each job's actualFactor, deterministically from the seed and the job id.
 */
public final class RecordParser extends ProcessFunction<RawRecord, ControllerEvent> {
    private static final long serialVersionUID = 1L;
    public static final OutputTag<RejectedRecord> REJECTED =
            new OutputTag<>("rejected", new AvroTypeInfo<>(RejectedRecord.class));
    private static final long NOISE_STREAM = 0x4E4F495345L;
    /** The largest real/predicted duration ratio: a real duration stays within the time range of {@link TraceJson#MAX_SECONDS}. */
    static final double MAX_ACTUAL_FACTOR = 1000;
    /** The largest power a node may report, in watts (a whole rack draws tens of kilowatts). */
    static final double MAX_POWER_WATTS = 1e7;

    private final Topics topic;
    private final SchedulerConfig config;
    private transient ObjectMapper json;
    private transient Map<String, NodeType> types;
    private transient Map<Class<?>, AvroBinary<?>> avro;

    public RecordParser(Topics topic, SchedulerConfig config) {
        if (!topic.isInput()) throw new IllegalArgumentException(topic + " is not an input topic");
        this.topic = topic;
        this.config = config;
    }

    @Override
    public void open(OpenContext openContext) {
        json = JsonMapper.builder()
                .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS)
                .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
                .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
                .build();
        types = config.cluster().typesByName();
        avro = new HashMap<>();
    }

    /**
     * Parses one record, or rejects it: a reason and the field at fault ({@value FormatException#WHOLE_RECORD} when the
     * whole record is unusable). Any exception or Error while handling one record (an OutOfMemoryError included) rejects
     * that record and the job goes on with the next.
     */
    @Override
    public void processElement(RawRecord raw, Context ctx, Collector<ControllerEvent> out) {
        if (json == null) open(null);
        if (raw.error != null) {
            ctx.output(REJECTED, rejected(raw, raw.error, FormatException.WHOLE_RECORD));
            return;
        }
        if (raw.text != null && raw.text.isBlank()) return;
        ControllerEvent event;
        try {
            event = parse(raw);
        } catch (Rejection e) {
            ctx.output(REJECTED, rejected(raw, e.getMessage(), e.field));
            return;
        } catch (RuntimeException | Error e) {
            ctx.output(
                    REJECTED,
                    rejected(
                            raw,
                            "the record could not be read (" + e.getClass().getSimpleName() + ": " + e.getMessage()
                                    + ")",
                            FormatException.WHOLE_RECORD));
            return;
        }
        out.collect(event);
    }

    private ControllerEvent parse(RawRecord raw) throws Rejection {
        ControllerEvent event = switch (topic) {
            case SUBMISSIONS -> submission(raw);
            case COMPLETIONS -> completion(raw);
            case NODE_EVENTS -> nodeEvent(raw);
            case TELEMETRY -> telemetry(raw);
            default -> throw new IllegalStateException(topic.name());
        };
        event.setSource(raw.source == null ? topic.topic() : raw.source);
        event.setPosition(raw.position == null ? "" : raw.position);
        return event;
    }

    /** A record the job cannot use: reason and, when known, the field. */
    static final class Rejection extends Exception {
        final String field;

        Rejection(String message, String field) {
            super(message, null, false, false);
            this.field = field == null ? FormatException.WHOLE_RECORD : field;
        }
    }

    /**
     * The rejection of a record, its text or bytes cut to {@value LineReader#MAX_LINE_BYTES} (a file line longer is
     * already cut by its reader) so that one huge record cannot make the rejected output unreadable.
     */
    static RejectedRecord rejected(RawRecord raw, String reason, String field) {
        String text = raw.text == null || raw.text.length() <= LineReader.MAX_LINE_BYTES
                ? raw.text
                : raw.text.substring(0, LineReader.MAX_LINE_BYTES);
        byte[] bytes = raw.bytes == null || raw.bytes.length <= LineReader.MAX_LINE_BYTES
                ? raw.bytes
                : Arrays.copyOf(raw.bytes, LineReader.MAX_LINE_BYTES);
        return RejectedRecord.newBuilder()
                .setSource(raw.source == null ? "" : raw.source)
                .setPosition(raw.position == null ? "" : raw.position)
                .setText(text)
                .setBytes(bytes == null ? null : java.nio.ByteBuffer.wrap(bytes))
                .setReason(reason)
                .setField(field == null ? FormatException.WHOLE_RECORD : field)
                .build();
    }

    /** Flink timestamp of a time in seconds: rounded up to the ms so nothing is processed before it happens. */
    public static long toMillis(double seconds) {
        return (long) Math.ceil(seconds * 1000 - 1e-6);
    }

    // ---------------------------------------------------------------- submissions

    private ControllerEvent submission(RawRecord raw) throws Rejection {
        JobSubmitted job;
        if (raw.text != null) {
            TraceJob parsed;
            try {
                parsed = TraceJson.parse(raw.text);
            } catch (FormatException e) {
                throw new Rejection(e.getMessage(), e.field());
            }
            job = toAvro(parsed);
        } else {
            job = decode(raw, JobSubmitted.class);
            validate(job);
        }
        checkAgainstCluster(job);
        if (job.getActualFactor() == null && config.noise() > 0)
            job.setActualFactor(actualFactor(config.seed(), config.noise(), job.getId()));
        Double factor = job.getActualFactor();
        if (factor != null && !(factor > 0 && factor <= MAX_ACTUAL_FACTOR)) {
            throw new Rejection(
                    "job " + job.getId() + ": actualFactor must be a number in (0, " + MAX_ACTUAL_FACTOR + "], got "
                            + job.getActualFactor(),
                    "actualFactor");
        }
        return event(toMillis(job.getSubmit()), EventKind.SUBMISSION, job.getId())
                .setSubmitted(job)
                .build();
    }

    /** The real/predicted duration ratio of a job under noise F: uniform in [1-F, 1+F], a pure function of seed and id. */
    public static double actualFactor(long seed, double noise, String jobId) {
        RandomState r = RandomState.derive(seed ^ NOISE_STREAM, stableHash(jobId));
        return 1 - noise + 2 * noise * r.nextDouble();
    }

    /** A 64-bit FNV-1a hash of the id: stable across JVMs (String.hashCode is too, but only 32 bits). */
    static long stableHash(String s) {
        long h = 0xcbf29ce484222325L;
        for (int i = 0; i < s.length(); i++) {
            h ^= s.charAt(i);
            h *= 0x100000001b3L;
        }
        return h;
    }

    private JobSubmitted toAvro(TraceJob parsed) throws Rejection {
        try {
            return JobCodec.toSubmitted(parsed);
        } catch (IllegalArgumentException e) {
            throw new Rejection(e.getMessage(), "actualFactor");
        }
    }

    /** The trace's checks of every field ({@link TraceJson#checkJob}) on an Avro submission, each naming its field. */
    private static void validate(JobSubmitted job) throws Rejection {
        try {
            Job j = JobCodec.toJob(job);
            TraceJson.checkJob(j.id(), j.submitSeconds(), j.dueSeconds(), j.weightPerHour(), j.times());
        } catch (FormatException e) {
            throw new Rejection(e.getMessage(), e.field());
        } catch (InvalidInstanceException e) {
            try {
                checkFields(job);
            } catch (FormatException f) {
                throw new Rejection(f.getMessage(), f.field());
            }
            throw new Rejection(e.getMessage(), "times");
        }
    }

    /** The field checks of an Avro submission the core model refused, for a message naming the field at fault. */
    private static void checkFields(JobSubmitted job) {
        Map<String, Map<Integer, Double>> times = new LinkedHashMap<>();
        if (job.getTimes() != null) {
            for (ExecutionTime t : job.getTimes()) {
                if (times.computeIfAbsent(t.getType(), k -> new TreeMap<>()).put(t.getGpus(), t.getSeconds()) != null) {
                    String path = "times." + t.getType() + "." + t.getGpus();
                    throw new FormatException("job " + job.getId() + ": " + path + " given twice", path);
                }
            }
        }
        TraceJson.checkJob(job.getId(), job.getSubmit(), job.getDue(), job.getWeight(), times);
    }

    private void checkAgainstCluster(JobSubmitted job) throws Rejection {
        for (ExecutionTime t : job.getTimes()) {
            NodeType type = types.get(t.getType());
            String field = "times." + t.getType();
            if (type == null) {
                throw new Rejection(
                        "job " + job.getId() + ": unknown node type '" + t.getType() + "' in times (cluster types: "
                                + types.keySet() + ")",
                        field);
            }
            if (t.getGpus() > type.gpus()) {
                throw new Rejection(
                        "job " + job.getId() + ": " + field + "." + t.getGpus() + " asks for more GPUs than "
                                + t.getType() + " has (" + type.gpus() + ")",
                        field + "." + t.getGpus());
            }
        }
    }

    // ---------------------------------------------------------------- other topics

    private ControllerEvent completion(RawRecord raw) throws Rejection {
        JobCompleted c;
        if (raw.text != null) {
            JsonNode root = jsonObject(raw.text);
            c = JobCompleted.newBuilder()
                    .setTime(number(root, "time"))
                    .setJob(text(root, "job"))
                    .build();
        } else {
            c = decode(raw, JobCompleted.class);
        }
        checkTime(c.getTime(), "time");
        if (c.getJob() == null || c.getJob().isBlank()) throw new Rejection("field 'job' is missing", "job");
        return event(toMillis(c.getTime()), EventKind.COMPLETION, c.getJob())
                .setCompleted(c)
                .build();
    }

    private ControllerEvent nodeEvent(RawRecord raw) throws Rejection {
        NodeEvent e;
        if (raw.text != null) {
            JsonNode root = jsonObject(raw.text);
            NodeEventKind kind = kind(root, NodeEventKind.class, "one of ADDED, REMOVED, FAILED, TYPE_CHANGED");
            List<String> allowed = new ArrayList<>();
            JsonNode a = root.get("allowedTypes");
            if (a != null && !a.isNull()) {
                if (!a.isArray())
                    throw new Rejection("field 'allowedTypes' must be an array of type names", "allowedTypes");
                a.forEach(n -> allowed.add(n.asText()));
            }
            JsonNode type = root.get("type");
            e = NodeEvent.newBuilder()
                    .setTime(number(root, "time"))
                    .setNode(text(root, "node"))
                    .setKind(kind)
                    .setType(type == null || type.isNull() ? null : type.asText())
                    .setAllowedTypes(allowed)
                    .build();
        } else {
            e = decode(raw, NodeEvent.class);
        }
        checkTime(e.getTime(), "time");
        if (e.getNode() == null || e.getNode().isBlank()) throw new Rejection("field 'node' is missing", "node");
        if (e.getKind() == NodeEventKind.TYPE_CHANGED && e.getType() == null)
            throw new Rejection("node " + e.getNode() + ": TYPE_CHANGED needs a type", "type");
        if (e.getType() != null && !types.containsKey(e.getType()))
            throw new Rejection(
                    "node " + e.getNode() + ": unknown node type '" + e.getType() + "' (cluster types: "
                            + types.keySet() + ")",
                    "type");
        for (String t : e.getAllowedTypes()) {
            if (!types.containsKey(t))
                throw new Rejection(
                        "node " + e.getNode() + ": unknown node type '" + t + "' in allowedTypes (cluster types: "
                                + types.keySet() + ")",
                        "allowedTypes");
        }
        return event(toMillis(e.getTime()), EventKind.NODE, e.getNode() + "/" + e.getKind())
                .setNodeEvent(e)
                .build();
    }

    /** The record's kind, one of {@code type}'s names ({@code allowed} says which, for the message). */
    private static <E extends Enum<E>> E kind(JsonNode root, Class<E> type, String allowed) throws Rejection {
        String k = text(root, "kind");
        try {
            return Enum.valueOf(type, k);
        } catch (IllegalArgumentException ex) {
            throw new Rejection("field 'kind' must be " + allowed + ", got '" + k + "'", "kind");
        }
    }

    private ControllerEvent telemetry(RawRecord raw) throws Rejection {
        Telemetry t;
        if (raw.text != null) {
            JsonNode root = jsonObject(raw.text);
            TelemetryKind kind = kind(root, TelemetryKind.class, "JOB_PROGRESS or NODE_POWER");
            t = Telemetry.newBuilder()
                    .setTime(number(root, "time"))
                    .setKind(kind)
                    .setJob(optionalText(root, "job"))
                    .setNode(optionalText(root, "node"))
                    .setProgress(root.hasNonNull("progress") ? number(root, "progress") : null)
                    .setPowerWatts(root.hasNonNull("powerWatts") ? number(root, "powerWatts") : null)
                    .build();
        } else {
            t = decode(raw, Telemetry.class);
        }
        checkTime(t.getTime(), "time");
        String id;
        if (t.getKind() == TelemetryKind.JOB_PROGRESS) {
            if (t.getJob() == null) throw new Rejection("JOB_PROGRESS: field 'job' is missing", "job");
            if (t.getProgress() == null || !(t.getProgress() >= 0 && t.getProgress() < 1))
                throw new Rejection(
                        "job " + t.getJob() + ": progress must be in [0, 1), got " + t.getProgress(), "progress");
            id = t.getJob();
        } else {
            if (t.getNode() == null) throw new Rejection("NODE_POWER: field 'node' is missing", "node");
            if (t.getPowerWatts() == null || !(t.getPowerWatts() >= 0 && t.getPowerWatts() <= MAX_POWER_WATTS)) {
                throw new Rejection(
                        "node " + t.getNode() + ": powerWatts must be in [0, " + MAX_POWER_WATTS + "], got "
                                + t.getPowerWatts(),
                        "powerWatts");
            }
            id = t.getNode();
        }
        return event(toMillis(t.getTime()), EventKind.TELEMETRY, id)
                .setTelemetry(t)
                .build();
    }

    // ---------------------------------------------------------------- helpers

    private static ControllerEvent.Builder event(long millis, EventKind kind, String id) {
        return ControllerEvent.newBuilder()
                .setPolicy("")
                .setController(-1)
                .setTimeMillis(millis)
                .setKind(kind)
                .setId(id);
    }

    private static void checkTime(double t, String field) throws Rejection {
        if (!(t >= 0 && t <= TraceJson.MAX_SECONDS))
            throw new Rejection(
                    "field '" + field + "' must be a time in [0, " + TraceJson.MAX_SECONDS + "] seconds, got " + t,
                    field);
    }

    /** One record of the topic's schema, decoded within its own size ({@link AvroBinary}); anything else is rejected. */
    @SuppressWarnings("unchecked")
    private <T extends SpecificRecordBase> T decode(RawRecord raw, Class<T> type) throws Rejection {
        AvroBinary<T> coder = (AvroBinary<T>) avro.computeIfAbsent(type, k -> new AvroBinary<>(type));
        try {
            return coder.decode(raw.bytes);
        } catch (IOException e) {
            throw new Rejection(e.getMessage(), FormatException.WHOLE_RECORD);
        }
    }

    private JsonNode jsonObject(String text) throws Rejection {
        JsonNode root;
        try {
            root = json.readTree(text);
        } catch (JsonProcessingException e) {
            String message = e.getOriginalMessage();
            if (message.startsWith("Duplicate field '")) {
                String field = message.substring(
                        "Duplicate field '".length(),
                        Math.max("Duplicate field '".length(), message.lastIndexOf('\'')));
                throw new Rejection("field '" + field + "' is given twice", field);
            }
            throw new Rejection("not valid JSON (" + message + ")", null);
        }
        if (root == null || !root.isObject()) throw new Rejection("a record must be a JSON object", null);
        return root;
    }

    private static double number(JsonNode root, String field) throws Rejection {
        JsonNode v = root.get(field);
        if (v == null || v.isNull()) throw new Rejection("field '" + field + "' is missing", field);
        if (!v.isNumber()) throw new Rejection("field '" + field + "' must be a number, got " + v, field);
        return v.doubleValue();
    }

    private static String text(JsonNode root, String field) throws Rejection {
        JsonNode v = root.get(field);
        if (v == null || v.isNull() || v.asText().isBlank())
            throw new Rejection("field '" + field + "' is missing", field);
        return v.asText();
    }

    private static String optionalText(JsonNode root, String field) {
        JsonNode v = root.get(field);
        return v == null || v.isNull() ? null : v.asText();
    }
}
