package org.gpusched.core.policy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
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
 *       GPUs that buy nothing). A call ranked by f_W that searches (andreas-rg's MaxIt > 1) with moves free (the
 *       papers' setting) post-processes by f_W instead, its own departure from the thesis
 *       ({@link WastePostProcessing}): jobs that scale move to the nodes left
 *       with idle GPUs, and a node's idle GPUs are split among its jobs as f_W is lowest. The thesis' step (2) gives
 *       a node's idle GPUs to the highest speed-up, which is all of them to one job however little each adds, and
 *       a node left with idle GPUs holds whatever the pressure order put last on it.</li>
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
 * <p>Performance: everything a job needs (its configurations, cost per configuration, its best candidates with their
 * f_OBJ change, its best configuration per type and GPU budget) is computed once per call, on the engine's threads
 * for a large call (the f_OBJ change of a configuration not among the candidates only when a construction needs it); iterations reuse
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
    /** Randomized iterations of a worker after which its memo is dropped for the rest of the call unless it saved some. */
    private static final int MEMO_TRIAL = 32;

    private static final int MEMO_MIN_HITS = 4;
    /** Iterations a worker claims at a time: few enough to balance the workers, enough to claim rarely. */
    private static final int CHUNK = 8;
    /**
     * Iterations between two checks of a call's iterations-without-gain rule: a call stops at most this many
     * iterations after its best became old enough, so a short period wastes little; the iterations of a check's
     * block are shared by the workers in smaller claims when the call is large enough to split.
     */
    static final int GAIN_CHECK = 8;
    /**
     * Below this many jobs x randomized iterations a call runs on the caller's thread: a hand-off costs about as much
     * as that many job placements.
     */
    private static final int PARALLEL_MIN_WORK = 4096;

    /** Workers beyond the caller's thread, shared by every engine of the JVM; daemon threads, ended when idle. */
    private static final ExecutorService HELPERS = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "gpusched-optimizer");
        t.setDaemon(true);
        return t;
    });

    private final boolean useDrawMemo;
    private final int threads;
    private final Ranking ranking;
    /**
     * This call's post-processing: by f_W ({@link WastePostProcessing}) when its constructions are ranked by f_W, it
     * searches and moves are free. A call of one construction is the deterministic greedy's plan, post-processed as
     * the thesis does. With moves charged f_W weighs a resize's restore, paid once, against what the GPUs add over H
     * only, so it leaves idle GPUs on paid nodes that the thesis' rule puts to work; over whole runs that cost more
     * (docs/results.md).
     */
    private boolean wastePostProcessing;

    private final NodeOpening opening;
    private final ProblemTables tables = new ProblemTables();
    private final JobConfigurations configs = new JobConfigurations();
    private final SolutionPool pool = new SolutionPool();
    private final List<Worker> workers = new ArrayList<>();
    private final AtomicInteger nextIteration = new AtomicInteger();
    /** Set by a worker whose memo has seen every draw outcome: the iterations left would only repeat. */
    private volatile boolean allDrawsSeen;
    /** Iterations a worker claims at a time in this call ({@link #CHUNK}, less when a block is shorter). */
    private int chunk = CHUNK;

    private int memoHits;
    private int lastIterations;

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
        this(useDrawMemo, opening, 1);
    }

    /**
     * @param threads how many threads may run the randomized iterations of one call (the caller's included); the
     *     result does not depend on it
     */
    GreedyEngine(boolean useDrawMemo, NodeOpeningRule opening, int threads) {
        this(useDrawMemo, opening, threads, Ranking.F_OBJ);
    }

    /** @param ranking what the constructions are ranked by ({@link Ranking#F_OBJ}: the papers' f_OBJ) */
    GreedyEngine(boolean useDrawMemo, NodeOpeningRule opening, int threads, Ranking ranking) {
        if (threads < 1) throw new IllegalArgumentException("threads must be >= 1, got " + threads);
        this.useDrawMemo = useDrawMemo;
        this.threads = threads;
        this.opening = new NodeOpening(opening);
        this.ranking = ranking;
    }

    /**
     * Iterations of the last call that repeated an earlier one and were skipped (for tests and benchmarks; with
     * several threads, the count depends on how the iterations fell to the workers).
     */
    int lastMemoHits() {
        return memoHits;
    }

    /**
     * Iterations the last call ran or knew the outcome of, the deterministic one included: fewer than asked when the
     * iterations-without-gain rule stopped it.
     */
    int lastIterations() {
        return lastIterations;
    }

    /**
     * Runs {@code iterations} constructions (the first deterministic) and returns up to {@code keepBest} distinct
     * schedules, best f_OBJ first. When there are randomized iterations, {@code random} is advanced by exactly one
     * draw, which seeds every iteration's own stream; otherwise it is not touched.
     */
    List<Schedule> run(SchedulingProblem problem, RandomState random, int iterations, int keepBest, boolean bestFit) {
        return run(problem, random, iterations, 0, keepBest, bestFit);
    }

    /**
     * As {@link #run(SchedulingProblem, RandomState, int, int, boolean)}, stopping early once {@code withoutGain}
     * iterations in a row have built nothing better than the best so far (0: never). The rule is checked every
     * {@value #GAIN_CHECK} iterations, after all iterations before the check have run, so where a call stops does
     * not depend on the thread count; {@code random} is advanced by one draw whether the call stops early or not.
     */
    List<Schedule> run(
            SchedulingProblem problem,
            RandomState random,
            int iterations,
            int withoutGain,
            int keepBest,
            boolean bestFit) {
        if (iterations < 1) throw new IllegalArgumentException("iterations must be >= 1, got " + iterations);
        if (keepBest < 1) throw new IllegalArgumentException("keep must be >= 1, got " + keepBest);
        if (withoutGain < 0) throw new IllegalArgumentException("withoutGain must be >= 0, got " + withoutGain);
        tables.prepare(problem);
        opening.prepareCatalog(problem.cluster());
        configs.prepare(problem, tables, opening, ranking, HELPERS, threads);
        pool.prepare(tables.jobs, tables.nodes, keepBest);
        memoHits = 0;
        lastIterations = 1;
        wastePostProcessing = ranking == Ranking.WASTE && iterations > 1 && !problem.chargesMoves();
        Worker first = worker(0);
        GreedyConstruction greedy = first.prepare(keepBest);
        pool.offer(greedy.construct(null, bestFit), 0, greedy);
        if (iterations > 1) {
            pool.keepGreedy(greedy);
            greedy.reset();
            long seed = random.nextLong();
            // how many workers share a block depends on the block's work only; what the call returns does not
            int block = withoutGain == 0 ? iterations - 1 : Math.min(GAIN_CHECK, iterations - 1);
            int count = (long) tables.jobs * block < PARALLEL_MIN_WORK ? 1 : Math.min(threads, block);
            runIterations(count, seed, iterations, block, withoutGain, keepBest, bestFit);
        } else {
            greedy.reset();
        }
        List<Schedule> result = pool.schedules(problem, ranking);
        tables.release();
        configs.release();
        return result;
    }

    /**
     * Iterations 1..iterations-1 on {@code count} workers, the caller's thread being the first; pools merged. They run
     * in blocks of {@code block} iterations: all at once without a {@code withoutGain} rule, else {@value #GAIN_CHECK}
     * at a time, the rule checked between blocks.
     */
    private void runIterations(
            int count, long seed, int iterations, int block, int withoutGain, int keepBest, boolean bestFit) {
        for (int w = 1; w < count; w++) worker(w).prepare(keepBest);
        chunk = Math.max(1, Math.min(CHUNK, block / count));
        allDrawsSeen = false;
        int from = 1;
        while (from < iterations && !allDrawsSeen) {
            int to = (int) Math.min(iterations, (long) from + block);
            runBlock(count, seed, from, to, bestFit);
            lastIterations = to;
            from = to;
            if (withoutGain > 0 && to - 1 - bestIteration(count) >= withoutGain) break;
        }
        if (allDrawsSeen) {
            // the blocks not run would each have repeated an earlier iteration, as in a call of one block
            memoHits += iterations - lastIterations;
            lastIterations = iterations;
        }
        for (int w = 0; w < count; w++) {
            pool.offerAll(workers.get(w).pool);
            memoHits += workers.get(w).memoHits;
        }
    }

    /** Iterations [from, to) on {@code count} workers. */
    private void runBlock(int count, long seed, int from, int to, boolean bestFit) {
        nextIteration.set(from);
        List<Future<?>> helpers = new ArrayList<>(count - 1);
        for (int w = 1; w < count; w++) {
            Worker worker = workers.get(w);
            helpers.add(HELPERS.submit(() -> {
                try {
                    worker.iterate(seed, to, bestFit);
                } catch (RuntimeException e) {
                    nextIteration.set(to); // the others stop at their next claim
                    throw e;
                }
            }));
        }
        RuntimeException failure = null;
        try {
            workers.get(0).iterate(seed, to, bestFit);
        } catch (RuntimeException e) {
            nextIteration.set(to);
            failure = e;
        }
        HelperTasks.awaitAll(helpers, failure, "optimizing");
    }

    /** The iteration that built the best schedule so far (0: the deterministic greedy), over every worker's pool. */
    private int bestIteration(int count) {
        long bestValue = pool.bestObjective();
        int best = pool.bestIteration();
        for (int w = 0; w < count; w++) {
            SolutionPool p = workers.get(w).pool;
            if (p.size() == 0) continue;
            long f = p.bestObjective();
            int it = p.bestIteration();
            if (SolutionPool.ranksBefore(f, it, bestValue, best)) {
                bestValue = f;
                best = it;
            }
        }
        return best;
    }

    private Worker worker(int w) {
        while (workers.size() <= w) workers.add(new Worker());
        return workers.get(w);
    }

    /**
     * The randomized iterations one thread runs: it claims them in chunks, in increasing order, each construction on
     * its own stream {@code RandomState.derive(seed, iteration)}, so what an iteration builds does not depend on which
     * worker runs it; its pool keeps each schedule with the first iteration that built it, and its memo skips
     * only iterations that repeat one of its own earlier ones.
     */
    private final class Worker {
        final GreedyConstruction construction = new GreedyConstruction(opening);
        final DrawMemo memo = new DrawMemo(MEMO_NODES);
        final SolutionPool pool = new SolutionPool();
        int memoHits;
        private boolean memoActive;
        private int tried;

        GreedyConstruction prepare(int keepBest) {
            construction.prepare(tables, configs, wastePostProcessing);
            pool.prepare(tables.jobs, tables.nodes, keepBest);
            memo.clear();
            memoHits = 0;
            memoActive = useDrawMemo;
            tried = 0;
            return construction;
        }

        /** Claims and runs iterations until none below {@code limit} is left. */
        void iterate(long seed, int limit, boolean bestFit) {
            int claim = chunk;
            for (int from = nextIteration.getAndAdd(claim); from < limit; from = nextIteration.getAndAdd(claim)) {
                for (int it = from, to = Math.min(limit, from + claim); it < to; it++) {
                    RandomState random = RandomState.derive(seed, it);
                    if (memoActive) {
                        if (memo.complete()) {
                            // every draw outcome was seen: each iteration not yet run repeats one of this worker's
                            memoHits += to - it + Math.max(0, limit - nextIteration.getAndSet(limit));
                            allDrawsSeen = true;
                            return;
                        }
                        int drawn = memo.walk(random);
                        if (drawn < 0) {
                            memoHits++;
                            continue;
                        }
                        construction.replayThenRecord(memo, drawn, !memo.full());
                    }
                    long f = construction.construct(random, bestFit);
                    if (memoActive) {
                        construction.endReplay();
                        if (++tried == MEMO_TRIAL && memoHits < MEMO_MIN_HITS) memoActive = false;
                    }
                    pool.offer(f, it, construction);
                    construction.reset();
                }
            }
        }
    }
}
