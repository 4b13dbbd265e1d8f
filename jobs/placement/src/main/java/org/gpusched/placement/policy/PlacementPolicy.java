package org.gpusched.placement.policy;

import org.gpusched.core.random.RandomState;
import org.gpusched.placement.model.ClusterState;
import org.gpusched.placement.model.Placement;
import org.gpusched.placement.model.Task;

/**
 * An online placement policy: for one arriving task, the node (and GPUs) among those meeting the fit conditions, or
 * null when none does. Deterministic given the state and the random state, which it advances only to break ties (or,
 * for {@code random}, to draw). Instances may keep scratch memory: one instance per run, not shared across threads.
 */
public interface PlacementPolicy {
    String name();

    Placement choose(Task task, ClusterState cluster, RandomState random);
}
