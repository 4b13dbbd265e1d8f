package org.gpusched.core.policy;

import org.gpusched.core.model.Schedule;
import org.gpusched.core.model.SchedulingProblem;
import org.gpusched.core.random.RandomState;

/**
 * {@code greedy}: the thesis' pure greedy (Section 3.1.3): jobs by pressure, best configuration (cheapest meeting the
 * due date, else fastest), assignment to an open node by first or best fit ({@link PolicyConfig#bestFit()}), new-node
 * opening with VM type choice, sub-optimal assignment, post-processing. The readings of the paper are documented
 * on {@link GreedyEngine}, the node-opening rules on {@link NodeOpeningRule}. Uses no randomness.
 */
public final class GreedyPolicy implements SchedulingPolicy {
    public static final String NAME = "greedy";
    /** The greedy under {@link NodeOpeningRule#VM_PER_JOB}, the rule before {@link NodeOpeningRule#PACKED}. */
    public static final String VM_PER_JOB_NAME = "greedy-vm-per-job";
    /** The greedy under {@link NodeOpeningRule#LARGEST_VM}, the GPUScheduler Greedy's rule. */
    public static final String LARGEST_VM_NAME = "greedy-largest-vm";

    private final PolicyConfig config;
    private final String name;
    private final GreedyEngine engine;

    public GreedyPolicy(PolicyConfig config) {
        this(config, NAME, NodeOpeningRule.DEFAULT);
    }

    private GreedyPolicy(PolicyConfig config, String name, NodeOpeningRule opening) {
        this.config = config == null ? PolicyConfig.DEFAULTS : config;
        this.name = name;
        this.engine = new GreedyEngine(opening);
    }

    public static GreedyPolicy vmPerJob(PolicyConfig config) {
        return new GreedyPolicy(config, VM_PER_JOB_NAME, NodeOpeningRule.VM_PER_JOB);
    }

    public static GreedyPolicy largestVm(PolicyConfig config) {
        return new GreedyPolicy(config, LARGEST_VM_NAME, NodeOpeningRule.LARGEST_VM);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public Schedule schedule(SchedulingProblem problem, RandomState random) {
        return engine.run(problem, random, 1, 1, config.bestFit()).get(0);
    }
}
