package org.gpusched.core.policy;

import org.gpusched.core.model.Schedule;
import org.gpusched.core.model.SchedulingProblem;
import org.gpusched.core.random.RandomState;

/**
 * One optimizer: given the cluster at a rescheduling point, decides which jobs run, where and on how many GPUs,
 * the type of each rightsizable node, and which jobs wait. Deterministic given the problem and the random state
 * (which it advances). Implementations are plain Java, stateless between calls apart from reusable scratch memory.
 */
public interface SchedulingPolicy {
    String name();

    Schedule schedule(SchedulingProblem problem, RandomState random);

    /**
     * Whether a periodic rescheduling, with no event since the last call, can change this policy's decisions. When it
     * cannot, controllers do not tick for it (the queue baselines: they only fill empty nodes with waiting jobs and
     * never move running ones, and a tick brings no empty node and no job).
     */
    default boolean decidesOnTicks() {
        return true;
    }

    /**
     * Whether the policy keeps every running job where it runs and only starts waiting jobs on free nodes (nodes no
     * running job uses): then, with no job waiting or no node free, its schedule is the current placements, and a
     * controller keeps them without calling it (the queue baselines).
     */
    default boolean startsOnlyOnFreeNodes() {
        return false;
    }
}
