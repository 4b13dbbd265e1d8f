package org.gpusched.core.policy;

import org.gpusched.core.model.Job;

/**
 * {@code priority}: waiting jobs served by tardiness weight, highest first, one job per empty node, no preemption
 * ({@link QueueOrderBaseline}).
 */
public final class PriorityPolicy extends QueueOrderBaseline {
    public static final String NAME = "priority";
    public static final String FASTEST_NAME = NAME + FASTEST_SUFFIX;

    /** The baselines have no tunables; the config is accepted so that {@link Policies} builds every policy alike. */
    public PriorityPolicy(PolicyConfig config) {
        this(ConfigurationRule.CHEAPEST_ON_TIME);
    }

    private PriorityPolicy(ConfigurationRule rule) {
        super(rule);
    }

    /** {@value #FASTEST_NAME}: the same queue with {@link ConfigurationRule#FASTEST}. */
    public static PriorityPolicy fastest(PolicyConfig config) {
        return new PriorityPolicy(ConfigurationRule.FASTEST);
    }

    @Override
    public String name() {
        return configurationRule() == ConfigurationRule.FASTEST ? FASTEST_NAME : NAME;
    }

    @Override
    public double queueKey(Job job) {
        return -job.weightPerHour();
    }
}
