package org.gpusched.formats;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.StreamWriteFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import org.gpusched.core.model.InvalidInstanceException;
import org.gpusched.core.model.Job;

/**
 * The trace format, JSON Lines, one job a line:
 * {@code {"id", "submit" (s), "due" (s), "weight" (cost per hour late), "times": {nodeType: {gpus: seconds}}}}
 * plus optional fields. Thread-safe.
 */
public final class TraceJson {
    /** FastDoubleParser and Schubfach: the same doubles as the JDK's parse and print (correctly rounded), at a fraction of the cost. */
    private static final ObjectMapper MAPPER = JsonMapper.builder().enable(StreamReadFeature.USE_FAST_DOUBLE_PARSER)
            .enable(StreamWriteFeature.USE_FAST_DOUBLE_WRITER).build();

    private TraceJson() {}

    /** Parses one trace line; a bad line throws {@link FormatException} naming the field and, when known, the job. */
    public static TraceJob parse(String line) {
        JsonNode root;
        try {
            root = MAPPER.readTree(line);
        } catch (JsonProcessingException e) {
            throw new FormatException("not valid JSON (" + e.getOriginalMessage() + ")", null, e);
        }
        if (root == null || !root.isObject()) throw new FormatException("a trace line must be a JSON object", null);
        String id = text(root, "id", null);
        String who = "job " + id + ": ";
        double submit = number(root, "submit", who);
        double due = number(root, "due", who);
        double weight = number(root, "weight", who);
        JsonNode times = root.get("times");
        if (times == null || !times.isObject()) throw new FormatException(who + "field 'times' is missing or not an object {nodeType: {gpus: seconds}}", "times");
        Map<String, Map<Integer, Double>> parsed = new LinkedHashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = times.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> byType = it.next();
            String path = "times." + byType.getKey();
            if (!byType.getValue().isObject()) throw new FormatException(who + "field '" + path + "' must be an object {gpus: seconds}", path);
            Map<Integer, Double> perGpus = new TreeMap<>();
            for (Iterator<Map.Entry<String, JsonNode>> g = byType.getValue().fields(); g.hasNext(); ) {
                Map.Entry<String, JsonNode> e = g.next();
                String gpath = path + "." + e.getKey();
                int gpus;
                try {
                    gpus = Integer.parseInt(e.getKey());
                } catch (NumberFormatException ex) {
                    throw new FormatException(who + "field '" + gpath + "': GPU count '" + e.getKey() + "' is not an integer", gpath);
                }
                if (!e.getValue().isNumber()) throw new FormatException(who + "field '" + gpath + "' must be a number of seconds, got " + e.getValue(), gpath);
                perGpus.put(gpus, e.getValue().doubleValue());
            }
            parsed.put(byType.getKey(), perGpus);
        }
        Job job;
        try {
            job = new Job(id, submit, due, weight, parsed);
        } catch (InvalidInstanceException e) {
            throw new FormatException(e.getMessage(), fieldOf(e.getMessage()), e);
        }
        Map<String, Object> extras = new LinkedHashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = root.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            switch (e.getKey()) {
                case "id", "submit", "due", "weight", "times" -> { }
                default -> extras.put(e.getKey(), MAPPER.convertValue(e.getValue(), Object.class));
            }
        }
        return new TraceJob(job, extras);
    }

    /** One trace line for the job (no trailing newline), extras after the required fields. */
    public static String write(TraceJob traceJob) {
        Job job = traceJob.job();
        ObjectNode root = MAPPER.createObjectNode();
        root.put("id", job.id());
        root.put("submit", job.submitSeconds());
        root.put("due", job.dueSeconds());
        root.put("weight", job.weightPerHour());
        ObjectNode times = root.putObject("times");
        job.times().forEach((type, perGpus) -> {
            ObjectNode t = times.putObject(type);
            perGpus.forEach((g, s) -> t.put(Integer.toString(g), s));
        });
        traceJob.extras().forEach((k, v) -> root.set(k, MAPPER.valueToTree(v)));
        try {
            return MAPPER.writeValueAsString(root);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write job " + job.id(), e);
        }
    }

    private static String fieldOf(String message) {
        for (String f : new String[] {"submit", "due", "weight", "times", "id"}) {
            if (message.contains(f)) return f;
        }
        return null;
    }

    private static String text(JsonNode root, String field, String who) {
        JsonNode v = root.get(field);
        if (v == null || v.isNull()) throw new FormatException((who == null ? "" : who) + "field '" + field + "' is missing", field);
        if (!v.isTextual() && !v.isNumber()) throw new FormatException("field '" + field + "' must be a string, got " + v, field);
        String s = v.asText();
        if (s.isBlank()) throw new FormatException("field '" + field + "' is empty", field);
        return s;
    }

    private static double number(JsonNode root, String field, String who) {
        JsonNode v = root.get(field);
        if (v == null || v.isNull()) throw new FormatException(who + "field '" + field + "' is missing", field);
        if (!v.isNumber()) throw new FormatException(who + "field '" + field + "' must be a number, got " + v, field);
        return v.doubleValue();
    }
}
