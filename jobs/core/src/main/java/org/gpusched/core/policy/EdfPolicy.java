package org.gpusched.core.policy;

import org.gpusched.core.model.Job;

/** {@code edf}: waiting jobs served by earliest due date, one job per empty node, no preemption ({@link QueueOrderBaseline}). */
public final class EdfPolicy extends QueueOrderBaseline {
    public static final String NAME = "edf";

    /** The baselines have no tunables; the config is accepted so that {@link Policies} builds every policy alike. */
    public EdfPolicy(PolicyConfig config) {}

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public double queueKey(Job job) {
        return job.dueSeconds();
    }
}
