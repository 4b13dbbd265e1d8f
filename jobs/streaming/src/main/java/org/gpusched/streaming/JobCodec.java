package org.gpusched.streaming;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.gpusched.core.model.InvalidInstanceException;
import org.gpusched.core.model.Job;
import org.gpusched.formats.TraceJob;
import org.gpusched.streaming.avro.ExecutionTime;
import org.gpusched.streaming.avro.JobSubmitted;
import org.gpusched.streaming.file.AvroJson;

/**
 * The one translation between a job's three forms: a parsed trace line ({@link TraceJob}), its Avro submission
 * ({@link JobSubmitted}, what the submissions topic and the controllers' state hold) and the core model's {@link Job}
 * (what a policy sees), plus the submission written back as its trace line (jobs.jsonl, messages). The job's parser,
 * {@code gpusched produce} and the controllers all go through it, so a trace line becomes the same record on every
 * path.
 */
public final class JobCodec {
    private static final ObjectMapper STRICT_JSON = com.fasterxml.jackson.databind.json.JsonMapper.builder()
            .enable(com.fasterxml.jackson.core.StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .build();
    private static final ObjectMapper EXTRAS_JSON =
            new ObjectMapper().configure(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS, true);

    /**
     * The fields a submission carries as its own: never among its extras, where a second value would shadow the
     * record's in its trace line.
     */
    public static final java.util.Set<String> RECORD_FIELDS =
            java.util.Set.of("id", "submit", "due", "weight", "times", "actualFactor");

    private JobCodec() {}

    /**
     * The Avro submission of a parsed trace line: times in the job's order (type by type, GPU counts ascending),
     * actualFactor out of the extras, the other extras as one JSON object with sorted keys.
     *
     * @throws IllegalArgumentException when actualFactor is not a number
     */
    public static JobSubmitted toSubmitted(TraceJob parsed) {
        Job j = parsed.job();
        List<ExecutionTime> times = new ArrayList<>();
        j.times().forEach((type, perGpus) -> perGpus.forEach((g, s) -> times.add(new ExecutionTime(type, g, s))));
        Map<String, Object> extras = new TreeMap<>(parsed.extras());
        Double factor = null;
        Object f = extras.remove("actualFactor");
        if (f != null) {
            if (!(f instanceof Number n))
                throw new IllegalArgumentException(
                        "job " + j.id() + ": field 'actualFactor' must be a number, got " + f);
            factor = n.doubleValue();
        }
        String extrasJson = null;
        if (!extras.isEmpty()) {
            try {
                extrasJson = EXTRAS_JSON.writeValueAsString(extras);
            } catch (JsonProcessingException e) {
                throw new IllegalArgumentException(
                        "job " + j.id() + ": optional fields cannot be re-encoded (" + e.getOriginalMessage() + ")");
            }
        }
        return JobSubmitted.newBuilder()
                .setId(j.id())
                .setSubmit(j.submitSeconds())
                .setDue(j.dueSeconds())
                .setWeight(j.weightPerHour())
                .setTimes(times)
                .setActualFactor(factor)
                .setExtrasJson(extrasJson)
                .build();
    }

    /** The core model's job of an Avro submission; throws {@link InvalidInstanceException} when it is impossible. */
    public static Job toJob(JobSubmitted job) {
        Map<String, Map<Integer, Double>> times = new LinkedHashMap<>();
        if (job.getTimes() != null) {
            for (ExecutionTime t : job.getTimes()) {
                Map<Integer, Double> perGpus = times.computeIfAbsent(t.getType(), k -> new TreeMap<>());
                if (perGpus.put(t.getGpus(), t.getSeconds()) != null) {
                    throw new InvalidInstanceException(
                            "job " + job.getId() + ": times." + t.getType() + "." + t.getGpus() + " given twice");
                }
            }
        }
        return new Job(job.getId(), job.getSubmit(), job.getDue(), job.getWeight(), times);
    }

    /**
     * The submission's extras as one JSON object, or null when it has none or they are not one object. The job's
     * parser rejects a submission whose extras are not a JSON object of optional fields ({@code RecordParser}); a
     * writer still never trusts them, so that no record can fail a sink or repeat a key in its line.
     */
    private static com.fasterxml.jackson.databind.JsonNode extras(JobSubmitted job) {
        if (job.getExtrasJson() == null) return null;
        try (JsonParser p = STRICT_JSON.createParser(job.getExtrasJson())) {
            com.fasterxml.jackson.databind.JsonNode extras = STRICT_JSON.readTree(p);
            return extras != null && extras.isObject() && p.nextToken() == null ? extras : null;
        } catch (IOException e) {
            return null;
        }
    }

    /** A submission as its trace line (no newline), as jobs.jsonl holds it. */
    public static String toTraceLine(JobSubmitted job) {
        StringWriter text = new StringWriter();
        try (JsonGenerator g = AvroJson.MAPPER.getFactory().createGenerator(text)) {
            writeTraceLine(g, job);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return text.toString();
    }

    /**
     * Writes a submission as its trace line: the trace format (times as {type: {gpus: seconds}}) plus the extras, and
     * actualFactor last (1 when the trace gave none). Extras that are not one JSON object, and any key of the record's own
     * fields among them, are left out: the line never holds a key twice.
     */
    public static void writeTraceLine(JsonGenerator g, JobSubmitted job) throws IOException {
        // Streamed, not built as a tree (only the extras are read as one): this runs once per accepted job.
        Map<String, List<ExecutionTime>> byType = new LinkedHashMap<>();
        for (ExecutionTime t : job.getTimes())
            byType.computeIfAbsent(t.getType(), k -> new ArrayList<>()).add(t);
        double actualFactor = job.getActualFactor() == null ? 1.0 : job.getActualFactor();
        g.writeStartObject();
        g.writeStringField("id", job.getId());
        g.writeNumberField("submit", job.getSubmit());
        g.writeNumberField("due", job.getDue());
        g.writeNumberField("weight", job.getWeight());
        g.writeObjectFieldStart("times");
        for (Map.Entry<String, List<ExecutionTime>> e : byType.entrySet()) {
            g.writeObjectFieldStart(e.getKey());
            for (ExecutionTime t : e.getValue()) g.writeNumberField(String.valueOf(t.getGpus()), t.getSeconds());
            g.writeEndObject();
        }
        g.writeEndObject();
        com.fasterxml.jackson.databind.JsonNode extras = extras(job);
        if (extras != null) {
            for (var it = extras.fields(); it.hasNext(); ) {
                Map.Entry<String, com.fasterxml.jackson.databind.JsonNode> e = it.next();
                if (RECORD_FIELDS.contains(e.getKey())) continue; // never a second value of the record's own
                g.writeFieldName(e.getKey());
                g.writeTree(e.getValue());
            }
        }
        g.writeNumberField("actualFactor", actualFactor);
        g.writeEndObject();
    }
}
