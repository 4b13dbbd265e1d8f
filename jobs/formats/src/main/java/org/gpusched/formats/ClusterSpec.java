package org.gpusched.formats;

import org.gpusched.core.model.Cluster;
import org.gpusched.core.objective.ObjectiveParameters;

/** A cluster file's content: node types and nodes, and the objective constants the scenario prescribes. */
public record ClusterSpec(Cluster cluster, ObjectiveParameters objective) {
    public ClusterSpec {
        if (objective == null) objective = ObjectiveParameters.DEFAULTS;
    }
}
