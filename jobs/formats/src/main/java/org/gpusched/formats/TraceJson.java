package org.gpusched.formats;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonStreamContext;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.StreamWriteFeature;
import com.fasterxml.jackson.core.exc.StreamReadException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
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
    private static final ObjectMapper MAPPER = JsonMapper.builder()
            .enable(StreamReadFeature.USE_FAST_DOUBLE_PARSER)
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .enable(StreamWriteFeature.USE_FAST_DOUBLE_WRITER)
            .build();

    /**
     * The latest time a trace may give (submit, due) and the longest execution time, in seconds: about 317 years.
     * Times become milliseconds of event time (a long) and are added up along a schedule; far below Long.MAX_VALUE
     * ms (2.9e8 years) so no sum of them overflows, far above any real trace (Unix-epoch seconds are 1.8e9).
     */
    public static final double MAX_SECONDS = 1e10;
    /**
     * The largest tardiness weight (cost per hour late): a job late by {@link #MAX_SECONDS} costs at most 2.8e15, so
     * a sum over millions of jobs stays finite and exact to well under a cent per job.
     */
    public static final double MAX_WEIGHT = 1e9;

    private TraceJson() {}

    /** Parses one trace line; a bad line throws {@link FormatException} naming the field and, when known, the job. */
    public static TraceJob parse(String line) {
        TraceJob job = parseWellFormed(line);
        if (job == null) job = parseTree(line);
        // Only a \\u escape can give a string half of a surrogate pair: the readers decode UTF-8 strictly.
        if (line.indexOf("\\u") >= 0) checkUnicode(job);
        return job;
    }

    /**
     * The index of the first char of {@code s} that is half of a surrogate pair without its other half, or -1. Such a
     * string is no Unicode text: written as UTF-8 (Avro, the run directory) it becomes '?', so two distinct ids
     * ({@code "\\ud800X"}, {@code "\\ud801X"}) would become one.
     */
    public static int loneSurrogate(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) i++;
            else if (Character.isSurrogate(c)) return i;
        }
        return -1;
    }

    /** A job's strings (id, node types, the optional fields' keys and texts) are Unicode text, each naming its field. */
    private static void checkUnicode(TraceJob traceJob) {
        Job job = traceJob.job();
        checkUnicode(job.id(), "id", "the id");
        for (String type : job.times().keySet()) checkUnicode(type, "times", "a node type");
        traceJob.extras().forEach((key, value) -> {
            checkUnicode(key, key, "a field name");
            checkUnicode(value, key);
        });
    }

    private static void checkUnicode(Object value, String field) {
        if (value instanceof String s) checkUnicode(s, field, "field '" + field + "'");
        else if (value instanceof Map<?, ?> m)
            m.forEach((k, v) -> {
                checkUnicode(String.valueOf(k), field, "a key in field '" + field + "'");
                checkUnicode(v, field);
            });
        else if (value instanceof Iterable<?> items) items.forEach(v -> checkUnicode(v, field));
    }

    /** Throws a {@link FormatException} naming {@code field} when {@code s} ({@code what}, for the message) is no Unicode text. */
    public static void checkUnicode(String s, String field, String what) {
        int at = loneSurrogate(s);
        if (at >= 0)
            throw new FormatException(
                    String.format(
                            "%s is not Unicode text: \\u%04x at character %d is half of a surrogate pair",
                            what, (int) s.charAt(at), at + 1),
                    field);
    }

    /**
     * The common line in one streaming pass, without a tree: every required field present once and well typed (id a
     * string), no key repeated, and a valid job. Null for any other line, which {@link #parseTree} then reads with its
     * exact rules and messages; so a line parses to the same job either way.
     */
    static TraceJob parseWellFormed(String line) {
        try (JsonParser p = MAPPER.createParser(line)) {
            if (p.nextToken() != JsonToken.START_OBJECT) return null;
            String id = null;
            Double submit = null, due = null, weight = null;
            Map<String, Map<Integer, Double>> times = null;
            Map<String, Object> extras = new LinkedHashMap<>();
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                JsonToken value = p.nextToken();
                switch (name) {
                    case "id" -> {
                        if (id != null
                                || value != JsonToken.VALUE_STRING
                                || p.getText().isBlank()) return null;
                        id = p.getText();
                    }
                    case "submit" -> {
                        if ((submit = firstNumber(submit, value, p)) == null) return null;
                    }
                    case "due" -> {
                        if ((due = firstNumber(due, value, p)) == null) return null;
                    }
                    case "weight" -> {
                        if ((weight = firstNumber(weight, value, p)) == null) return null;
                    }
                    case "times" -> {
                        if (times != null || value != JsonToken.START_OBJECT) return null;
                        times = wellFormedTimes(p);
                        if (times == null) return null;
                    }
                    default -> {
                        if (extras.containsKey(name)) return null;
                        extras.put(name, p.readValueAs(Object.class));
                    }
                }
            }
            if (id == null || submit == null || due == null || weight == null || times == null) return null;
            if (p.nextToken() != null) return null;
            checkJob(id, submit, due, weight, times);
            return new TraceJob(new Job(id, submit, due, weight, times), extras);
        } catch (IOException | InvalidInstanceException | FormatException e) {
            return null;
        }
    }

    /** A number field's value, or null when the field came before ({@code seen} not null) or its value is no number. */
    private static Double firstNumber(Double seen, JsonToken value, JsonParser p) throws IOException {
        return seen == null && value.isNumeric() ? p.getDoubleValue() : null;
    }

    /** {@code {nodeType: {gpus: seconds}}} from its start, or null unless every key is new and every value well typed. */
    private static Map<String, Map<Integer, Double>> wellFormedTimes(JsonParser p) throws IOException {
        Map<String, Map<Integer, Double>> times = new LinkedHashMap<>();
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String type = p.currentName();
            if (p.nextToken() != JsonToken.START_OBJECT || times.containsKey(type)) return null;
            Map<Integer, Double> perGpus = new TreeMap<>();
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                int gpus;
                try {
                    gpus = Integer.parseInt(p.currentName());
                } catch (NumberFormatException e) {
                    return null;
                }
                if (!p.nextToken().isNumeric() || perGpus.put(gpus, p.getDoubleValue()) != null) return null;
            }
            times.put(type, perGpus);
        }
        return times;
    }

    /** Parses one trace line through a tree: every line the streaming pass leaves, and the messages of bad ones. */
    static TraceJob parseTree(String line) {
        JsonNode root = oneObject(line);
        String id = text(root, "id", null);
        String who = "job " + id + ": ";
        double submit = number(root, "submit", who);
        double due = number(root, "due", who);
        double weight = number(root, "weight", who);
        JsonNode times = root.get("times");
        if (times == null || !times.isObject())
            throw new FormatException(
                    who + "field 'times' is missing or not an object {nodeType: {gpus: seconds}}", "times");
        Map<String, Map<Integer, Double>> parsed = new LinkedHashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = times.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> byType = it.next();
            String path = "times." + byType.getKey();
            if (!byType.getValue().isObject())
                throw new FormatException(who + "field '" + path + "' must be an object {gpus: seconds}", path);
            Map<Integer, Double> perGpus = new TreeMap<>();
            Map<Integer, String> keys = new TreeMap<>();
            for (Iterator<Map.Entry<String, JsonNode>> g = byType.getValue().fields(); g.hasNext(); ) {
                Map.Entry<String, JsonNode> e = g.next();
                String gpath = path + "." + e.getKey();
                int gpus;
                try {
                    gpus = Integer.parseInt(e.getKey());
                } catch (NumberFormatException ex) {
                    throw new FormatException(
                            who + "field '" + gpath + "': GPU count '" + e.getKey() + "' is not an integer", gpath);
                }
                String before = keys.put(gpus, e.getKey());
                if (before != null) {
                    throw new FormatException(
                            who + "field '" + path + "': GPU count " + gpus + " is given twice ('" + before + "' and '"
                                    + e.getKey() + "')",
                            gpath);
                }
                if (!e.getValue().isNumber())
                    throw new FormatException(
                            who + "field '" + gpath + "' must be a number of seconds, got " + e.getValue(), gpath);
                perGpus.put(gpus, e.getValue().doubleValue());
            }
            parsed.put(byType.getKey(), perGpus);
        }
        checkJob(id, submit, due, weight, parsed);
        Job job;
        try {
            job = new Job(id, submit, due, weight, parsed);
        } catch (InvalidInstanceException e) {
            throw new FormatException(e.getMessage(), "times", e);
        }
        Map<String, Object> extras = new LinkedHashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = root.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            switch (e.getKey()) {
                case "id", "submit", "due", "weight", "times" -> {}
                default -> extras.put(e.getKey(), MAPPER.convertValue(e.getValue(), Object.class));
            }
        }
        return new TraceJob(job, extras);
    }

    /**
     * The line's one JSON object: a line that is not JSON, holds something else, repeats a key (at any depth) or has
     * anything after its object (a second object, words) is rejected with the reason.
     */
    private static JsonNode oneObject(String line) {
        JsonNode root;
        try (JsonParser p = MAPPER.createParser(line)) {
            root = MAPPER.readTree(p);
            if (root == null || !root.isObject()) throw new FormatException("a trace line must be a JSON object", null);
            JsonToken after;
            try {
                after = p.nextToken();
            } catch (JsonProcessingException e) {
                throw new FormatException(
                        "text after the JSON object (" + e.getOriginalMessage() + "): a line holds one job", null, e);
            }
            if (after != null)
                throw new FormatException("a second JSON value after the object: a line holds one job", null);
        } catch (StreamReadException e) {
            String message = e.getOriginalMessage();
            if (message.startsWith("Duplicate field")) {
                String field = duplicatePath(e);
                throw new FormatException("field '" + field + "' is given twice", field, e);
            }
            throw new FormatException("not valid JSON (" + message + ")", null, e);
        } catch (IOException e) {
            throw new FormatException("not valid JSON (" + e.getMessage() + ")", null, e);
        }
        return root;
    }

    /** The dotted path of the key a strict parser found twice, e.g. {@code times.V100}. */
    private static String duplicatePath(StreamReadException e) {
        java.util.Deque<String> parts = new java.util.ArrayDeque<>();
        JsonParser p = e.getProcessor();
        if (p != null) {
            for (JsonStreamContext c = p.getParsingContext(); c != null && !c.inRoot(); c = c.getParent()) {
                if (c.inObject() && c.getCurrentName() != null) parts.addFirst(c.getCurrentName());
                else if (c.inArray()) parts.addFirst(Integer.toString(c.getCurrentIndex()));
            }
        }
        return parts.isEmpty() ? FormatException.WHOLE_RECORD : String.join(".", parts);
    }

    /**
     * The checks of one job's fields, each naming its field: times in [0, {@link #MAX_SECONDS}], due not before
     * submit, weight in [0, {@link #MAX_WEIGHT}], execution times positive and at most {@link #MAX_SECONDS}, GPU
     * counts >= 1. The trace and the submissions topic (Avro) share them.
     */
    public static void checkJob(
            String id, double submit, double due, double weight, Map<String, Map<Integer, Double>> times) {
        String who = "job " + id + ": ";
        if (id == null || id.isBlank()) throw new FormatException("field 'id' is missing", "id");
        checkTime(who, "submit", submit);
        if (!(due <= MAX_SECONDS)) checkTime(who, "due", due);
        if (due < submit)
            throw new FormatException(who + "due date " + due + " is before its submission " + submit, "due");
        if (!(weight >= 0 && weight <= MAX_WEIGHT)) {
            throw new FormatException(
                    who + "field 'weight' must be a number in [0, " + MAX_WEIGHT + "] (cost per hour late), got "
                            + weight,
                    "weight");
        }
        if (times == null || times.isEmpty())
            throw new FormatException(who + "field 'times' is empty: no configuration to run on", "times");
        boolean any = false;
        for (Map.Entry<String, Map<Integer, Double>> byType : times.entrySet()) {
            String path = "times." + byType.getKey();
            if (byType.getValue() == null) throw new FormatException(who + "field '" + path + "' is missing", path);
            for (Map.Entry<Integer, Double> e : byType.getValue().entrySet()) {
                String gpath = path + "." + e.getKey();
                if (e.getKey() == null || e.getKey() < 1)
                    throw new FormatException(who + "field '" + gpath + "': GPU count must be >= 1", gpath);
                Double t = e.getValue();
                if (t == null || !(t > 0 && t <= MAX_SECONDS)) {
                    throw new FormatException(
                            who + "field '" + gpath + "' must be a number of seconds in (0, " + MAX_SECONDS + "], got "
                                    + t,
                            gpath);
                }
                any = true;
            }
        }
        if (!any) throw new FormatException(who + "field 'times' has no configuration to run on", "times");
    }

    private static void checkTime(String who, String field, double seconds) {
        if (!(seconds >= 0 && seconds <= MAX_SECONDS)) {
            throw new FormatException(
                    who + "field '" + field + "' must be a time in [0, " + MAX_SECONDS + "] seconds, got " + seconds,
                    field);
        }
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

    private static String text(JsonNode root, String field, String who) {
        JsonNode v = root.get(field);
        if (v == null || v.isNull())
            throw new FormatException((who == null ? "" : who) + "field '" + field + "' is missing", field);
        if (!v.isTextual() && !v.isNumber())
            throw new FormatException("field '" + field + "' must be a string, got " + v, field);
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
