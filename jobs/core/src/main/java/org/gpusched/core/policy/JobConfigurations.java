package org.gpusched.core.policy;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.gpusched.core.model.Placement;
import org.gpusched.core.model.SchedulingProblem;
import org.gpusched.core.objective.WasteObjective;

/**
 * Everything a job needs in a construction, computed once per call: its configurations (type, GPUs) with remaining
 * time, cost and ranking price; its best {@link GreedyEngine#CANDIDATES} with their draw weights and f_OBJ change
 * against postponing it; its postponement penalty and swap probability; the pressure order of the queue; and, built
 * the first time a sub-optimal assignment needs it, the job's full preference order and its best configuration per
 * type and GPU budget. The f_OBJ change of any other configuration ({@link #deltaUnits}) is priced when a construction
 * falls back to it: a call re-decides hundreds of running jobs, and their move charges on every configuration were
 * most of a call's preparation. The per-job part runs on the engine's threads for large calls, each job in its own
 * slots, so the tables are the same whatever the thread count. Read-only during the constructions but for the lazy
 * part, which is safe to build from several threads (each job's part is written once, under a lock, and published).
 */
final class JobConfigurations {
    static final int K = GreedyEngine.CANDIDATES;
    static final long NONE = Long.MAX_VALUE;
    /** Below this many jobs the per-job part runs on the caller's thread alone: a hand-off costs more. */
    static final int PARALLEL_MIN_JOBS = 256;
    /** Jobs a pass claims at a time. */
    private static final int JOB_CHUNK = 32;
    /** Fixed-point resolution of the ranking objective: 1e-6 cost units (coarser only when sums could overflow). */
    static final double UNITS_PER_COST = 1e6;
    /** Largest f_OBJ magnitude in units, far enough below 2^63 that sums of rounded terms cannot overflow. */
    private static final double MAX_UNITS = 1e17;

    private static final VarHandle SORTED = MethodHandles.arrayElementVarHandle(int[].class);

    private ProblemTables tables;
    private SchedulingProblem problem;
    int[] jobCurNode = new int[0], jobCurType = new int[0], jobCurG = new int[0];
    double[] weight = new double[0], due = new double[0], postponedPenalty = new double[0];
    double[] swapProbability = new double[0];
    int[] minGpus = new int[0];
    /** Job j's configurations are c in [j x {@link #slots}, cfgEnd[j]): its own slots, on time first. */
    int[] cfgEnd = new int[0];
    /** Slots per job: the most configurations a job can have in the call. */
    private int slots;

    int[] dueCount = new int[0];
    int[] cfgType = new int[0], cfgGpus = new int[0];
    double[] cfgTime = new double[0], cfgCost = new double[0];
    /** What ranks configuration c among its job's others: its cost under the opening rule's pricing. */
    double[] cfgPref = new double[0];

    private int[] cfgOrder = new int[0];
    /** Per-job passes, the first on the caller's thread; the others borrow the engine's helpers. */
    private final List<JobPass> passes = new ArrayList<>();

    private final AtomicInteger nextJob = new AtomicInteger();
    private volatile boolean passesReleased;
    /** Position of a configuration in its job's preference order (valid once the job's list is sorted). */
    private int[] cfgRank = new int[0];
    /**
     * [(j * types + t) * stride + g]: job j's most preferred configuration on type t using at most g GPUs, packed as
     * (rank << 32 | configuration) so that the smaller value is the preferred one; NONE if there is none. Lets the
     * sub-optimal assignment look at each type once instead of at every configuration.
     */
    private long[] bestUpTo = new long[0];
    /** Per job, 1 once its full preference order and bestUpTo rows are built (read with acquire, set with release). */
    private int[] cfgSorted = new int[0];

    private final Object sortLock = new Object();
    int[] top = new int[0];
    /** Per job, the data of its best K configurations side by side (the hot path reads only these). */
    double[] topCumWeight = new double[0], topCost = new double[0];

    int[] topType = new int[0], topGpus = new int[0];
    long[] topDelta = new long[0];
    /**
     * Under {@link Ranking#WASTE}, each top configuration's {@link #progressUnits} at its time as the preparation
     * prices it ({@link #cfgTime}: where it runs for its current configuration, else moved); a construction that
     * migrates a job on its current configuration prices that itself.
     */
    long[] topProgress = new long[0];

    int[] topCount = new int[0];
    /** The jobs by pressure descending (ANDREAS eq. 2), ties by job index. */
    int[] sortedJobs = new int[0];
    /** [i]: the fewest GPUs any job from position i of {@link #sortedJobs} on can run with (a job with none: MAX). */
    int[] suffixMinGpus = new int[0];

    private final IndexSort sorter = new IndexSort();
    private double[] sortKey = new double[0];
    long postponedTotal;
    /**
     * Whether f_OBJ charges moves ({@link SchedulingProblem#chargesMoves}): then a running job's configurations other
     * than its current one take the time the move loses and its charge, and its postponement the preemption's.
     */
    boolean chargesMoves;

    double unitsPerCost = UNITS_PER_COST;
    long[] postponedUnits = new long[0];
    /** What the constructions are ranked by. */
    Ranking ranking = Ranking.F_OBJ;

    /**
     * Under {@link Ranking#WASTE}, f_W's term of a node of type t with u busy GPUs, in units: [t x stride + u]. The
     * constructions add it for every node they open, and every iteration opens the same few types.
     */
    long[] nodeSpendUnits = new long[0];

    void prepare(SchedulingProblem p, ProblemTables tables, NodeOpening opening) {
        prepare(p, tables, opening, Ranking.F_OBJ, null, 1);
    }

    /**
     * @param helpers threads the per-job part may borrow when {@code threads} > 1 (null: the caller's alone); the
     *     tables do not depend on it
     */
    void prepare(
            SchedulingProblem p,
            ProblemTables tables,
            NodeOpening opening,
            Ranking ranking,
            ExecutorService helpers,
            int threads) {
        this.tables = tables;
        this.problem = p;
        this.ranking = ranking;
        int jobs = tables.jobs;
        int count =
                helpers == null || threads < 2 || jobs < PARALLEL_MIN_JOBS ? 1 : Math.min(threads, jobs / JOB_CHUNK);
        // handed off first: a parked helper takes about as long to wake as the serial part below takes
        List<Future<?>> others = startPasses(count, helpers, p, opening);
        try {
            sizeTablesAndScale(p, opening);
        } catch (RuntimeException | Error e) {
            nextJob.set(jobs); // the helpers' passes, released, find nothing left
            passesReleased = true;
            throw e;
        }
        runPasses(others, p, opening);
        double minPositiveWeight = Double.POSITIVE_INFINITY;
        postponedTotal = 0;
        for (int i = 0; i < count; i++) {
            minPositiveWeight = Math.min(minPositiveWeight, this.passes.get(i).minPositiveWeight);
            postponedTotal += this.passes.get(i).postponedTotal;
        }
        if (opening.active()) {
            for (int j = 0; j < jobs; j++) if (topCount[j] > 0) opening.wants(topType[j * K], topGpus[j * K]);
        }
        for (int j = 0; j < jobs; j++) {
            swapProbability[j] = minPositiveWeight == Double.POSITIVE_INFINITY || weight[j] <= 0
                    ? GreedyEngine.SWAP_SCALE
                    : GreedyEngine.SWAP_SCALE * minPositiveWeight / weight[j];
        }

        // pre-processing: pressure descending (ANDREAS eq. 2), ties by job index
        sortedJobs = GreedyArrays.grow(sortedJobs, jobs);
        sortKey = GreedyArrays.grow(sortKey, jobs);
        for (int j = 0; j < jobs; j++) {
            sortedJobs[j] = j;
            sortKey[j] = p.pressure(j);
        }
        sorter.sort(sortedJobs, jobs, sortKey, true);
        suffixMinGpus = GreedyArrays.grow(suffixMinGpus, jobs + 2);
        suffixMinGpus[jobs] = Integer.MAX_VALUE;
        suffixMinGpus[jobs + 1] = Integer.MAX_VALUE;
        for (int i = jobs - 1; i >= 0; i--) suffixMinGpus[i] = Math.min(suffixMinGpus[i + 1], minGpus[sortedJobs[i]]);
        // the lazily built parts are published per job: make the reset flags visible before any construction reads
        VarHandle.releaseFence();
    }

    /**
     * Grows the tables to the call's jobs and picks the fixed-point scale ({@link #unitsPerCost}) from an upper bound
     * of |f_OBJ| for any schedule: 1e-6 unless that could overflow.
     */
    private void sizeTablesAndScale(SchedulingProblem p, NodeOpening opening) {
        int jobs = tables.jobs, types = tables.types, stride = tables.stride;
        int[] typeGpus = tables.typeGpus;
        double now = tables.now, rho = tables.rho, mu = tables.mu;
        opening.prepareJobs(jobs);
        jobCurNode = GreedyArrays.grow(jobCurNode, jobs);
        jobCurType = GreedyArrays.grow(jobCurType, jobs);
        jobCurG = GreedyArrays.grow(jobCurG, jobs);
        weight = GreedyArrays.grow(weight, jobs);
        due = GreedyArrays.grow(due, jobs);
        postponedPenalty = GreedyArrays.grow(postponedPenalty, jobs);
        postponedUnits = GreedyArrays.grow(postponedUnits, jobs);
        swapProbability = GreedyArrays.grow(swapProbability, jobs);
        minGpus = GreedyArrays.grow(minGpus, jobs);
        dueCount = GreedyArrays.grow(dueCount, jobs);
        cfgSorted = GreedyArrays.grow(cfgSorted, jobs);
        top = GreedyArrays.grow(top, jobs * K);
        topCumWeight = GreedyArrays.grow(topCumWeight, jobs * K);
        topCost = GreedyArrays.grow(topCost, jobs * K);
        topType = GreedyArrays.grow(topType, jobs * K);
        topGpus = GreedyArrays.grow(topGpus, jobs * K);
        topDelta = GreedyArrays.grow(topDelta, jobs * K);
        if (ranking == Ranking.WASTE) topProgress = GreedyArrays.grow(topProgress, jobs * K);
        topCount = GreedyArrays.grow(topCount, jobs);
        cfgEnd = GreedyArrays.grow(cfgEnd, jobs);

        int perJob = 0;
        for (int t = 0; t < types; t++) if (p.typeAvailable(t)) perJob += typeGpus[t];
        int capacity = jobs * perJob;
        cfgType = GreedyArrays.grow(cfgType, capacity);
        cfgGpus = GreedyArrays.grow(cfgGpus, capacity);
        cfgTime = GreedyArrays.grow(cfgTime, capacity);
        cfgCost = GreedyArrays.grow(cfgCost, capacity);
        cfgPref = GreedyArrays.grow(cfgPref, capacity);
        cfgOrder = GreedyArrays.grow(cfgOrder, capacity);
        cfgRank = GreedyArrays.grow(cfgRank, capacity);
        bestUpTo = GreedyArrays.grow(bestUpTo, jobs * types * stride);

        double horizon = p.parameters().horizonSeconds();
        chargesMoves = p.chargesMoves();
        double maxRate = 0;
        for (int i = 0; i < types * stride; i++) maxRate = Math.max(maxRate, tables.rate[i]);
        double bound = 1 + mu * tables.nodes * tables.maxG;
        // f_W's node terms: at most every node's H x its dearest rate, and as much again in progress value per GPU
        if (ranking == Ranking.WASTE)
            bound += (tables.nodes + (double) jobs * tables.maxG) * horizon / 3600.0 * maxRate;
        for (int j = 0; j < jobs; j++) {
            var job = p.job(j).job();
            double slowest = p.slowestRemaining(j);
            double charge = 0;
            if (chargesMoves) {
                // after a move a job needs at most its postponed M_j; its charge is rho x weight x at most that
                slowest = p.postponedRemaining(j);
                charge = rho * job.weightPerHour() * slowest / 3600.0;
            }
            bound += (1 + rho) * job.weightPerHour() * Math.max(0, now + horizon + slowest - job.dueSeconds()) / 3600.0
                    + slowest / 3600.0 * maxRate
                    + charge;
        }
        unitsPerCost = Math.min(UNITS_PER_COST, MAX_UNITS / bound);
        if (ranking == Ranking.WASTE) {
            nodeSpendUnits = GreedyArrays.grow(nodeSpendUnits, types * stride);
            for (int t = 0; t < types; t++) {
                for (int u = 0; u <= typeGpus[t]; u++)
                    nodeSpendUnits[t * stride + u] = units(WasteObjective.nodeSpend(p, t, u));
            }
        }
        slots = perJob;
        // computed once here rather than by whichever job's thread asks first
        if (ranking == Ranking.WASTE && jobs > 0) p.cheapestShare(0);
    }

    /**
     * Hands passes 1..count-1 to helpers; each waits, spinning, until the caller has the figures every job needs
     * ({@link #runPasses} releases them).
     */
    private List<Future<?>> startPasses(int count, ExecutorService helpers, SchedulingProblem p, NodeOpening opening) {
        while (passes.size() < count) passes.add(new JobPass());
        int scratch = tables.perJobMax();
        for (int i = 0; i < count; i++) passes.get(i).prepare(scratch);
        nextJob.set(0);
        passesReleased = false;
        List<Future<?>> others = new ArrayList<>(count - 1);
        for (int i = 1; i < count; i++) {
            JobPass pass = passes.get(i);
            others.add(helpers.submit(() -> {
                while (!passesReleased) Thread.onSpinWait();
                pass.run(p, opening);
            }));
        }
        return others;
    }

    /** Releases the helpers' passes, runs the first on the caller's thread and waits for the others. */
    private void runPasses(List<Future<?>> others, SchedulingProblem p, NodeOpening opening) {
        RuntimeException failure = null;
        try {
            passesReleased = true;
            passes.get(0).run(p, opening);
        } catch (RuntimeException e) {
            nextJob.set(tables.jobs);
            failure = e;
        }
        HelperTasks.awaitAll(others, failure, "preparing jobs");
    }

    /**
     * One thread's share of the per-job part: it claims chunks of jobs and writes only their rows (a job's
     * configurations sit in its own {@link #slots} slots), so the tables do not depend on which thread prepared which
     * job; the smallest positive weight and the postponement total are kept per pass and merged (a minimum and an
     * integer sum: the same in any order).
     */
    private final class JobPass {
        int[] lateType = new int[0], lateGpus = new int[0];
        double[] lateTime = new double[0];
        double minPositiveWeight;
        long postponedTotal;

        void prepare(int scratch) {
            lateType = GreedyArrays.grow(lateType, scratch);
            lateGpus = GreedyArrays.grow(lateGpus, scratch);
            lateTime = GreedyArrays.grow(lateTime, scratch);
            minPositiveWeight = Double.POSITIVE_INFINITY;
            postponedTotal = 0;
        }

        void run(SchedulingProblem p, NodeOpening opening) {
            int jobs = tables.jobs;
            for (int from = nextJob.getAndAdd(JOB_CHUNK); from < jobs; from = nextJob.getAndAdd(JOB_CHUNK)) {
                for (int j = from, to = Math.min(jobs, from + JOB_CHUNK); j < to; j++) job(p, opening, j);
            }
        }

        private void job(SchedulingProblem p, NodeOpening opening, int j) {
            int types = tables.types;
            int[] typeGpus = tables.typeGpus;
            double now = tables.now, rho = tables.rho, horizon = p.parameters().horizonSeconds();
            var state = p.job(j);
            var job = state.job();
            weight[j] = job.weightPerHour();
            due[j] = job.dueSeconds();
            if (weight[j] > 0) minPositiveWeight = Math.min(minPositiveWeight, weight[j]);
            Placement cur = state.current();
            jobCurNode[j] = cur == null ? -1 : cur.node();
            jobCurType[j] = cur == null ? -1 : cur.type();
            jobCurG[j] = cur == null ? -1 : cur.gpus();
            boolean charged = chargesMoves && cur != null;
            double worstLate = now + horizon + (charged ? p.postponedRemaining(j) : p.slowestRemaining(j)) - due[j];
            postponedPenalty[j] = worstLate > 0 ? rho * weight[j] * worstLate / 3600.0 : 0;
            if (charged) postponedPenalty[j] += p.moveCharge(j, null);
            postponedUnits[j] = units(postponedPenalty[j]);
            postponedTotal += postponedUnits[j];

            int first = j * slots;
            int c = first;
            int onTime = 0;
            int lateCount = 0;
            // configurations meeting the due date first (in place), the late ones parked and appended after them
            for (int t = 0; t < types; t++) {
                if (!p.typeAvailable(t)) continue;
                for (int g = 1; g <= typeGpus[t]; g++) {
                    double r = p.remaining(j, t, g);
                    if (Double.isNaN(r)) continue;
                    // any node: it is moved
                    if (charged && (t != cur.type() || g != cur.gpus())) r = p.remainingAt(j, -1, t, g);
                    if (now + r - due[j] < 0) {
                        putConfig(opening, c++, t, g, r);
                        onTime++;
                    } else {
                        lateType[lateCount] = t;
                        lateGpus[lateCount] = g;
                        lateTime[lateCount++] = r;
                    }
                }
            }
            for (int i = 0; i < lateCount; i++) putConfig(opening, c++, lateType[i], lateGpus[i], lateTime[i]);
            cfgEnd[j] = c;
            dueCount[j] = onTime;
            cfgSorted[j] = 0;
            int min = Integer.MAX_VALUE;
            for (int k = first; k < c; k++) min = Math.min(min, cfgGpus[k]);
            minGpus[j] = min;
            selectTop(j, c);
            if (opening.active()) {
                for (int k = first; k < c; k++) opening.configuration(j, cfgType[k], cfgGpus[k], k);
            }
        }
    }

    /** Drops the call's problem, so that an idle engine holds no jobs. */
    void release() {
        problem = null;
    }

    /** Whether job j runs now on node n as type t with g GPUs (anywhere else it needs the same time). */
    boolean runsAt(int j, int n, int t, int g) {
        return n == jobCurNode[j] && t == jobCurType[j] && g == jobCurG[j];
    }

    long units(double cost) {
        return Math.round(cost * unitsPerCost);
    }

    /**
     * f_W's credit, in units, for job j's progress over the horizon on a placement where it needs {@code r} seconds:
     * that progress at the job's cheapest share ({@link WasteObjective}).
     */
    long progressUnits(int j, double r) {
        return units(WasteObjective.progressValue(problem, j, r));
    }

    private void putConfig(NodeOpening opening, int c, int t, int g, double r) {
        cfgType[c] = t;
        cfgGpus[c] = g;
        cfgTime[c] = r;
        cfgCost[c] = r / 3600.0 * tables.rate[t * tables.stride + g];
        cfgPref[c] = opening.ranksByOwnPrice(t) ? cfgCost[c] : r / 3600.0 * opening.preferenceRate(t, g);
        cfgOrder[c] = c;
    }

    /**
     * f_OBJ change, in units, of job j on its configuration c instead of postponing it, c priced as the preparation
     * prices it: where the job runs for its current configuration, else on any node (moved). Computed when a
     * construction draws or falls back to c, not for every configuration: a call re-decides hundreds of running jobs
     * of which few move, and their charges were most of the call's preparation.
     */
    long deltaUnits(int j, int c) {
        int t = cfgType[c], g = cfgGpus[c];
        int node = t == jobCurType[j] && g == jobCurG[j] ? jobCurNode[j] : -1;
        return deltaUnits(j, node, t, g, cfgTime[c]);
    }

    /**
     * Job j's f_OBJ change, in units, placed on node n (-1: any node but its own) as type t with g GPUs ({@code r}
     * seconds) instead of waiting: its tardiness past the due date and, for a running job moved, what the move is
     * charged and (under {@link Ranking#WASTE}) what it wastes. The same arithmetic whenever it is asked, so from any
     * thread.
     */
    long deltaUnits(int j, int n, int t, int g, double r) {
        double late = tables.now + r - due[j];
        long delta = units(late > 0 ? weight[j] * late / 3600.0 : 0) - postponedUnits[j];
        if (chargesMoves) delta += units(problem.moveCharge(j, n, t, g, r));
        if (ranking == Ranking.WASTE && jobCurNode[j] >= 0)
            delta += units(WasteObjective.moveWaste(problem, j, t, g, r));
        return delta;
    }

    /** The K best configurations of the primary list (on-time by cost, else all by time), with draw weights. */
    private void selectTop(int j, int end) {
        int from = j * slots;
        boolean onTime = dueCount[j] > 0;
        int to = onTime ? from + dueCount[j] : end;
        int n = 0;
        int base = j * K;
        for (int c = from; c < to; c++) {
            int pos = n < K ? n : K;
            if (pos == K && !better(j, c, top[base + K - 1], onTime)) continue;
            if (pos == K) pos = K - 1;
            while (pos > 0 && better(j, c, top[base + pos - 1], onTime)) {
                top[base + pos] = top[base + pos - 1];
                pos--;
            }
            top[base + pos] = c;
            if (n < K) n++;
        }
        topCount[j] = n;
        double cumulative = 0;
        for (int k = 0; k < n; k++) {
            int c = top[base + k];
            double criterion = onTime ? cfgPref[c] : cfgTime[c];
            cumulative += 1.0 / Math.max(criterion, 1e-12);
            topCumWeight[base + k] = cumulative;
            topCost[base + k] = cfgCost[c];
            topType[base + k] = cfgType[c];
            topGpus[base + k] = cfgGpus[c];
            topDelta[base + k] = deltaUnits(j, c);
            if (ranking == Ranking.WASTE) topProgress[base + k] = progressUnits(j, cfgTime[c]);
        }
    }

    /** Preference between two configurations of job j within the same part (on-time or late). */
    private boolean better(int j, int a, int b, boolean onTime) {
        double pa = onTime ? cfgPref[a] : cfgTime[a];
        double pb = onTime ? cfgPref[b] : cfgTime[b];
        if (pa != pb) return pa < pb;
        boolean ca = cfgType[a] == jobCurType[j] && cfgGpus[a] == jobCurG[j];
        boolean cb = cfgType[b] == jobCurType[j] && cfgGpus[b] == jobCurG[j];
        if (ca != cb) return ca;
        double sa = onTime ? cfgTime[a] : cfgPref[a];
        double sb = onTime ? cfgTime[b] : cfgPref[b];
        if (sa != sb) return sa < sb;
        if (cfgGpus[a] != cfgGpus[b]) return cfgGpus[a] < cfgGpus[b];
        return cfgType[a] < cfgType[b];
    }

    /**
     * Job j's most preferred configuration on type t with at most {@code gpus} GPUs, packed as (rank << 32 |
     * configuration), or {@link #NONE}. Call {@link #ensureSorted} for the job first.
     */
    long bestUpTo(int j, int t, int gpus) {
        return bestUpTo[(j * tables.types + t) * tables.stride + gpus];
    }

    /** Full preference order of a job's configurations, built the first time a sub-optimal assignment needs it. */
    void ensureSorted(int j) {
        if ((int) SORTED.getAcquire(cfgSorted, j) != 0) return;
        synchronized (sortLock) {
            if (cfgSorted[j] != 0) return;
            sort(j);
            SORTED.setRelease(cfgSorted, j, 1);
        }
    }

    private void sort(int j) {
        int types = tables.types, stride = tables.stride;
        int from = j * slots;
        int mid = from + dueCount[j];
        int to = cfgEnd[j];
        insertionSort(j, from, mid, true);
        insertionSort(j, mid, to, false);
        for (int i = from; i < to; i++) cfgRank[cfgOrder[i]] = i - from;
        int base = j * types * stride;
        Arrays.fill(bestUpTo, base, base + types * stride, NONE);
        for (int c = from; c < to; c++)
            bestUpTo[base + cfgType[c] * stride + cfgGpus[c]] = ((long) cfgRank[c] << 32) | c;
        for (int t = 0; t < types; t++) {
            int row = base + t * stride;
            for (int g = 1; g < stride; g++) bestUpTo[row + g] = Math.min(bestUpTo[row + g], bestUpTo[row + g - 1]);
        }
    }

    private void insertionSort(int j, int from, int to, boolean onTime) {
        for (int i = from + 1; i < to; i++) {
            int v = cfgOrder[i];
            int k = i - 1;
            while (k >= from && better(j, v, cfgOrder[k], onTime)) {
                cfgOrder[k + 1] = cfgOrder[k];
                k--;
            }
            cfgOrder[k + 1] = v;
        }
    }
}
