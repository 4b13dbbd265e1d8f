package org.gpusched.core.policy;

import org.gpusched.core.model.SchedulingProblem;

/** {@code fifo}: waiting jobs served by submission time, one job per empty node, no preemption ({@link QueueOrderBaseline}). */
public final class FifoPolicy extends QueueOrderBaseline {
    public static final String NAME = "fifo";

    /** The baselines have no tunables; the config is accepted so that {@link Policies} builds every policy alike. */
    public FifoPolicy(PolicyConfig config) {}

    @Override public String name() { return NAME; }

    @Override protected void queueKey(SchedulingProblem problem, double[] key) {
        for (int j = 0; j < key.length; j++) key[j] = problem.job(j).job().submitSeconds();
    }
}
