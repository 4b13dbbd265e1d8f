package org.gpusched.core.model;

import java.util.List;

/**
 * A node slot of the cluster. Either of a fixed type (on-premise, ANDREAS) or rightsizable: the optimizer
 * picks its VM type at each decision among {@code allowedTypes} (empty = every type of the cluster).
 */
public record Node(String id, String fixedType, List<String> allowedTypes) {
    public Node {
        if (id == null || id.isBlank()) throw new InvalidInstanceException("node: id is missing");
        allowedTypes = allowedTypes == null ? List.of() : List.copyOf(allowedTypes);
    }

    public static Node fixed(String id, String type) {
        return new Node(id, type, List.of());
    }

    public static Node rightsizable(String id) {
        return new Node(id, null, List.of());
    }

    public boolean isRightsizable() {
        return fixedType == null;
    }
}
