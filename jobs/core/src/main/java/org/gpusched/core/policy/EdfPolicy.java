package org.gpusched.core.policy;

import org.gpusched.core.model.Job;

/** {@code edf}: waiting jobs served by earliest due date, one job per empty node, no preemption ({@link QueueOrderBaseline}). */
public final class EdfPolicy extends QueueOrderBaseline {
    public static final String NAME = "edf";
    public static final String FASTEST_NAME = NAME + FASTEST_SUFFIX;

    /** The baselines have no tunables; the config is accepted so that {@link Policies} builds every policy alike. */
    public EdfPolicy(PolicyConfig config) {
        this(ConfigurationRule.CHEAPEST_ON_TIME);
    }

    private EdfPolicy(ConfigurationRule rule) {
        super(rule);
    }

    /** {@value #FASTEST_NAME}: the same queue with {@link ConfigurationRule#FASTEST}. */
    public static EdfPolicy fastest(PolicyConfig config) {
        return new EdfPolicy(ConfigurationRule.FASTEST);
    }

    @Override
    public String name() {
        return configurationRule() == ConfigurationRule.FASTEST ? FASTEST_NAME : NAME;
    }

    @Override
    public double queueKey(Job job) {
        return job.dueSeconds();
    }
}
