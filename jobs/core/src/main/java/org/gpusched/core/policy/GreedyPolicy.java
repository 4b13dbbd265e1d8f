package org.gpusched.core.policy;

import org.gpusched.core.model.Schedule;
import org.gpusched.core.model.SchedulingProblem;
import org.gpusched.core.random.RandomState;

/**
 * {@code greedy}: the thesis' pure greedy (Section 3.1.3): jobs by pressure, best configuration (cheapest meeting the
 * due date, else fastest), assignment to an open node by first or best fit ({@link PolicyConfig#bestFit()}), new-node
 * opening with VM type choice, sub-optimal assignment, post-processing. The readings of the paper are documented
 * on {@link GreedyEngine}. Uses no randomness.
 */
public final class GreedyPolicy implements SchedulingPolicy {
    public static final String NAME = "greedy";
    private final PolicyConfig config;
    private final GreedyEngine engine = new GreedyEngine();

    public GreedyPolicy(PolicyConfig config) {
        this.config = config == null ? PolicyConfig.DEFAULTS : config;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Schedule schedule(SchedulingProblem problem, RandomState random) {
        return engine.run(problem, random, 1, 1, config.bestFit()).get(0);
    }
}
