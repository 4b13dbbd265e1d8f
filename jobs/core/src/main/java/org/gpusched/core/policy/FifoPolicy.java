package org.gpusched.core.policy;

import org.gpusched.core.model.Job;

/** {@code fifo}: waiting jobs served by submission time, one job per empty node, no preemption ({@link QueueOrderBaseline}). */
public final class FifoPolicy extends QueueOrderBaseline {
    public static final String NAME = "fifo";

    /** The baselines have no tunables; the config is accepted so that {@link Policies} builds every policy alike. */
    public FifoPolicy(PolicyConfig config) {}

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public double queueKey(Job job) {
        return job.submitSeconds();
    }
}
