package org.gpusched.placement.policy;

import org.gpusched.placement.model.ClusterState;
import org.gpusched.placement.model.Task;

/** Random fit: a feasible node drawn uniformly (every score ties, so the reservoir draw decides); a share goes on the tightest GPU. */
public final class RandomPolicy extends MinScorePolicy {
    public RandomPolicy() { super(false); }

    @Override public String name() { return "random"; }

    @Override
    protected double score(Task task, ClusterState cluster, int node, int sharedGpu) { return 0; }
}
