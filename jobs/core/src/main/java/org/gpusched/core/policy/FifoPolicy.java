package org.gpusched.core.policy;

import org.gpusched.core.model.Job;

/** {@code fifo}: waiting jobs served by submission time, one job per empty node, no preemption ({@link QueueOrderBaseline}). */
public final class FifoPolicy extends QueueOrderBaseline {
    public static final String NAME = "fifo";
    public static final String FASTEST_NAME = NAME + FASTEST_SUFFIX;

    /** The baselines have no tunables; the config is accepted so that {@link Policies} builds every policy alike. */
    public FifoPolicy(PolicyConfig config) {
        this(ConfigurationRule.CHEAPEST_ON_TIME);
    }

    private FifoPolicy(ConfigurationRule rule) {
        super(rule);
    }

    /** {@value #FASTEST_NAME}: the same queue with {@link ConfigurationRule#FASTEST}. */
    public static FifoPolicy fastest(PolicyConfig config) {
        return new FifoPolicy(ConfigurationRule.FASTEST);
    }

    @Override
    public String name() {
        return configurationRule() == ConfigurationRule.FASTEST ? FASTEST_NAME : NAME;
    }

    @Override
    public double queueKey(Job job) {
        return job.submitSeconds();
    }
}
