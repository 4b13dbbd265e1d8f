package org.gpusched.core.policy;

import java.util.List;
import org.gpusched.core.model.Schedule;
import org.gpusched.core.model.SchedulingProblem;
import org.gpusched.core.random.RandomState;

/**
 * {@code andreas-rg}: the ANDREAS randomized greedy (Section IV.B, Algorithm 1) with the thesis' randomization
 * points (Section 3.1.4): {@link PolicyConfig#maxIterations()} constructions, each with random swaps of the
 * pressure-sorted jobs, a configuration drawn among the cheapest few and (best fit) a node drawn among the most
 * saturating few, followed by the post-processing; the best by f_OBJ is returned. Iteration 0 is the deterministic
 * greedy, so the result is never worse than {@link GreedyPolicy} on the same problem. Running jobs are re-decided
 * like waiting ones (they may be preempted, resized or migrated), with ties favouring their current node and
 * configuration. Every randomized iteration draws from its own stream, seeded by one draw of the caller's random
 * state, so the iterations run on {@link PolicyConfig#threads()} threads with the same result whatever their number;
 * among schedules of equal f_OBJ the one of the lowest iteration wins. Readings of the papers are documented on
 * {@link GreedyEngine}. The node-opening rule is
 * {@link NodeOpeningRule#DEFAULT}; where it matters (VMs leased whole, several types per GPU model) the randomized
 * iterations also draw the VM size a node is switched on as, so the search covers the opening choice.
 */
public final class AndreasRandomizedGreedyPolicy implements SchedulingPolicy {
    public static final String NAME = "andreas-rg";
    private final PolicyConfig config;
    private final GreedyEngine engine;

    public AndreasRandomizedGreedyPolicy(PolicyConfig config) {
        this.config = config == null ? PolicyConfig.DEFAULTS : config;
        this.engine = new GreedyEngine(true, NodeOpeningRule.DEFAULT, this.config.threads());
    }

    @Override
    public String name() {
        return NAME;
    }

    public PolicyConfig config() {
        return config;
    }

    @Override
    public Schedule schedule(SchedulingProblem problem, RandomState random) {
        return engine.run(problem, random, config.maxIterations(), 1, config.bestFit())
                .get(0);
    }

    /**
     * The best {@code keep} distinct schedules of one run of {@link PolicyConfig#maxIterations()} iterations, best
     * f_OBJ first (fewer when fewer distinct ones were found). The first is what {@link #schedule} returns for the
     * same problem and random state; the local search ({@code rg-ls}) starts from these.
     */
    public List<Schedule> bestSolutions(SchedulingProblem problem, RandomState random, int keep) {
        return engine.run(problem, random, config.maxIterations(), keep, config.bestFit());
    }
}
