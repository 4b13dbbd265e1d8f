package org.gpusched.core.policy;

import java.util.List;
import org.gpusched.core.model.Schedule;
import org.gpusched.core.model.SchedulingProblem;
import org.gpusched.core.random.RandomState;

/**
 * {@code rg-ls}: the randomized greedy ({@code andreas-rg}) followed by the thesis' local search (Section 3.1.5,
 * {@link LocalSearch} with {@link ThesisNeighbourhoods}). The search starts from each of the
 * {@link PolicyConfig#localSearchKeep()} best distinct randomized solutions (the first is andreas-rg's best for the
 * same random state) and keeps the best result. Only improving moves are applied (best-improving: each round
 * evaluates every move and applies the best one), until no move improves or {@value #MAX_ROUNDS} rounds have passed.
 *
 * <p>{@code rg-ls} ranks moves as {@code andreas-rg} ranks its constructions, by the waste objective f_W
 * ({@link org.gpusched.core.objective.WasteObjective}), and where andreas-rg keeps the deterministic greedy's plan
 * (moves cost time and some job is short of time, {@link AndreasRandomizedGreedyPolicy}) it returns that plan
 * without a search, for the same reason. The thesis reads moves by f_OBJ: that reading stays in the variants below,
 * which start from {@code andreas-rg-fobj}.
 *
 * <p><b>Run-cost guard</b> (ours, only in {@value #GUARDED_NAME}, by f_OBJ): a move is kept only if it also does not
 * raise the schedule's run cost ({@link RunCostGuard}), and of the improved starts only those whose run cost is at
 * most andreas-rg's own schedule's compete. It is not the default: on whole runs of the hierarchical protocol it was
 * dearer than plain rg-ls on 3 of 4 instances measured (docs/gpuscheduler-comparison.md).
 *
 * <p>Shrink-and-insert (ours, <b>not from the thesis</b>, only in {@value #SHRINK_AND_INSERT_NAME}, by f_OBJ):
 * {@link ShrinkAndInsertNeighbourhood}. It is off by default because whole runs pay for it: it shrinks running jobs so
 * that postponed ones start now (f_OBJ prices a postponed job at rho x its worst-case tardiness), the shrunk jobs end
 * late, and the next events preempt and restart jobs back and forth (ANDREAS small, N = 10, seed 3, papers' setting:
 * 20 late jobs and 465 preemptions against andreas-rg's none and 100; docs/gpuscheduler-comparison.md).
 *
 * <p>Work-conserving (the default, {@link PolicyConfig#workConserving()}): the search never returns a schedule that
 * leaves a job waiting while some node could host it ({@link WorkConservation}). Each start is made work-conserving
 * first ({@link WorkConservation#fill}; the randomized greedy's schedules normally are already, since it postpones a
 * job only when no configuration of it fits), and a move is kept only if the schedule it yields is work-conserving
 * too ({@link WorkConservingMoves}): it may not postpone a job that fits somewhere, nor free room (idle GPUs, a node
 * switched off) that a waiting job fits in.
 *
 * <p>A move is kept only when the job has a time for its new configuration and no node exceeds its capacity.
 * Deterministic: all randomness is in the randomized greedy; ties keep the earlier move and the earlier start, and
 * objective values within a relative 1e-9 of each other are ties ({@link #beats}). Not thread-safe (scratch memory is
 * reused across calls): one instance per caller.
 */
public final class LocalSearchPolicy implements SchedulingPolicy {
    public static final String NAME = "rg-ls";
    /** rg-ls by f_OBJ with every move also guarded by the run cost ({@link RunCostGuard}). */
    public static final String GUARDED_NAME = "rg-ls-guarded";
    /** rg-ls by f_OBJ plus our shrink-and-insert neighbourhood. */
    public static final String SHRINK_AND_INSERT_NAME = "rg-ls-sni";
    /** Upper bound on improving moves per start, so a call's time stays bounded on large queues. */
    public static final int MAX_ROUNDS = 200;

    private final PolicyConfig config;
    private final AndreasRandomizedGreedyPolicy randomizedGreedy;
    private final LocalSearch search;

    private final String name;

    /** rg-ls: the thesis' seven neighbourhoods from andreas-rg's best schedules, moves ranked by f_W. */
    public LocalSearchPolicy(PolicyConfig config) {
        this(config, Ranking.WASTE, false, false, NAME);
    }

    private LocalSearchPolicy(
            PolicyConfig config, Ranking ranking, boolean shrinkAndInsert, boolean runCostGuard, String name) {
        this.config = config == null ? PolicyConfig.DEFAULTS : config;
        this.randomizedGreedy = ranking == Ranking.WASTE
                ? new AndreasRandomizedGreedyPolicy(this.config)
                : AndreasRandomizedGreedyPolicy.byFObj(this.config);
        this.search = new LocalSearch(ranking, shrinkAndInsert, this.config.workConserving(), runCostGuard);
        this.name = name;
    }

    /** {@value #SHRINK_AND_INSERT_NAME}: the thesis' seven and our shrink-and-insert neighbourhood, by f_OBJ. */
    public static LocalSearchPolicy withShrinkAndInsert(PolicyConfig config) {
        return new LocalSearchPolicy(config, Ranking.F_OBJ, true, false, SHRINK_AND_INSERT_NAME);
    }

    /** {@value #GUARDED_NAME}: the thesis' seven neighbourhoods by f_OBJ, moves also guarded by the run cost. */
    public static LocalSearchPolicy guarded(PolicyConfig config) {
        return new LocalSearchPolicy(config, Ranking.F_OBJ, false, true, GUARDED_NAME);
    }

    @Override
    public String name() {
        return name;
    }

    /**
     * The best of the improved starts by the ranking (guarded: among those whose run cost is at most the first
     * start's); under deadline pressure with moves charged (f_W), andreas-rg's plan, the deterministic greedy's.
     */
    @Override
    public Schedule schedule(SchedulingProblem problem, RandomState random) {
        List<Schedule> starts = randomizedGreedy.bestSolutions(problem, random, config.localSearchKeep());
        if (randomizedGreedy.keepsGreedysPlan(problem)) return starts.get(0);
        Schedule best = null;
        double bestValue = Double.POSITIVE_INFINITY;
        double bound = Double.POSITIVE_INFINITY;
        for (Schedule start : starts) {
            Schedule from = config.workConserving() ? WorkConservation.fill(problem, start) : start;
            Schedule improved = search.improve(problem, from, config.localSearchK());
            RunCostGuard guard = search.runCostGuard;
            if (guard != null) {
                if (best == null) bound = guard.startRunCost + roundingSlack(guard.startRunCost);
                else if (guard.resultRunCost > bound) continue;
            }
            double value = search.ranking.of(problem, improved);
            if (best == null || beats(value, bestValue)) {
                best = improved;
                bestValue = value;
            }
        }
        return best;
    }

    /**
     * Whether objective {@code a} is lower than {@code b} by more than rounding: a relative 1e-9, the threshold a
     * move has to clear too. Starts whose results differ only in the last bits are ties, and ties keep the earlier
     * start, andreas-rg's own; a strict comparison once let a 1e-16 relative difference replace it, and the whole run
     * then followed a different plan.
     */
    static boolean beats(double a, double b) {
        return a < b - roundingSlack(b);
    }

    /** What rounding may move a sum of about {@code value}: differences below it are no differences. */
    static double roundingSlack(double value) {
        return 1e-9 * Math.max(1, Math.abs(value));
    }

    /**
     * The local search alone from any feasible schedule of {@code problem}, not work-conserving, moves ranked by
     * f_OBJ alone: never worse than {@code start}.
     */
    static Schedule improve(SchedulingProblem problem, Schedule start, int k) {
        return improve(problem, start, k, true, false);
    }

    /**
     * The same, with or without our shrink-and-insert neighbourhood and the work-conserving rule; with it,
     * {@code start} must be work-conserving (the moves keep it so; they do not repair it).
     */
    static Schedule improve(
            SchedulingProblem problem, Schedule start, int k, boolean shrinkAndInsert, boolean workConserving) {
        return improve(problem, start, k, shrinkAndInsert, workConserving, false);
    }

    /** The same, with or without the run-cost guard ({@link RunCostGuard}). */
    static Schedule improve(
            SchedulingProblem problem,
            Schedule start,
            int k,
            boolean shrinkAndInsert,
            boolean workConserving,
            boolean runCostGuard) {
        return new LocalSearch(Ranking.F_OBJ, shrinkAndInsert, workConserving, runCostGuard).improve(problem, start, k);
    }
}
