package org.gpusched.placement.policy;

import org.gpusched.placement.model.ClusterState;
import org.gpusched.placement.model.Task;

/** random-tightest: Random fit: a feasible node drawn uniformly (every score ties, so the reservoir draw decides); a share goes on the tightest GPU. (The FGD simulator's definition is {@link RandomScorePolicy}.) */
public final class RandomPolicy extends MinScorePolicy {
    public RandomPolicy() {
        super(false);
    }

    @Override
    public String name() {
        return "random-tightest";
    }

    @Override
    protected double score(Task task, ClusterState cluster, int node, int sharedGpu) {
        return 0;
    }
}
