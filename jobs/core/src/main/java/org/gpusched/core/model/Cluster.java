package org.gpusched.core.model;

import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Node types and node slots, indexed for the optimizers. Validated on construction. */
public final class Cluster {
    private final List<NodeType> types;
    /** {@link #types} as an array: {@link #type(int)} is read for every job priced at every event. */
    private final NodeType[] typeArray;

    private final List<Node> nodes;
    /** Shared with the clusters restricted from this one: the same catalog. */
    private final Map<String, Integer> typeIndex;
    /**
     * Built on first use in a restricted cluster: an optimizer call's scope is one, and its calls look nodes up by
     * index alone.
     */
    private volatile Map<String, Integer> nodeIndex;
    /** candidateTypes[n] = type indices node n may take (one for a fixed node). */
    private final int[][] candidateTypes;

    private final int maxGpus;
    /** Per type, whether some node can run as it. */
    private final boolean[] typeAvailable;
    /** takes[n * types + t]: whether node n can run as type t. */
    private final boolean[] takes;
    /**
     * Per node, a class shared by the nodes with the same candidate types (interchangeable for f_OBJ); a restricted
     * cluster keeps its nodes' classes in the whole one.
     */
    private final int[] nodeClass;

    private final int nodeClassCount;

    public Cluster(List<NodeType> types, List<Node> nodes) {
        if (types == null || types.isEmpty()) throw new InvalidInstanceException("cluster: no node types");
        if (nodes == null || nodes.isEmpty()) throw new InvalidInstanceException("cluster: no nodes");
        this.types = List.copyOf(types);
        this.typeIndex = new HashMap<>();
        Map<String, Integer> nodeIndex = new HashMap<>();
        this.typeArray = this.types.toArray(new NodeType[0]);
        this.nodes = List.copyOf(nodes);
        int max = 0;
        for (int t = 0; t < this.types.size(); t++) {
            NodeType type = this.types.get(t);
            if (typeIndex.putIfAbsent(type.name(), t) != null)
                throw new InvalidInstanceException("node type " + type.name() + ": defined twice");
            max = Math.max(max, type.gpus());
        }
        this.maxGpus = max;
        candidateTypes = new int[this.nodes.size()][];
        for (int n = 0; n < this.nodes.size(); n++) {
            Node node = this.nodes.get(n);
            if (nodeIndex.putIfAbsent(node.id(), n) != null)
                throw new InvalidInstanceException("node " + node.id() + ": defined twice");
            if (!node.isRightsizable()) {
                candidateTypes[n] = new int[] {resolveType(node, node.fixedType())};
            } else if (node.allowedTypes().isEmpty()) {
                candidateTypes[n] = new int[this.types.size()];
                for (int t = 0; t < candidateTypes[n].length; t++) candidateTypes[n][t] = t;
            } else {
                candidateTypes[n] = node.allowedTypes().stream()
                        .mapToInt(name -> resolveType(node, name))
                        .toArray();
            }
        }
        this.nodeIndex = nodeIndex;
        typeAvailable = new boolean[this.types.size()];
        takes = new boolean[this.nodes.size() * this.types.size()];
        markCandidates(candidateTypes, typeAvailable, takes);
        nodeClass = new int[this.nodes.size()];
        Map<List<Integer>, Integer> classes = new HashMap<>();
        for (int n = 0; n < nodeClass.length; n++) {
            List<Integer> key = Arrays.stream(candidateTypes[n]).boxed().toList();
            nodeClass[n] = classes.computeIfAbsent(key, x -> classes.size());
        }
        nodeClassCount = classes.size();
    }

    /** Fills {@link #typeAvailable} and {@link #takes} (sized for the catalog) from each node's candidate types. */
    private static void markCandidates(int[][] candidateTypes, boolean[] typeAvailable, boolean[] takes) {
        int types = typeAvailable.length;
        for (int n = 0; n < candidateTypes.length; n++) {
            for (int t : candidateTypes[n]) {
                typeAvailable[t] = true;
                takes[n * types + t] = true;
            }
        }
    }

    /** A cluster of some of another's nodes, over the same catalog instance (type indices and time tables stay valid). */
    private Cluster(Cluster whole, int[] nodeIndices) {
        this.types = whole.types;
        this.typeArray = whole.typeArray;
        this.maxGpus = whole.maxGpus;
        this.typeIndex = whole.typeIndex;
        Node[] kept = new Node[nodeIndices.length];
        candidateTypes = new int[nodeIndices.length][];
        nodeClass = new int[nodeIndices.length];
        nodeClassCount = whole.nodeClassCount;
        boolean[] given = new boolean[whole.nodeCount()];
        for (int i = 0; i < nodeIndices.length; i++) {
            int n = nodeIndices[i];
            kept[i] = whole.nodes.get(n);
            if (given[n]) throw new IllegalArgumentException("node index " + n + " given twice");
            given[n] = true;
            candidateTypes[i] = whole.candidateTypes[n];
            nodeClass[i] = whole.nodeClass[n];
        }
        this.nodes = List.of(kept);
        boolean[] available = new boolean[types.size()];
        takes = new boolean[nodeIndices.length * types.size()];
        markCandidates(candidateTypes, available, takes);
        // the whole cluster's own array when the types are the same, so that figures kept per availability stay valid
        typeAvailable = Arrays.equals(available, whole.typeAvailable) ? whole.typeAvailable : available;
    }

    /**
     * The cluster of the nodes at {@code nodeIndices} (at least one, each once), in that order: node i of the result is
     * node {@code nodeIndices[i]} of this one. It shares this cluster's type list, so {@link JobTimes} built for
     * either fit both.
     */
    public Cluster restrictedTo(int[] nodeIndices) {
        if (nodeIndices.length == 0) throw new InvalidInstanceException("cluster: no nodes");
        return new Cluster(this, nodeIndices);
    }

    private int resolveType(Node node, String name) {
        Integer t = typeIndex.get(name);
        if (t == null)
            throw new InvalidInstanceException(
                    "node " + node.id() + ": unknown node type '" + name + "' (known: " + typeIndex.keySet() + ")");
        return t;
    }

    public List<NodeType> types() {
        return types;
    }

    public List<Node> nodes() {
        return nodes;
    }

    public int typeCount() {
        return types.size();
    }

    public int nodeCount() {
        return nodes.size();
    }

    public NodeType type(int t) {
        return typeArray[t];
    }

    public Node node(int n) {
        return nodes.get(n);
    }

    public int maxGpus() {
        return maxGpus;
    }
    /** Whether node n can run as type t. */
    public boolean canTake(int n, int t) {
        return t >= 0 && t < types.size() && takes[n * types.size() + t];
    }
    /** Whether some node can run as type t. */
    public boolean typeAvailable(int t) {
        return typeAvailable[t];
    }

    /**
     * Per type, whether some node can run as it, as an identity: clusters that agree on it often share one array (a
     * restriction that keeps every type keeps its whole cluster's), so a figure that depends on it alone is kept per
     * array ({@link JobTimes#fastest}). Do not modify.
     */
    boolean[] typeAvailability() {
        return typeAvailable;
    }

    /** Type indices node n may run as; do not modify. */
    public int[] candidateTypes(int n) {
        return candidateTypes[n];
    }

    public int typeIndex(String name) {
        Integer t = typeIndex.get(name);
        if (t == null) throw new InvalidInstanceException("unknown node type '" + name + "'");
        return t;
    }

    public boolean hasType(String name) {
        return typeIndex.containsKey(name);
    }

    /** The index of a type, or -1 when the cluster has no type of that name (one lookup, for hot paths). */
    public int typeIndexOrMinusOne(String name) {
        Integer t = typeIndex.get(name);
        return t == null ? -1 : t;
    }

    private Map<String, Integer> nodeIndex() {
        Map<String, Integer> index = nodeIndex;
        if (index == null) {
            // the same map whichever thread builds it first
            index = new HashMap<>();
            for (int n = 0; n < nodes.size(); n++) index.put(nodes.get(n).id(), n);
            nodeIndex = index;
        }
        return index;
    }

    /** Node n's class: nodes of one class have the same candidate types, so they are interchangeable for f_OBJ. */
    public int nodeClass(int n) {
        return nodeClass[n];
    }

    /** An upper bound of the node classes (those of the whole cluster a restricted one was taken from). */
    public int nodeClassCount() {
        return nodeClassCount;
    }

    public int nodeIndex(String id) {
        Integer n = nodeIndex().get(id);
        if (n == null) throw new InvalidInstanceException("unknown node '" + id + "'");
        return n;
    }

    public boolean hasNode(String id) {
        return nodeIndex().containsKey(id);
    }

    public Map<String, NodeType> typesByName() {
        Map<String, NodeType> m = new LinkedHashMap<>();
        types.forEach(t -> m.put(t.name(), t));
        return m;
    }
}
