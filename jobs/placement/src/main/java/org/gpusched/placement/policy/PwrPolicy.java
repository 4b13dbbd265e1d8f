package org.gpusched.placement.policy;

import org.gpusched.placement.model.ClusterState;
import org.gpusched.placement.model.Task;

/** pwr-exact: PWR (Algorithm 1 of the PWR paper): the candidate whose hypothetical placement raises the node's estimated watts least. (The FGD simulator's definition is {@link PwrFgdPolicy}.) */
public final class PwrPolicy extends MinScorePolicy {
    public PwrPolicy() {
        super(true);
    }

    @Override
    public String name() {
        return "pwr-exact";
    }

    @Override
    protected double score(Task task, ClusterState cluster, int node, int sharedGpu) {
        return cluster.powerAfter(task, node, sharedGpu) - cluster.nodeWatts(node);
    }
}
