package org.gpusched.streaming;

import java.util.Set;
import java.util.TreeSet;
import org.gpusched.core.model.Cluster;

/**
 * A controller key's cluster of up nodes and a mirror of their current types and load. Derived from state (built by
 * {@link ControllerFacts#topology}), dropped on the key's node events, never read as the truth.
 */
final class Topology {
    /** Waiting jobs per GPU of a key's up nodes that an optimizer is asked about at most. */
    static final int OPTIMIZER_WINDOW_PER_GPU = 2;
    /** Waiting jobs an optimizer is asked about at least. */
    static final int OPTIMIZER_WINDOW_MIN = 256;

    final Cluster cluster;
    /** Node slots in state when built (up or not): a different count means the node list changed under it. */
    final int slots;
    /** Per up node (cluster index), its position in the state's node list. */
    final int[] slotOfNode;
    /** Per up node, the catalog index of the type it runs as, or -1: the same as its slot's currentType. */
    final int[] currentType;

    final NodeLoad load;
    /** Up nodes where a placement changed since the node types were last updated. */
    final Set<Integer> touched = new TreeSet<>();
    /** Built afresh: every node's type is checked at the next update. */
    boolean allTouched = true;
    /** Waiting jobs an optimizer is asked about at most: {@value #OPTIMIZER_WINDOW_PER_GPU} per GPU the nodes can have. */
    final int optimizerWindow;
    /** Per up node, the most GPUs it can have (over the types it can run as). */
    final int[] mostGpus;

    private ModelDemand.Models models;

    Topology(Cluster cluster, int slots, int[] slotOfNode) {
        this.cluster = cluster;
        mostGpus = new int[cluster.nodeCount()];
        int gpus = 0;
        for (int n = 0; n < cluster.nodeCount(); n++) {
            for (int t : cluster.candidateTypes(n))
                mostGpus[n] = Math.max(mostGpus[n], cluster.type(t).gpus());
            gpus += mostGpus[n];
        }
        this.optimizerWindow = Math.max(OPTIMIZER_WINDOW_MIN, OPTIMIZER_WINDOW_PER_GPU * gpus);
        this.slots = slots;
        this.slotOfNode = slotOfNode;
        this.currentType = new int[cluster.nodeCount()];
        this.load = new NodeLoad(cluster.types(), cluster.nodeCount());
    }

    /** The cluster's GPU models, derived the first time they are asked for. */
    ModelDemand.Models models() {
        if (models == null) models = ModelDemand.Models.of(cluster);
        return models;
    }
}
