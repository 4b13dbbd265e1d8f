package org.gpusched.formats;

import org.gpusched.core.model.Cluster;
import org.gpusched.core.objective.ObjectiveParameters;

/**
 * A cluster file's content: node types and nodes, the objective constants the scenario prescribes, and the unit its
 * prices are in ({@code currency}: EUR, USD, ...; null when the file does not say, and reports say "cost units").
 */
public record ClusterSpec(Cluster cluster, ObjectiveParameters objective, String currency) {
    public ClusterSpec {
        if (objective == null) objective = ObjectiveParameters.DEFAULTS;
    }

    /** A cluster whose file names no currency. */
    public ClusterSpec(Cluster cluster, ObjectiveParameters objective) {
        this(cluster, objective, null);
    }
}
