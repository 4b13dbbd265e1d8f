package org.gpusched.core.policy;

import org.gpusched.core.model.Job;

/**
 * {@code priority}: waiting jobs served by tardiness weight, highest first, one job per empty node, no preemption
 * ({@link QueueOrderBaseline}).
 */
public final class PriorityPolicy extends QueueOrderBaseline {
    public static final String NAME = "priority";

    /** The baselines have no tunables; the config is accepted so that {@link Policies} builds every policy alike. */
    public PriorityPolicy(PolicyConfig config) {}

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public double queueKey(Job job) {
        return -job.weightPerHour();
    }
}
