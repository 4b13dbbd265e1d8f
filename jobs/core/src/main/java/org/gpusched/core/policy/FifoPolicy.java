package org.gpusched.core.policy;

import org.gpusched.core.model.SchedulingProblem;

/** {@code fifo}: waiting jobs served by submission time, one job per empty node, no preemption ({@link QueueOrderBaseline}). */
public final class FifoPolicy extends QueueOrderBaseline {
    public static final String NAME = "fifo";

    public FifoPolicy(PolicyConfig config) {}

    @Override public String name() { return NAME; }

    @Override protected void queueKey(SchedulingProblem problem, double[] key) {
        for (int j = 0; j < key.length; j++) key[j] = problem.job(j).job().submitSeconds();
    }
}
