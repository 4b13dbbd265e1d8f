package org.gpusched.formats;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.type.LogicalType;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.gpusched.core.model.Cluster;
import org.gpusched.core.model.EnergyModel;
import org.gpusched.core.model.InvalidInstanceException;
import org.gpusched.core.model.Node;
import org.gpusched.core.model.NodeType;
import org.gpusched.core.objective.ObjectiveParameters;

/**
 * The cluster file (YAML). Node types give their cost per hour in one of three ways: {@code costPerHour} (a list,
 * rate with 0..G GPUs busy), {@code pricePerHour} (a VM leased whole) or {@code energy} (ANDREAS power model).
 * Nodes are fixed ({@code type}) or rightsizable (no type, optionally {@code types}: the allowed VM types);
 * {@code count: K} expands one entry into K nodes named id-1..id-K. See docs in README "Cluster file".
 * <pre>
 * nodeTypes:
 *   V100x2: {gpuModel: V100, gpus: 2, energy: {gpuIdleWatts: 30, gpuMaxWatts: 300, hostWatts: 200, pricePerKwh: 0.172, pue: 1.33}}
 *   NC6:    {gpuModel: K80, gpus: 1, pricePerHour: 0.56}
 *   Custom: {gpuModel: P600, gpus: 2, costPerHour: [0, 0.06, 0.11]}
 * nodes:
 *   - {id: n1, type: V100x2}
 *   - {id: vm, count: 10}
 *   - {id: small, types: [NC6]}
 * objective: {rho: 100, horizonSeconds: 3600, mu: 0}
 * </pre>
 */
public final class ClusterYaml {
    /** The longest cluster file read, in characters: a cluster of {@link #MAX_NODES} nodes listed one a line fits. */
    public static final int MAX_FILE_CHARS = 32 << 20;
    /**
     * The longest line of a cluster file, in characters: a {@code costPerHour} list of {@link #MAX_GPUS} + 1 rates on
     * one line fits. The YAML scanner's time grows with the square of a token's length (a 1 MB comment took a second,
     * 10 MB a minute), so a longer line is refused before it is scanned.
     */
    public static final int MAX_LINE_CHARS = 64 << 10;

    private static final ObjectMapper YAML = strictNumbers(new ObjectMapper(YAMLFactory.builder()
                    .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
                    .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES)
                    .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
                    .loaderOptions(YamlLines.codePointLimit(MAX_FILE_CHARS))
                    .build())
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT));

    /** A quoted number ({@code '0.12'}) is a text, not a number: only an unquoted one counts as a number. */
    private static ObjectMapper strictNumbers(ObjectMapper mapper) {
        for (LogicalType type : new LogicalType[] {LogicalType.Integer, LogicalType.Float})
            mapper.coercionConfigFor(type).setCoercion(CoercionInputShape.String, CoercionAction.Fail);
        return mapper;
    }

    /** The most GPUs a node type may have: cost tables are per busy-GPU count, so this bounds their size. */
    public static final int MAX_GPUS = 1024;
    /** The most nodes a cluster may expand to (count included): every node is held by the schedulers. */
    public static final int MAX_NODES = 100_000;

    record EnergyDoc(Double gpuIdleWatts, Double gpuMaxWatts, Double hostWatts, Double pricePerKwh, Double pue) {}

    record NodeTypeDoc(
            String gpuModel, Integer gpus, List<Double> costPerHour, Double pricePerHour, EnergyDoc energy) {}

    record NodeDoc(String id, String type, List<String> types, Integer count) {}

    record ObjectiveDoc(Double rho, Double horizonSeconds, Double mu) {}

    record ClusterDoc(
            Map<String, NodeTypeDoc> nodeTypes, List<NodeDoc> nodes, ObjectiveDoc objective, String currency) {}

    private ClusterYaml() {}

    /**
     * Reads a cluster file. Every error is a {@link FormatException} "FILE:LINE: KEY: what is wrong and what is
     * allowed", with the nearest valid key for a misspelt one; duplicate keys, fractions where a count is due and
     * sizes past {@link #MAX_GPUS} or {@link #MAX_NODES} are errors.
     */
    public static ClusterSpec read(Path file) {
        String where = file.toString();
        String text;
        try {
            text = Files.readString(file);
        } catch (NoSuchFileException e) {
            throw new FormatException(where + ": no such cluster file", null);
        } catch (java.nio.charset.MalformedInputException e) {
            throw new FormatException(where + ": not a text file (not valid UTF-8)", null, e);
        } catch (IOException e) {
            throw new FormatException(where + ": cannot read (" + e.getMessage() + ")", null, e);
        }
        if (text.isBlank())
            throw new FormatException(
                    where + ": the cluster file is empty; it needs nodeTypes and nodes (see the example in docs)",
                    null);
        checkSize(where, text);
        YamlLines.NonPlainNumber odd = YamlLines.firstNonPlainNumber(text);
        if (odd != null)
            throw new FormatException(
                    where + ":" + odd.line() + ": " + odd.path() + ": '" + odd.text()
                            + "' is not a plain decimal number (YAML 1.1 reads it as " + odd.yamlValue()
                            + "); write the number in decimal digits, without leading zeros",
                    odd.path());
        ClusterDoc doc;
        try {
            doc = YAML.readValue(text, ClusterDoc.class);
        } catch (JsonProcessingException e) {
            throw parseError(where, text, e);
        }
        if (doc == null)
            throw new FormatException(where + ": the cluster file is empty; it needs nodeTypes and nodes", null);
        try {
            return toSpec(doc);
        } catch (FormatException e) {
            int line = YamlLines.lineOf(text, e.field());
            throw new FormatException(where + (line > 0 ? ":" + line : "") + ": " + e.getMessage(), e.field(), e);
        } catch (InvalidInstanceException e) {
            throw new FormatException(where + ": " + e.getMessage(), null, e);
        }
    }

    /** Refuses a file or line too long to be a cluster file before the YAML scanner reads it. */
    private static void checkSize(String where, String text) {
        if (text.length() > MAX_FILE_CHARS)
            throw new FormatException(
                    String.format(
                            java.util.Locale.ROOT,
                            "%s: %,d characters, over the limit of %,d for a cluster file (count: K expands one"
                                    + " entry into K nodes)",
                            where,
                            text.length(),
                            MAX_FILE_CHARS),
                    null);
        int line = 1;
        for (int start = 0; start <= text.length(); line++) {
            int end = text.indexOf('\n', start);
            if (end < 0) end = text.length();
            if (end - start > MAX_LINE_CHARS)
                throw new FormatException(
                        String.format(
                                java.util.Locale.ROOT,
                                "%s:%d: the line is %,d characters, over the limit of %,d for a line of a cluster file",
                                where,
                                line,
                                end - start,
                                MAX_LINE_CHARS),
                        null);
            start = end + 1;
        }
    }

    private static FormatException parseError(String where, String text, JsonProcessingException e) {
        var loc = e.getLocation();
        String at = where + (loc == null || loc.getLineNr() < 1 ? "" : ":" + loc.getLineNr()) + ": ";
        String path = e instanceof JsonMappingException d ? pathOf(d.getPath()) : "";
        if (e instanceof UnrecognizedPropertyException u) {
            List<String> allowed = new ArrayList<>();
            u.getKnownPropertyIds().forEach(id -> allowed.add(id.toString()));
            java.util.Collections.sort(allowed);
            String parent = pathOf(u.getPath().subList(0, u.getPath().size() - 1));
            String nearest = Names.nearest(u.getPropertyName(), allowed);
            return new FormatException(
                    at + (parent.isEmpty() ? "" : parent + ": ") + "unknown key '" + u.getPropertyName() + "'"
                            + (nearest == null ? "" : " (did you mean '" + nearest + "'?)") + "; allowed keys: "
                            + String.join(", ", allowed),
                    path,
                    e);
        }
        String original = e.getOriginalMessage();
        if (original.startsWith("Trailing token")) {
            return new FormatException(
                    at + "a second YAML document (after '---'): a cluster file holds one document, and a second would"
                            + " be ignored",
                    null,
                    e);
        }
        if (e instanceof MismatchedInputException m
                && m.getTargetType() != null
                && original.startsWith("Cannot coerce String value")) {
            return new FormatException(
                    at + path + ": must be " + expected(m.getTargetType()) + ", not a quoted text (write it without"
                            + " quotes)",
                    path,
                    e);
        }
        if (e instanceof MismatchedInputException m && m.getTargetType() != null) {
            return new FormatException(
                    at + path + ": must be " + expected(m.getTargetType()) + " ("
                            + firstSentence(m.getOriginalMessage()) + ")",
                    path,
                    e);
        }
        String message = e.getOriginalMessage();
        if (message.startsWith("Duplicate field")) {
            return new FormatException(
                    at + message.replace("Duplicate field", "key")
                            + " is given twice (a second one would replace the first)",
                    path,
                    e);
        }
        return new FormatException(at + (path.isEmpty() ? "" : path + ": ") + firstSentence(message), path, e);
    }

    private static String expected(Class<?> type) {
        if (type == Integer.class || type == int.class) return "a whole number";
        if (type == Double.class || type == double.class) return "a number";
        if (type == String.class) return "a text";
        if (List.class.isAssignableFrom(type)) return "a list";
        if (Map.class.isAssignableFrom(type) || type.isRecord()) return "a map of keys";
        return "a " + type.getSimpleName();
    }

    private static String firstSentence(String message) {
        int cut = message.indexOf('\n');
        return cut < 0 ? message : message.substring(0, cut);
    }

    private static String pathOf(List<JsonMappingException.Reference> refs) {
        StringBuilder path = new StringBuilder();
        for (JsonMappingException.Reference r : refs) {
            if (r.getFieldName() != null)
                path.append(path.length() == 0 ? "" : ".").append(r.getFieldName());
            else if (r.getIndex() >= 0) path.append('[').append(r.getIndex()).append(']');
        }
        return path.toString();
    }

    private static ClusterSpec toSpec(ClusterDoc doc) {
        if (doc.nodeTypes() == null || doc.nodeTypes().isEmpty())
            throw new FormatException("nodeTypes: missing or empty; give at least one node type", "nodeTypes");
        if (doc.nodes() == null || doc.nodes().isEmpty())
            throw new FormatException("nodes: missing or empty; give at least one node", "nodes");
        List<NodeType> types = new ArrayList<>();
        doc.nodeTypes().forEach((name, t) -> types.add(toType(name, t)));
        List<String> typeNames = new ArrayList<>(doc.nodeTypes().keySet());
        long total = 0;
        for (int i = 0; i < doc.nodes().size(); i++) {
            NodeDoc n = doc.nodes().get(i);
            String path = "nodes[" + i + "]";
            if (n == null || n.id() == null || n.id().isBlank())
                throw new FormatException(path + ".id: missing; every node needs an id", path + ".id");
            if (n.type() != null && n.types() != null)
                throw new FormatException(
                        path + " (" + n.id() + "): give either type (fixed) or types (rightsizable), not both",
                        path + ".types");
            if (n.type() != null) checkTypeName(n.type(), typeNames, path + ".type");
            if (n.types() != null)
                for (int k = 0; k < n.types().size(); k++)
                    checkTypeName(n.types().get(k), typeNames, path + ".types[" + k + "]");
            int count = n.count() == null ? 1 : n.count();
            if (count < 1 || count > MAX_NODES)
                throw new FormatException(
                        path + ".count (" + n.id() + "): must be a whole number in [1, " + MAX_NODES + "], got "
                                + count,
                        path + ".count");
            total += count;
            if (total > MAX_NODES)
                throw new FormatException(
                        path + ".count (" + n.id() + "): the cluster would have " + total + " nodes, more than the "
                                + MAX_NODES + " allowed",
                        path + ".count");
        }
        List<Node> nodes = new ArrayList<>((int) total);
        for (NodeDoc n : doc.nodes()) {
            int count = n.count() == null ? 1 : n.count();
            for (int k = 1; k <= count; k++)
                nodes.add(new Node(n.count() == null ? n.id() : n.id() + "-" + k, n.type(), n.types()));
        }
        ObjectiveParameters d = ObjectiveParameters.DEFAULTS;
        ObjectiveDoc o = doc.objective();
        ObjectiveParameters objective;
        try {
            objective = o == null
                    ? d
                    : new ObjectiveParameters(
                            o.rho() == null ? d.rho() : o.rho(),
                            o.horizonSeconds() == null ? d.horizonSeconds() : o.horizonSeconds(),
                            o.mu() == null ? d.mu() : o.mu());
        } catch (IllegalArgumentException e) {
            throw new FormatException("objective: " + e.getMessage(), "objective");
        }
        String currency = doc.currency() == null ? null : doc.currency().strip();
        if (currency != null && (currency.isEmpty() || currency.length() > 16))
            throw new FormatException(
                    "currency: the unit of the prices, 1 to 16 characters (EUR, USD, $), got '" + doc.currency() + "'",
                    "currency");
        return new ClusterSpec(new Cluster(types, nodes), objective, currency);
    }

    private static void checkTypeName(String name, List<String> typeNames, String path) {
        if (name == null || typeNames.contains(name)) return;
        String nearest = Names.nearest(name, typeNames);
        throw new FormatException(
                path + ": unknown node type '" + name + "'"
                        + (nearest == null ? "" : " (did you mean '" + nearest + "'?)") + "; nodeTypes are "
                        + String.join(", ", typeNames),
                path);
    }

    private static NodeType toType(String name, NodeTypeDoc t) {
        String path = "nodeTypes." + name;
        if (t == null || t.gpus() == null)
            throw new FormatException(
                    path + ".gpus: missing; the number of GPUs of the type, in [1, " + MAX_GPUS + "]",
                    t == null ? path : path + ".gpus");
        if (t.gpuModel() == null || t.gpuModel().isBlank())
            throw new FormatException(
                    path + ".gpuModel: missing; the type's GPU model (V100, T4, ...), which tells which node types are"
                            + " the same GPU in another size",
                    path + ".gpuModel");
        if (t.gpus() < 1 || t.gpus() > MAX_GPUS)
            throw new FormatException(
                    path + ".gpus: must be a whole number in [1, " + MAX_GPUS + "], got " + t.gpus(), path + ".gpus");
        int given =
                (t.costPerHour() != null ? 1 : 0) + (t.pricePerHour() != null ? 1 : 0) + (t.energy() != null ? 1 : 0);
        if (given != 1)
            throw new FormatException(
                    path + ": give exactly one of costPerHour, pricePerHour, energy (" + given + " given)", path);
        try {
            if (t.pricePerHour() != null) return NodeType.priced(name, t.gpuModel(), t.gpus(), t.pricePerHour());
            if (t.energy() != null) {
                EnergyDoc e = t.energy();
                String ep = path + ".energy.";
                return NodeType.energy(
                        name,
                        t.gpuModel(),
                        t.gpus(),
                        new EnergyModel(
                                required(e.gpuIdleWatts(), ep + "gpuIdleWatts"),
                                required(e.gpuMaxWatts(), ep + "gpuMaxWatts"),
                                required(e.hostWatts(), ep + "hostWatts"),
                                required(e.pricePerKwh(), ep + "pricePerKwh"),
                                required(e.pue(), ep + "pue")));
            }
        } catch (InvalidInstanceException e) {
            String key = t.pricePerHour() != null ? path + ".pricePerHour" : path + ".energy";
            throw new FormatException(key + ": " + e.getMessage(), key);
        }
        String rp = path + ".costPerHour";
        if (t.costPerHour().size() != t.gpus() + 1) {
            throw new FormatException(
                    rp + ": needs " + (t.gpus() + 1) + " rates (cost per hour with 0.." + t.gpus() + " GPUs busy), got "
                            + t.costPerHour().size(),
                    rp);
        }
        double[] rates = new double[t.costPerHour().size()];
        for (int g = 0; g < rates.length; g++) {
            Double r = t.costPerHour().get(g);
            if (r == null || !(r >= 0) || r.isInfinite())
                throw new FormatException(
                        rp + "[" + g + "]: must be a finite number >= 0, got " + r, rp + "[" + g + "]");
            rates[g] = r;
        }
        return new NodeType(name, t.gpuModel(), t.gpus(), rates);
    }

    private static double required(Double value, String path) {
        if (value == null)
            throw new FormatException(
                    path + ": missing (energy needs gpuIdleWatts, gpuMaxWatts, hostWatts, pricePerKwh, pue)", path);
        return value;
    }

    /** Writes the cluster with explicit costPerHour lists, so the file alone says what every node costs. */
    public static void write(Path file, ClusterSpec spec) {
        try {
            Files.writeString(file, toYaml(spec));
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(file + ": cannot write cluster", e);
        }
    }

    public static String toYaml(ClusterSpec spec) {
        ObjectNode root = YAML.createObjectNode();
        ObjectNode types = root.putObject("nodeTypes");
        for (NodeType t : spec.cluster().types()) {
            ObjectNode o = types.putObject(t.name());
            o.put("gpuModel", t.gpuModel());
            o.put("gpus", t.gpus());
            ArrayNode rates = o.putArray("costPerHour");
            for (double r : t.costPerHour()) rates.add(r);
        }
        ArrayNode nodes = root.putArray("nodes");
        for (Node n : spec.cluster().nodes()) {
            ObjectNode o = nodes.addObject();
            o.put("id", n.id());
            if (n.fixedType() != null) o.put("type", n.fixedType());
            if (!n.allowedTypes().isEmpty()) {
                ArrayNode a = o.putArray("types");
                n.allowedTypes().forEach(a::add);
            }
        }
        ObjectNode obj = root.putObject("objective");
        obj.put("rho", spec.objective().rho());
        obj.put("horizonSeconds", spec.objective().horizonSeconds());
        obj.put("mu", spec.objective().mu());
        if (spec.currency() != null) root.put("currency", spec.currency());
        try {
            return YAML.writeValueAsString(root);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The run.json view of the cluster: nodes [{id, type or null, gpus}] and nodeTypes {name: {gpus, costPerHour}}. */
    public static Map<String, Object> manifestView(Cluster cluster) {
        List<Map<String, Object>> nodes = new ArrayList<>();
        for (Node n : cluster.nodes()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("id", n.id());
            m.put("type", n.fixedType());
            m.put(
                    "gpus",
                    n.fixedType() == null
                            ? null
                            : cluster.type(cluster.typeIndex(n.fixedType())).gpus());
            if (n.isRightsizable()) {
                List<String> allowed = new ArrayList<>();
                for (int t : cluster.candidateTypes(cluster.nodeIndex(n.id())))
                    allowed.add(cluster.type(t).name());
                m.put("types", allowed);
            }
            nodes.add(m);
        }
        Map<String, Object> types = new LinkedHashMap<>();
        for (NodeType t : cluster.types()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("gpuModel", t.gpuModel());
            m.put("gpus", t.gpus());
            m.put("costPerHour", t.costPerHour());
            types.put(t.name(), m);
        }
        Map<String, Object> view = new LinkedHashMap<>();
        view.put("nodes", nodes);
        view.put("nodeTypes", types);
        return view;
    }
}
