package org.gpusched.core.policy;

import static org.junit.jupiter.api.Assertions.assertTrue;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import org.gpusched.core.model.Schedule;
import org.gpusched.core.model.SchedulingProblem;
import org.gpusched.core.random.RandomState;

/**
 * rg-ls on random instances: feasible, work-conserving, never worse than andreas-rg (same seed; made work-conserving
 * when it is not), never below the work-conserving MILP optimum; and with the rule off, never below milp-relaxed's.
 */
class LocalSearchPolicyPropertiesTest {
    private static final PolicyConfig CONFIG = PolicyConfig.DEFAULTS.withMaxIterations(200);

    private static SchedulingProblem instance(long seed, int kind) {
        return switch (kind) {
            case 0 -> Instances.random(seed);
            case 1 ->
                MilpPolicyInstances.andreasLike(
                        seed,
                        1 + (int) Math.floorMod(seed, 4L),
                        2 + (int) Math.floorMod(seed, 6L),
                        2 + 2 * (int) Math.floorMod(seed, 2L),
                        seed % 2);
            default ->
                MilpPolicyInstances.rightsizable(
                        seed, 1 + (int) Math.floorMod(seed, 3L), 2 + (int) Math.floorMod(seed, 5L), seed % 2);
        };
    }

    @Property(tries = 40)
    void rgLsIsFeasibleAndBetweenTheOptimumAndAndreasRg(
            @ForAll @LongRange(min = 0, max = 1_000_000) long seed, @ForAll @IntRange(min = 0, max = 2) int kind) {
        SchedulingProblem problem = instance(seed, kind);
        Schedule rg = new AndreasRandomizedGreedyPolicy(CONFIG).schedule(problem, RandomState.derive(seed, 3));
        for (boolean conserving : new boolean[] {true, false}) {
            Schedule ls = new LocalSearchPolicy(CONFIG.withWorkConserving(conserving))
                    .schedule(problem, RandomState.derive(seed, 3));
            ScheduleChecks.verify(problem, ls);
            double lsWaste = PolicyPropertiesTest.waste(problem, ls);
            double bound = PolicyPropertiesTest.waste(problem, conserving ? WorkConservation.fill(problem, rg) : rg);
            assertTrue(
                    lsWaste <= bound + 1e-9 * Math.max(1, Math.abs(bound)),
                    "rg-ls " + lsWaste + " > andreas-rg " + bound);
            if (conserving) ScheduleChecks.verifyWorkConserving(problem, ls);
            double optimum = new MilpPolicy(CONFIG, conserving, MilpPolicy.DEFAULT_MAX_BINARY_VARIABLES, null)
                    .schedule(problem, new RandomState(seed))
                    .objective();
            assertTrue(
                    ls.objective() >= optimum - 1e-6 * Math.max(1, optimum),
                    "rg-ls " + ls.objective() + " below the optimum " + optimum
                            + (conserving ? " (work-conserving)" : " (relaxed)"));
        }
    }

    /** Tighter and larger than {@link #instance}: many postponed jobs, where shrink-and-insert does most of its work. */
    @Property(tries = 30)
    void onTightClustersRgLsIsFeasibleAndNeverWorseThanAndreasRg(
            @ForAll @LongRange(min = 0, max = 1_000_000) long seed, @ForAll boolean rightsizable) {
        int nodes = 2 + (int) Math.floorMod(seed, 4L);
        SchedulingProblem problem = rightsizable
                ? MilpPolicyInstances.rightsizable(seed, nodes, 3 * nodes + (int) Math.floorMod(seed, 5L), seed % 2)
                : MilpPolicyInstances.andreasLike(
                        seed,
                        nodes,
                        3 * nodes + (int) Math.floorMod(seed, 7L),
                        2 + 2 * (int) Math.floorMod(seed / 4, 2L),
                        seed % 2);
        Schedule rg = WorkConservation.fill(
                problem, new AndreasRandomizedGreedyPolicy(CONFIG).schedule(problem, RandomState.derive(seed, 5)));
        Schedule ls = new LocalSearchPolicy(CONFIG).schedule(problem, RandomState.derive(seed, 5));
        ScheduleChecks.verify(problem, ls);
        ScheduleChecks.verifyWorkConserving(problem, ls);
        double lsWaste = PolicyPropertiesTest.waste(problem, ls), rgWaste = PolicyPropertiesTest.waste(problem, rg);
        assertTrue(
                lsWaste <= rgWaste + 1e-9 * Math.max(1, Math.abs(rgWaste)),
                "rg-ls " + lsWaste + " > andreas-rg " + rgWaste);
        rg = WorkConservation.fill(
                problem, AndreasRandomizedGreedyPolicy.byFObj(CONFIG).schedule(problem, RandomState.derive(seed, 5)));
        Schedule sni = LocalSearchPolicy.withShrinkAndInsert(CONFIG).schedule(problem, RandomState.derive(seed, 5));
        ScheduleChecks.verify(problem, sni);
        ScheduleChecks.verifyWorkConserving(problem, sni);
        assertTrue(
                sni.objective() <= rg.objective(),
                "rg-ls-sni " + sni.objective() + " > andreas-rg-fobj " + rg.objective());
    }

    @Property(tries = 60)
    void localSearchFromBaselineSchedulesOnlyImproves(
            @ForAll @LongRange(min = 0, max = 1_000_000) long seed,
            @ForAll @IntRange(min = 0, max = 2) int kind,
            @ForAll @IntRange(min = 0, max = 3) int baseline,
            @ForAll @IntRange(min = 1, max = 4) int k) {
        SchedulingProblem problem = instance(seed, kind);
        String name = new String[] {"fifo", "edf", "priority", "greedy"}[baseline];
        Schedule start = Policies.create(name, CONFIG).schedule(problem, new RandomState(seed));
        Schedule filled = WorkConservation.fill(problem, start);
        ScheduleChecks.verifyWorkConserving(problem, filled);
        for (boolean shrinkAndInsert : new boolean[] {true, false}) {
            Schedule improved = LocalSearchPolicy.improve(problem, start, k, shrinkAndInsert, false);
            ScheduleChecks.verify(problem, improved);
            assertTrue(
                    improved.objective() <= start.objective(),
                    name + " " + start.objective() + " -> " + improved.objective());
            // work-conserving from the filled start: its moves never break the rule
            Schedule conserving = LocalSearchPolicy.improve(problem, filled, k, shrinkAndInsert, true);
            ScheduleChecks.verify(problem, conserving);
            ScheduleChecks.verifyWorkConserving(problem, conserving);
            assertTrue(
                    conserving.objective() <= filled.objective(),
                    name + " filled " + filled.objective() + " -> " + conserving.objective());
        }
    }
}
