package org.gpusched.core.policy;

import java.util.stream.IntStream;
import org.gpusched.core.model.Cluster;
import org.gpusched.core.model.Job;
import org.gpusched.core.model.Placement;
import org.gpusched.core.model.SchedulingProblem;

/**
 * A policy that {@linkplain SchedulingPolicy#startsOnlyOnFreeNodes starts jobs only on free nodes}, asked about the
 * waiting jobs alone: a controller then builds a problem of its queue rather than of every job it holds (with about a
 * hundred jobs running on 1,000 nodes and one waiting, that problem and the call over it were a quarter of a
 * centralized controller's work).
 */
public interface FreeNodePolicy extends SchedulingPolicy {
    /**
     * Where to start the jobs of {@code waiting}, none of which runs: the placements {@link #schedule} gives them on
     * the problem that also holds the running jobs. {@code heldNodeTypes[n]} is the type the running jobs have node
     * n as, or -1 when none runs there. Entry j is job j's placement, or null when it waits. The nodes it starts jobs
     * on are marked in {@code heldNodeTypes} as taken (with the type it starts them as), so that a caller handing
     * over its queue in slices passes the same array on, and no call copies a table as large as the cluster.
     *
     * @throws IllegalArgumentException when a job of {@code waiting} runs, or {@code heldNodeTypes} does not match
     *                                  the cluster
     */
    default Placement[] startOnFreeNodes(SchedulingProblem waiting, int[] heldNodeTypes) {
        Cluster cluster = waiting.cluster();
        if (heldNodeTypes.length != cluster.nodeCount()) {
            throw new IllegalArgumentException(
                    "held node types: " + heldNodeTypes.length + " for " + cluster.nodeCount() + " nodes");
        }
        for (int n = 0; n < heldNodeTypes.length; n++) {
            if (heldNodeTypes[n] < -1 || heldNodeTypes[n] >= cluster.typeCount()) {
                throw new IllegalArgumentException(
                        "held node types: node " + cluster.node(n).id() + " has type index " + heldNodeTypes[n]);
            }
        }
        return startOnFreeNodes(waiting, heldNodeTypes, emptyNodes(heldNodeTypes));
    }

    /** The nodes {@code heldNodeTypes} gives -1, ascending: the {@code emptyNodes} of a caller that keeps none. */
    static int[] emptyNodes(int[] heldNodeTypes) {
        return IntStream.range(0, heldNodeTypes.length)
                .filter(n -> heldNodeTypes[n] == -1)
                .toArray();
    }

    /**
     * As {@link #startOnFreeNodes(SchedulingProblem, int[])}, for a caller that keeps the empty nodes: {@code
     * emptyNodes} lists, ascending, every node {@code heldNodeTypes} gave -1 when the caller took them from its table
     * (a node taken since, no longer -1 there, is passed over), so that a call on a full cluster looks at the few
     * empty nodes rather than at every node. The other entries of {@code heldNodeTypes} are not read.
     *
     * @throws IllegalArgumentException when a job of {@code waiting} runs, or {@code heldNodeTypes} or {@code
     *                                  emptyNodes} do not match the cluster
     */
    Placement[] startOnFreeNodes(SchedulingProblem waiting, int[] heldNodeTypes, int[] emptyNodes);

    /**
     * The waiting job's place in the queue: jobs are served by this key ascending, then by submission time, then in
     * the problem's job order. It depends on the job alone, so a caller can keep its queue in this order and hand
     * the policy the head of it (in that order) instead of every waiting job.
     */
    double queueKey(Job job);
}
