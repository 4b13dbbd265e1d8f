package org.gpusched.core.policy;

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
     * n as, or -1 when none runs there. Entry j is job j's placement, or null when it waits.
     *
     * @throws IllegalArgumentException when a job of {@code waiting} runs, or {@code heldNodeTypes} does not match
     *                                  the cluster
     */
    Placement[] startOnFreeNodes(SchedulingProblem waiting, int[] heldNodeTypes);
}
