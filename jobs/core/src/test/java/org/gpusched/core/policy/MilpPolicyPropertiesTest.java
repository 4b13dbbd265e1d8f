package org.gpusched.core.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import org.gpusched.core.model.Schedule;
import org.gpusched.core.model.SchedulingProblem;
import org.gpusched.core.random.RandomState;

/**
 * milp-relaxed and milp against andreas-rg-fobj on random tiny instances: feasible, optimal, milp-relaxed never worse than
 * andreas-rg-fobj (same seed), milp work-conserving and between milp-relaxed and andreas-rg-fobj made work-conserving.
 */
class MilpPolicyPropertiesTest {
    private static final PolicyConfig CONFIG = PolicyConfig.DEFAULTS.withMaxIterations(200);

    private static SchedulingProblem instance(long seed, int kind) {
        return switch (kind) {
            case 0 -> Instances.random(seed);
            case 1 ->
                MilpPolicyInstances.andreasLike(
                        seed,
                        1 + (int) Math.floorMod(seed, 3L),
                        2 + (int) Math.floorMod(seed, 5L),
                        2,
                        seed % 2 == 0 ? 0 : 1);
            default ->
                MilpPolicyInstances.rightsizable(
                        seed,
                        1 + (int) Math.floorMod(seed, 3L),
                        2 + (int) Math.floorMod(seed, 4L),
                        seed % 2 == 0 ? 0 : 1);
        };
    }

    @Property(tries = 40)
    void relaxedMilpIsFeasibleOptimalAndNeverWorseThanAndreasRg(
            @ForAll @LongRange(min = 0, max = 1_000_000) long seed, @ForAll @IntRange(min = 0, max = 2) int kind) {
        SchedulingProblem problem = instance(seed, kind);
        Schedule rg = AndreasRandomizedGreedyPolicy.byFObj(CONFIG).schedule(problem, RandomState.derive(seed, 7));
        // the bare model, no warm start: the bound has to come from SCIP, not from the greedy it would be seeded with
        MilpPolicy.Outcome exact = new MilpPolicy(CONFIG, false, MilpPolicy.DEFAULT_MAX_BINARY_VARIABLES, null)
                .solve(problem, RandomState.derive(seed, 7));
        ScheduleChecks.verify(problem, rg);
        ScheduleChecks.verify(problem, exact.schedule());
        assertEquals(MilpPolicy.Status.OPTIMAL, exact.status());
        double tolerance = 1e-6 * Math.max(1, Math.abs(rg.objective()));
        assertTrue(
                exact.schedule().objective() <= rg.objective() + tolerance,
                "milp " + exact.schedule().objective() + " > andreas-rg " + rg.objective());
        // the registry's milp-relaxed (warm-started by andreas-rg from the same random state) agrees
        Schedule registry = Policies.create("milp-relaxed", CONFIG).schedule(problem, RandomState.derive(seed, 7));
        ScheduleChecks.verify(problem, registry);
        assertEquals(exact.schedule().objective(), registry.objective(), tolerance);
    }

    @Property(tries = 40)
    void workConservingMilpNeverLeavesAJobWaitingWhereItFitsAndIsBoundedByRelaxedMilpAndAndreasRg(
            @ForAll @LongRange(min = 0, max = 1_000_000) long seed, @ForAll @IntRange(min = 0, max = 2) int kind) {
        SchedulingProblem problem = instance(seed, kind);
        MilpPolicy.Outcome conserving = new MilpPolicy(CONFIG, true, MilpPolicy.DEFAULT_MAX_BINARY_VARIABLES, null)
                .solve(problem, RandomState.derive(seed, 7));
        MilpPolicy.Outcome relaxed = new MilpPolicy(CONFIG, false, MilpPolicy.DEFAULT_MAX_BINARY_VARIABLES, null)
                .solve(problem, RandomState.derive(seed, 7));
        assertEquals(MilpPolicy.Status.OPTIMAL, conserving.status());
        ScheduleChecks.verify(problem, conserving.schedule());
        ScheduleChecks.verifyWorkConserving(problem, conserving.schedule());
        double f = conserving.schedule().objective();
        double tolerance = 1e-6 * Math.max(1, Math.abs(f));
        assertTrue(
                f >= relaxed.schedule().objective() - tolerance,
                "milp " + f + " < milp-relaxed " + relaxed.schedule().objective());
        // andreas-rg's schedule, made work-conserving, is one of the schedules the work-conserving model ranges over
        Schedule rg = WorkConservation.fill(
                problem, AndreasRandomizedGreedyPolicy.byFObj(CONFIG).schedule(problem, RandomState.derive(seed, 7)));
        ScheduleChecks.verify(problem, rg);
        ScheduleChecks.verifyWorkConserving(problem, rg);
        assertTrue(f <= rg.objective() + tolerance, "milp " + f + " > andreas-rg (work-conserving) " + rg.objective());
        // the registry's milp (warm-started by andreas-rg from the same random state) agrees
        Schedule registry = Policies.create("milp", CONFIG).schedule(problem, RandomState.derive(seed, 7));
        ScheduleChecks.verifyWorkConserving(problem, registry);
        assertEquals(f, registry.objective(), tolerance);
    }

    @Property(tries = 25)
    void bothMilpsMatchExhaustiveEnumeration(
            @ForAll @LongRange(min = 0, max = 1_000_000) long seed,
            @ForAll @IntRange(min = 1, max = 2) int kind,
            @ForAll boolean workConserving) {
        SchedulingProblem problem = kind == 1
                ? MilpPolicyInstances.andreasLike(
                        seed, 1 + (int) Math.floorMod(seed, 3L), 1 + (int) Math.floorMod(seed, 4L), 2, seed % 2)
                : MilpPolicyInstances.rightsizable(
                        seed, 1 + (int) Math.floorMod(seed, 2L), 1 + (int) Math.floorMod(seed, 4L), seed % 2);
        double optimum = MilpPolicyInstances.bruteForceOptimum(problem, workConserving);
        Schedule milp = new MilpPolicy(CONFIG, workConserving, MilpPolicy.DEFAULT_MAX_BINARY_VARIABLES, null)
                .schedule(problem, new RandomState(seed));
        assertEquals(optimum, milp.objective(), 1e-6 * Math.max(1, optimum));
    }
}
