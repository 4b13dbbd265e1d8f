package org.gpusched.formats;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
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
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory().disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
            .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES))
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES);

    record EnergyDoc(double gpuIdleWatts, double gpuMaxWatts, double hostWatts, double pricePerKwh, double pue) {}
    record NodeTypeDoc(String gpuModel, Integer gpus, List<Double> costPerHour, Double pricePerHour, EnergyDoc energy) {}
    record NodeDoc(String id, String type, List<String> types, Integer count) {}
    record ObjectiveDoc(Double rho, Double horizonSeconds, Double mu) {}
    record ClusterDoc(Map<String, NodeTypeDoc> nodeTypes, List<NodeDoc> nodes, ObjectiveDoc objective) {}

    private ClusterYaml() {}

    public static ClusterSpec read(Path file) {
        String where = file.toString();
        ClusterDoc doc;
        try {
            doc = YAML.readValue(Files.readString(file), ClusterDoc.class);
        } catch (NoSuchFileException e) {
            throw new FormatException(where + ": no such cluster file", null);
        } catch (JsonProcessingException e) {
            var loc = e.getLocation();
            String line = loc == null ? "" : ":" + loc.getLineNr();
            throw new FormatException(where + line + ": " + e.getOriginalMessage(), null, e);
        } catch (IOException e) {
            throw new FormatException(where + ": cannot read (" + e.getMessage() + ")", null, e);
        }
        if (doc == null) throw new FormatException(where + ": empty cluster file", null);
        try {
            return toSpec(doc);
        } catch (InvalidInstanceException | FormatException e) {
            throw new FormatException(where + ": " + e.getMessage(), null, e);
        }
    }

    private static ClusterSpec toSpec(ClusterDoc doc) {
        if (doc.nodeTypes() == null || doc.nodeTypes().isEmpty()) throw new FormatException("nodeTypes is missing or empty", "nodeTypes");
        if (doc.nodes() == null || doc.nodes().isEmpty()) throw new FormatException("nodes is missing or empty", "nodes");
        List<NodeType> types = new ArrayList<>();
        doc.nodeTypes().forEach((name, t) -> types.add(toType(name, t)));
        List<Node> nodes = new ArrayList<>();
        for (int i = 0; i < doc.nodes().size(); i++) {
            NodeDoc n = doc.nodes().get(i);
            String path = "nodes[" + i + "]";
            if (n == null || n.id() == null || n.id().isBlank()) throw new FormatException(path + ".id is missing", path + ".id");
            if (n.type() != null && n.types() != null) throw new FormatException(path + " (" + n.id() + "): give either type (fixed) or types (rightsizable), not both", path);
            int count = n.count() == null ? 1 : n.count();
            if (count < 1) throw new FormatException(path + " (" + n.id() + "): count must be >= 1", path + ".count");
            for (int k = 1; k <= count; k++) {
                String id = n.count() == null ? n.id() : n.id() + "-" + k;
                nodes.add(new Node(id, n.type(), n.types()));
            }
        }
        ObjectiveParameters d = ObjectiveParameters.DEFAULTS;
        ObjectiveDoc o = doc.objective();
        ObjectiveParameters objective = o == null ? d : new ObjectiveParameters(
                o.rho() == null ? d.rho() : o.rho(),
                o.horizonSeconds() == null ? d.horizonSeconds() : o.horizonSeconds(),
                o.mu() == null ? d.mu() : o.mu());
        return new ClusterSpec(new Cluster(types, nodes), objective);
    }

    private static NodeType toType(String name, NodeTypeDoc t) {
        String path = "nodeTypes." + name;
        if (t == null || t.gpus() == null) throw new FormatException(path + ".gpus is missing", path + ".gpus");
        int given = (t.costPerHour() != null ? 1 : 0) + (t.pricePerHour() != null ? 1 : 0) + (t.energy() != null ? 1 : 0);
        if (given != 1) throw new FormatException(path + ": give exactly one of costPerHour, pricePerHour, energy", path);
        if (t.pricePerHour() != null) return NodeType.priced(name, t.gpuModel(), t.gpus(), t.pricePerHour());
        if (t.energy() != null) {
            EnergyDoc e = t.energy();
            return NodeType.energy(name, t.gpuModel(), t.gpus(), new EnergyModel(e.gpuIdleWatts(), e.gpuMaxWatts(), e.hostWatts(), e.pricePerKwh(), e.pue()));
        }
        double[] rates = new double[t.costPerHour().size()];
        for (int g = 0; g < rates.length; g++) {
            Double r = t.costPerHour().get(g);
            if (r == null) throw new FormatException(path + ".costPerHour[" + g + "] is null", path + ".costPerHour");
            rates[g] = r;
        }
        return new NodeType(name, t.gpuModel(), t.gpus(), rates);
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
            m.put("gpus", n.fixedType() == null ? null : cluster.type(cluster.typeIndex(n.fixedType())).gpus());
            if (n.isRightsizable()) {
                List<String> allowed = new ArrayList<>();
                for (int t : cluster.candidateTypes(cluster.nodeIndex(n.id()))) allowed.add(cluster.type(t).name());
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
