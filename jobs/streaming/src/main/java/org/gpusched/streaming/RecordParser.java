package org.gpusched.streaming;

import static org.gpusched.streaming.RecordFields.checkTime;
import static org.gpusched.streaming.RecordFields.number;
import static org.gpusched.streaming.RecordFields.optionalText;
import static org.gpusched.streaming.RecordFields.text;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
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
import org.gpusched.formats.TraceJob;
import org.gpusched.formats.TraceJson;
import org.gpusched.streaming.RecordFields.Rejection;
import org.gpusched.streaming.avro.ExecutionTime;
import org.gpusched.streaming.avro.JobCompleted;
import org.gpusched.streaming.avro.JobSubmitted;
import org.gpusched.streaming.avro.NodeEvent;
import org.gpusched.streaming.avro.NodeEventKind;
import org.gpusched.streaming.avro.RejectedRecord;
import org.gpusched.streaming.avro.Telemetry;
import org.gpusched.streaming.avro.TelemetryKind;
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
    private transient RecordFields fields;
    private transient Map<String, NodeType> types;

    public RecordParser(Topics topic, SchedulerConfig config) {
        if (!topic.isInput()) throw new IllegalArgumentException(topic + " is not an input topic");
        this.topic = topic;
        this.config = config;
    }

    @Override
    public void open(OpenContext openContext) {
        fields = new RecordFields();
        types = config.cluster().typesByName();
    }

    /**
     * Parses one record, or rejects it: a reason and the field at fault ({@value FormatException#WHOLE_RECORD} when the
     * whole record is unusable). Any exception or Error while handling one record (an OutOfMemoryError included) rejects
     * that record and the job goes on with the next.
     */
    @Override
    public void processElement(RawRecord raw, Context ctx, Collector<ControllerEvent> out) {
        if (fields == null) open(null);
        ControllerEvent event = RecordFields.readOrReject(raw, this::parse, r -> ctx.output(REJECTED, r));
        if (event != null) out.collect(event);
    }

    /**
     * The event time (ms) of one text record of this topic (a file line), or {@link Long#MIN_VALUE} when the job
     * rejects or skips it: a file's time-order pre-check counts only what becomes an event, as the watermarks do.
     */
    public long acceptedTimeMillis(String text) {
        if (fields == null) open(null);
        ControllerEvent event =
                RecordFields.readOrReject(RawRecord.text(topic.topic(), "", text), this::parse, r -> {});
        return event == null ? Long.MIN_VALUE : event.getTimeMillis();
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
            job = fields.decode(raw, JobSubmitted.class);
            validate(job);
            checkExtras(job);
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

    /**
     * The optional fields of an Avro submission ({@code extrasJson}): one JSON object, no key twice (at any depth),
     * none of the record's own fields. A trace line's extras always are (the job's parser and {@code produce} write
     * them from the parsed line), but another producer may write anything there, and jobs.jsonl echoes them beside the
     * record's fields: text that is not JSON would fail the run directory's writer, and an {@code id}, {@code submit}
     * or {@code times} there would put a second, forged value of that field in the job's line.
     */
    private void checkExtras(JobSubmitted job) throws Rejection {
        if (job.getExtrasJson() == null) return;
        String who = "job " + job.getId() + ": extrasJson: ";
        com.fasterxml.jackson.databind.JsonNode extras;
        try {
            extras = fields.object(job.getExtrasJson());
        } catch (Rejection e) {
            throw new Rejection(who + e.getMessage(), "extrasJson");
        }
        for (var names = extras.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (JobCodec.RECORD_FIELDS.contains(name))
                throw new Rejection(
                        who + "key '" + name + "' is a field of the record itself (extras hold only the optional"
                                + " fields of a trace line, never " + JobCodec.RECORD_FIELDS + ")",
                        "extrasJson");
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
        JobCompleted c = fields.completion(raw);
        return event(toMillis(c.getTime()), EventKind.COMPLETION, c.getJob())
                .setCompleted(c)
                .build();
    }

    private ControllerEvent nodeEvent(RawRecord raw) throws Rejection {
        NodeEvent e;
        if (raw.text != null) {
            JsonNode root = fields.object(raw.text);
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
            e = fields.decode(raw, NodeEvent.class);
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
            JsonNode root = fields.object(raw.text);
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
            t = fields.decode(raw, Telemetry.class);
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
}
