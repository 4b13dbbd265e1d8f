package org.gpusched.core.policy;

import java.util.List;
import org.gpusched.core.model.Schedule;
import org.gpusched.core.model.SchedulingProblem;
import org.gpusched.core.objective.ObjectiveFunction;
import org.gpusched.core.random.RandomState;

/**
 * The construction shared by {@code greedy} and {@code andreas-rg}: the thesis' greedy (pre-processing, scheduling,
 * post-processing, thesis 3.1.3) and its randomized variant (ANDREAS Section IV.B, Algorithm 1; thesis 3.1.4),
 * repeated and keeping the best solutions by f_OBJ.
 *
 * <p>Readings of the papers chosen here (the papers leave them open):
 * <ul>
 *   <li>A configuration is (node type, g). Nodes of one type are interchangeable for f_OBJ, so the best configuration
 *       is chosen per type and the node afterwards: first the job's current node if it is open as that type with room
 *       (a migration gains nothing in f_OBJ), then an open node (first fit = lowest index, best fit = fewest idle GPUs
 *       after placement, thesis Fig. 3.3), then a node switched on for it (thesis step (b); for a rightsizable node
 *       this is where its VM type is chosen). How configurations are priced for this choice, whether open nodes of
 *       another type of the same GPU model take the job, and which VM a node is switched on as is the
 *       {@link NodeOpeningRule} ({@link NodeOpening}); randomized iterations under {@link NodeOpeningRule#PACKED} draw the VM
 *       size among the GPU model's types, with weight 1 / price per GPU the queue can fill. Nodes switched on prefer,
 *       in order: the job's own current node, the lowest-index node hosting no running job, a node whose running jobs
 *       already run as that type, then the rest; so a waiting job does not evict running ones from their node without
 *       need.</li>
 *   <li>Sub-optimal assignment (thesis (c), ANDREAS step 2): the job's other configurations in preference order
 *       (those meeting the due date by cost, then the others by time) on open nodes; if none fits, the same on a
 *       node switched on for it (needed on fixed heterogeneous clusters where no node of the best type is left); else
 *       the job is postponed.</li>
 *   <li>Randomization: adjacent swaps in the pressure-sorted list, the job at a position moving back with
 *       probability {@value #SWAP_SCALE} x w_min / w_j (inversely proportional to its tardiness weight, w_min the
 *       smallest positive weight of the queue); the configuration drawn among the {@value #CANDIDATES} best with
 *       probability inversely proportional to its cost r x c(g) (or to its remaining time when no configuration meets
 *       the due date, the criterion that defines "best" there); with best fit, the node drawn among the
 *       {@value #CANDIDATES} most saturating with probability inversely proportional to 1 + idle GPUs left.</li>
 *   <li>Post-processing, per open node with idle GPUs: (1) an equivalent smaller configuration: a rightsizable node
 *       moves to the type with the same GPU model and fewer GPUs that still holds its jobs and lowers the node's
 *       share of f_OBJ most; (2) the idle GPUs go, one move at a time, to the job and GPU count with the highest
 *       speed-up r(g)/r(g'), only where the job has a time for g', and only while the node's share of f_OBJ does
 *       not grow (the thesis applies it unconditionally; the guard keeps energy-priced nodes from paying for
 *       GPUs that buy nothing).</li>
 *   <li>Running jobs are re-decided like waiting ones at every call (ANDREAS: preemption, resizing and migration are
 *       free in f_OBJ), but ties favour the status quo: among configurations of equal cost (or equal time when
 *       late) the job's current one comes first, and its current node is preferred as described above, so a job is
 *       not moved when moving gains nothing.</li>
 *   <li>The ranking objective is f_OBJ in fixed point (1e-6 cost units; coarser only when 64-bit sums could
 *       overflow) so that the same schedule reached in two
 *       iterations ranks the same; equal values keep the earlier iteration. Returned schedules carry the exact
 *       {@link ObjectiveFunction} value.</li>
 *   <li>Iteration 0 is the deterministic greedy, so the best of MaxIt iterations is never worse than greedy.</li>
 * </ul>
 *
 * <p>Performance: everything a job needs (its configurations, tardiness and cost per configuration, its best
 * candidates, its best configuration per type and GPU budget) is computed once per call; iterations reuse
 * preallocated arrays and undo only what they touched; open nodes are indexed by type and free GPUs (bitsets), off
 * nodes by candidate-type class; the construction stops as soon as no GPU is left; f_OBJ is summed in fixed point
 * from per-configuration terms. An iteration is never cut short on a partial f_OBJ bound: its remaining random draws
 * would then not be consumed, so every later iteration (and the caller's next call) would see a different random
 * stream and the decisions would change. An iteration whose draws repeat an earlier one's is recognized by them and
 * skipped ({@link DrawMemo}); once every draw outcome has been seen, the remaining iterations only advance the random
 * state. Both leave the result and the random stream exactly as without them, and make the small problems of K local
 * controllers nearly free. Not thread-safe: one engine per policy instance.
 *
 * <p>Parts, by lifetime: {@link ProblemTables} (the cluster, per call), {@link JobConfigurations} (the jobs'
 * configurations, per call), {@link GreedyConstruction} with its {@link NodePool} and {@link PostProcessing} (one
 * construction, reset between iterations) and {@link SolutionPool} (the best distinct schedules of the call).
 */
final class GreedyEngine {
    static final double SWAP_SCALE = 0.25;
    static final int CANDIDATES = 3;

    /** Trie nodes the draw memo may grow to in one call (a few MB at most). */
    private static final int MEMO_NODES = 1 << 16;
    /** Randomized iterations after which the memo is dropped for the rest of the call unless it saved some. */
    private static final int MEMO_TRIAL = 64;

    private static final int MEMO_MIN_HITS = 8;

    private final boolean useDrawMemo;
    private final DrawMemo memo = new DrawMemo(MEMO_NODES);
    private int memoHits;
    private final NodeOpening opening;
    private final ProblemTables tables = new ProblemTables();
    private final JobConfigurations configs = new JobConfigurations();
    private final GreedyConstruction construction;
    private final SolutionPool pool = new SolutionPool();

    GreedyEngine() {
        this(true, NodeOpeningRule.DEFAULT);
    }

    GreedyEngine(NodeOpeningRule opening) {
        this(true, opening);
    }

    /** @param useDrawMemo whether repeated iterations are recognized by their draws ({@link DrawMemo}); same result */
    GreedyEngine(boolean useDrawMemo) {
        this(useDrawMemo, NodeOpeningRule.DEFAULT);
    }

    GreedyEngine(boolean useDrawMemo, NodeOpeningRule opening) {
        this.useDrawMemo = useDrawMemo;
        this.opening = new NodeOpening(opening);
        this.construction = new GreedyConstruction(this.opening);
    }

    /** Iterations of the last call that repeated an earlier one and were skipped (for tests and benchmarks). */
    int lastMemoHits() {
        return memoHits;
    }

    /**
     * Runs {@code iterations} constructions (the first deterministic) and returns up to {@code keepBest} distinct
     * schedules, best f_OBJ first. {@code random} is advanced only by randomized iterations.
     */
    List<Schedule> run(SchedulingProblem problem, RandomState random, int iterations, int keepBest, boolean bestFit) {
        if (iterations < 1) throw new IllegalArgumentException("iterations must be >= 1, got " + iterations);
        if (keepBest < 1) throw new IllegalArgumentException("keep must be >= 1, got " + keepBest);
        tables.prepare(problem);
        opening.prepareCatalog(problem.cluster());
        configs.prepare(problem, tables, opening);
        construction.prepare(tables, configs);
        pool.prepare(tables.jobs, tables.nodes, keepBest);
        boolean memoActive = useDrawMemo && iterations > 1;
        memo.clear();
        memoHits = 0;
        for (int it = 0; it < iterations; it++) {
            boolean randomized = it > 0;
            if (randomized && memoActive) {
                int every = memo.drawsOfEveryIteration();
                if (every >= 0) {
                    // every further iteration repeats one already offered: only the random state has to move on
                    random.skip((long) (iterations - it) * every);
                    memoHits += iterations - it;
                    break;
                }
                int drawn = memo.walk(random);
                if (drawn < 0) {
                    memoHits++;
                    continue;
                }
                construction.replayThenRecord(memo, drawn, !memo.full());
            }
            long f = construction.construct(randomized ? random : null, bestFit);
            if (randomized && memoActive) {
                construction.endReplay();
                if (it == MEMO_TRIAL && memoHits < MEMO_MIN_HITS) memoActive = false;
            }
            pool.offer(f, it, construction);
            if (it == 0 && iterations > 1) pool.keepGreedy(construction);
            construction.reset();
        }
        List<Schedule> result = pool.schedules(problem);
        tables.release();
        return result;
    }
}
