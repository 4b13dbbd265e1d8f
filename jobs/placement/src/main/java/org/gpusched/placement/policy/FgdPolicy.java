package org.gpusched.placement.policy;

import org.gpusched.placement.model.ClusterState;
import org.gpusched.placement.model.Task;

/**
 * fgd-exact: Fragmentation Gradient Descent (FGD, Weng et al. ATC'23): the candidate whose hypothetical placement increases the
 * node's expected GPU fragmentation F_n(M) least. The node's current F_n(M) is cached in the cluster state, so each
 * candidate costs one evaluation of the hypothetical node.
 * Exact scores, random ties: a variant of this product; the FGD simulator's definition is {@link PwrFgdPolicy}.
 */
public final class FgdPolicy extends MinScorePolicy {
    public FgdPolicy() {
        super(true);
    }

    @Override
    public String name() {
        return "fgd-exact";
    }

    @Override
    protected double score(Task task, ClusterState cluster, int node, int sharedGpu) {
        return cluster.fragmentationAfter(task, node, sharedGpu) - cluster.nodeFragmentationMilli(node);
    }
}
