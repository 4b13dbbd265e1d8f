package org.gpusched.core.policy;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.gpusched.core.model.Cluster;
import org.gpusched.core.model.NodeType;
import org.gpusched.core.model.Placement;
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
 *   <li>A configuration is (node type, g). Nodes of one type are interchangeable for f_OBJ, so the best
 *       configuration is chosen per type and the node afterwards: first the job's current node if it is open as that
 *       type with room (a migration gains nothing in f_OBJ), then an open node (first fit = lowest index, best fit =
 *       fewest idle GPUs after placement, thesis Fig. 3.3), then a node switched on for it (thesis step (b); for a
 *       rightsizable node this is where its VM type is chosen). How configurations are priced for this choice, whether
 *       open nodes of another type of the same GPU model take the job, and which VM a node is switched on as is the
 *       {@link NodeOpeningRule} ({@link NodeOpening}); randomized iterations under {@link NodeOpeningRule#PACKED}
 *       draw the VM size among the GPU model's types, with weight 1 / price per GPU the queue can fill. Nodes switched on prefer, in order: the job's own
 *       current node, the lowest-index node hosting no running job, a node whose running jobs already run as that
 *       type, then the rest; so a waiting job does not evict running ones from their node without need.</li>
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
 */
final class GreedyEngine {
    static final double SWAP_SCALE = 0.25;
    static final int CANDIDATES = 3;
    /** Fixed-point resolution of the ranking objective: 1e-6 cost units (coarser only when sums could overflow). */
    static final double UNITS_PER_COST = 1e6;
    /** Largest f_OBJ magnitude in units, far enough below 2^63 that sums of rounded terms cannot overflow. */
    private static final double MAX_UNITS = 1e17;

    private static final int K = CANDIDATES;
    /** Trie nodes the draw memo may grow to in one call (a few MB at most). */
    private static final int MEMO_NODES = 1 << 16;
    /** Randomized iterations after which the memo is dropped for the rest of the call unless it saved some. */
    private static final int MEMO_TRIAL = 64;

    private static final int MEMO_MIN_HITS = 8;

    private final boolean useDrawMemo;
    private final DrawMemo memo = new DrawMemo(MEMO_NODES);
    /** Uniforms the memo walk already drew for this iteration, to be reused before fresh ones. */
    private int replayCount, replayPos;

    private boolean recording;
    private int pathLength;
    private int[] pathKind = new int[64], pathOutcome = new int[64], pathParamFrom = new int[65];
    private double[] pathParams = new double[192];
    private int memoHits;

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
    }

    private final NodeOpening opening;

    /** Iterations of the last call that repeated an earlier one and were skipped (for tests and benchmarks). */
    int lastMemoHits() {
        return memoHits;
    }

    // ---- per call: problem ----
    private SchedulingProblem problem;
    private int jobs, nodes, types, maxG, words, stride;
    private double now;
    private double rho, mu;
    private int[] typeGpus = new int[0];
    private double[] rate = new double[0]; // [t * stride + g]
    private boolean[] canType = new boolean[0]; // [n * types + t]
    private boolean[] rightsizable = new boolean[0];
    private int[][] nodeCandidates = new int[0][];
    private int[] eqStart = new int[1];
    private int[] eqList = new int[0]; // smaller types with the same GPU model, by GPU count ascending
    private List<NodeType> equivalentTypesOf;
    // Nodes that can be switched on, grouped into classes of nodes with the same candidate types, so that switching a
    // node on costs O(1) whatever the number of types.
    private int classCount;
    private int[] nodeClass = new int[0];
    private int[] classSize = new int[0];
    private int[] classRepresentative = new int[0]; // a node of the class, whose candidate types are the class's
    private long[] classMask = new long[0]; // [c * words + w]
    private int[] typeClassStart = new int[1];
    private int[] typeClasses = new int[0]; // per type, the classes whose nodes may run as it
    private long[] idleMask = new long[0]; // nodes hosting no running job
    private int[] sameTypeStart = new int[1];
    private int[] sameTypeNodes = new int[0]; // per type, nodes hosting running jobs that run as it now

    // ---- per call: jobs ----
    private int[] jobCurNode = new int[0], jobCurType = new int[0], jobCurG = new int[0];
    private double[] weight = new double[0], due = new double[0], postponedPenalty = new double[0];
    private double[] swapProbability = new double[0];
    private int[] minGpus = new int[0];
    private int[] cfgStart = new int[1];
    private int[] dueCount = new int[0];
    private int[] cfgType = new int[0], cfgGpus = new int[0];
    private double[] cfgTime = new double[0], cfgCost = new double[0];
    /** What ranks configuration c among its job's others: its cost under the opening rule's pricing. */
    private double[] cfgPref = new double[0];
    /** f_OBJ change, in units, of running job j on configuration c instead of postponing it. */
    private long[] cfgDeltaUnits = new long[0];

    private int[] cfgOrder = new int[0];
    private int[] lateType = new int[0], lateGpus = new int[0];
    private double[] lateTime = new double[0];
    /** Position of a configuration in its job's preference order (valid once the job's list is sorted). */
    private int[] cfgRank = new int[0];
    /**
     * [(j * types + t) * stride + g]: job j's most preferred configuration on type t using at most g GPUs, packed as
     * (rank << 32 | configuration) so that the smaller value is the preferred one; NONE if there is none. Lets the
     * sub-optimal assignment look at each type once instead of at every configuration.
     */
    private long[] bestUpTo = new long[0];

    private static final long NONE = Long.MAX_VALUE;
    private boolean[] cfgSorted = new boolean[0];
    private int[] top = new int[0];
    /** Per job, the data of its best K configurations side by side (the hot path reads only these). */
    private double[] topCumWeight = new double[0], topCost = new double[0];

    private int[] topType = new int[0], topGpus = new int[0];
    private long[] topDelta = new long[0];
    private int[] topCount = new int[0];
    private int[] sortedJobs = new int[0];
    private int[] sortScratch = new int[0];
    private double[] sortKey = new double[0];
    private long postponedTotal;
    private double unitsPerCost = UNITS_PER_COST;
    private long[] postponedUnits = new long[0];

    // ---- per iteration ----
    private int[] work = new int[0];
    private int[] nodeType = new int[0], nodeFree = new int[0], nodeJobCount = new int[0], nodeJobs = new int[0];
    private int[] bucketCount = new int[0];
    private long[] bucketBits = new long[0];
    private int[] maxFreeOpen = new int[0];
    private long[] offMask = new long[0]; // nodes still off
    private int[] classOff = new int[0]; // per class, nodes still off
    private int[] classOffIdle = new int[0]; // [c * 2 + (0 idle | 1 hosting running jobs)]: still off
    private int[] classWordHint = new int[0]; // same index: no off node of that group below this word
    private int[] classSizeIdle = new int[0]; // [c * 2 + group]: nodes of the group
    private boolean[] typeHasOff = new boolean[0]; // per type, some node that can run as it is still off
    private int[] sameTypePointer = new int[0];
    private int[] opened = new int[0];
    private int openedCount;
    private int offTotal, freeOpenTotal, maxAvailable;
    private int offIdleTotal; // nodes still off that host no running job
    private int[] jobNode = new int[0], jobType = new int[0], jobGpus = new int[0];
    private long[] jobDeltaUnits = new long[0];
    private double[] jobCost = new double[0];
    private double[] nodeFirstCost = new double[0]; // least job cost on the node: its first-ending job's cost
    private long placedDelta; // sum of jobDeltaUnits over placed jobs
    private int[] placed = new int[0];
    private int placedCount;
    private int[] pickNodes = new int[K];
    /** inverseIdle[d] = 1 / (1 + d): best-fit draw weight of a node left with d idle GPUs. */
    private double[] inverseIdle = new double[0];
    /** The configuration being tried for the current job. */
    private int candType, candGpus;

    private long candDelta;
    private double candCost;
    private double[] pickWeights = new double[K];

    // ---- the deterministic iteration, kept for the never-worse-than-greedy guarantee ----
    // (scratch reused across calls like the rest, so that a call allocates little beyond the returned schedules)
    private int[] greedyNode = new int[0],
            greedyType = new int[0],
            greedyGpus = new int[0],
            greedyNodeType = new int[0];

    // ---- best solutions kept ----
    private int keep;
    private int poolSize;
    private long[] poolObjective = new long[0];
    private int[][] poolNode = new int[0][],
            poolType = new int[0][],
            poolGpus = new int[0][],
            poolNodeType = new int[0][];

    /**
     * Runs {@code iterations} constructions (the first deterministic) and returns up to {@code keepBest} distinct
     * schedules, best f_OBJ first. {@code random} is advanced only by randomized iterations.
     */
    List<Schedule> run(SchedulingProblem problem, RandomState random, int iterations, int keepBest, boolean bestFit) {
        if (iterations < 1) throw new IllegalArgumentException("iterations must be >= 1, got " + iterations);
        if (keepBest < 1) throw new IllegalArgumentException("keep must be >= 1, got " + keepBest);
        prepare(problem, keepBest);
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
                replayCount = drawn;
                replayPos = 0;
                recording = !memo.full();
                pathLength = 0;
            }
            long f = construct(randomized ? random : null, bestFit);
            if (randomized && memoActive) {
                if (recording) memo.insert(pathLength, pathKind, pathParamFrom, pathParams, pathOutcome);
                recording = false;
                replayCount = 0;
                if (it == MEMO_TRIAL && memoHits < MEMO_MIN_HITS) memoActive = false;
            }
            offer(f);
            if (it == 0 && iterations > 1) {
                greedyNode = copyInto(greedyNode, jobNode, jobs);
                greedyType = copyInto(greedyType, jobType, jobs);
                greedyGpus = copyInto(greedyGpus, jobGpus, jobs);
                greedyNodeType = copyInto(greedyNodeType, nodeType, nodes);
            }
            resetIteration();
        }
        List<Schedule> result = new ArrayList<>(poolSize);
        for (int k = 0; k < poolSize; k++)
            result.add(toSchedule(poolNode[k], poolType[k], poolGpus[k], poolNodeType[k]));
        if (iterations > 1 && !greedyIsBest()) {
            // The ranking objective is rounded to 1e-6 per term; the exact evaluation decides here so that the result
            // is never worse than the deterministic greedy by ObjectiveFunction itself.
            Schedule greedy = toSchedule(greedyNode, greedyType, greedyGpus, greedyNodeType);
            if (greedy.objective() < result.get(0).objective()) {
                result.remove(greedy);
                result.add(0, greedy);
                if (result.size() > keepBest) result.remove(result.size() - 1);
            }
        }
        this.problem = null;
        return result;
    }

    /** Whether the best kept solution is the deterministic greedy's: then the exact comparison cannot change it. */
    private boolean greedyIsBest() {
        return Arrays.equals(poolNode[0], 0, jobs, greedyNode, 0, jobs)
                && Arrays.equals(poolType[0], 0, jobs, greedyType, 0, jobs)
                && Arrays.equals(poolGpus[0], 0, jobs, greedyGpus, 0, jobs)
                && Arrays.equals(poolNodeType[0], 0, nodes, greedyNodeType, 0, nodes);
    }

    private static int[] copyInto(int[] target, int[] source, int length) {
        int[] copy = grow(target, length);
        System.arraycopy(source, 0, copy, 0, length);
        return copy;
    }

    // =====================================================================================================
    // per-call preparation
    // =====================================================================================================

    private void prepare(SchedulingProblem p, int keepBest) {
        problem = p;
        Cluster cluster = p.cluster();
        jobs = p.jobCount();
        nodes = cluster.nodeCount();
        types = cluster.typeCount();
        maxG = cluster.maxGpus();
        stride = maxG + 1;
        words = (nodes + 63) >>> 6;
        now = p.now();
        rho = p.parameters().rho();
        mu = p.parameters().mu();
        keep = keepBest;

        inverseIdle = grow(inverseIdle, stride);
        for (int d = 0; d < stride; d++) inverseIdle[d] = 1.0 / (1 + d);
        typeGpus = grow(typeGpus, types);
        rate = grow(rate, types * stride);
        for (int t = 0; t < types; t++) {
            typeGpus[t] = cluster.type(t).gpus();
            for (int g = 0; g <= typeGpus[t]; g++)
                rate[t * stride + g] = cluster.type(t).costPerHour(g);
        }
        canType = grow(canType, nodes * types);
        Arrays.fill(canType, 0, nodes * types, false);
        rightsizable = grow(rightsizable, nodes);
        if (nodeCandidates.length < nodes) nodeCandidates = new int[nodes][];
        for (int n = 0; n < nodes; n++) {
            nodeCandidates[n] = cluster.candidateTypes(n);
            for (int t : nodeCandidates[n]) canType[n * types + t] = true;
            rightsizable[n] = nodeCandidates[n].length > 1;
        }
        prepareEquivalentTypes(cluster);
        opening.prepareCatalog(cluster);
        prepareJobs(p);
        prepareOpeningOrder(p);
        prepareIterationState();

        poolSize = 0;
        if (poolObjective.length < keep
                || poolNode.length < keep
                || (keep > 0 && (poolNode[0].length < jobs || poolNodeType[0].length < nodes))) {
            poolObjective = new long[keep];
            poolNode = new int[keep][jobs];
            poolType = new int[keep][jobs];
            poolGpus = new int[keep][jobs];
            poolNodeType = new int[keep][nodes];
        }
    }

    private void prepareEquivalentTypes(Cluster cluster) {
        // depends on the catalog only, which the clusters of all controllers share (the same list instance)
        if (cluster.types() == equivalentTypesOf) return;
        equivalentTypesOf = cluster.types();
        eqStart = grow(eqStart, types + 1);
        int count = 0;
        for (int t = 0; t < types; t++) for (int u = 0; u < types; u++) if (isSmallerEquivalent(cluster, u, t)) count++;
        eqList = grow(eqList, count);
        int k = 0;
        for (int t = 0; t < types; t++) {
            eqStart[t] = k;
            for (int u = 0; u < types; u++) if (isSmallerEquivalent(cluster, u, t)) eqList[k++] = u;
            // by GPU count ascending, then index: the smallest node that holds the jobs is tried first
            for (int a = eqStart[t] + 1; a < k; a++) {
                int v = eqList[a];
                int b = a - 1;
                while (b >= eqStart[t] && typeGpus[eqList[b]] > typeGpus[v]) {
                    eqList[b + 1] = eqList[b];
                    b--;
                }
                eqList[b + 1] = v;
            }
        }
        eqStart[types] = k;
    }

    private static boolean isSmallerEquivalent(Cluster cluster, int candidate, int of) {
        return candidate != of
                && cluster.type(candidate).gpus() < cluster.type(of).gpus()
                && cluster.type(candidate).gpuModel().equals(cluster.type(of).gpuModel());
    }

    private void prepareJobs(SchedulingProblem p) {
        opening.prepareJobs(jobs);
        jobCurNode = grow(jobCurNode, jobs);
        jobCurType = grow(jobCurType, jobs);
        jobCurG = grow(jobCurG, jobs);
        weight = grow(weight, jobs);
        due = grow(due, jobs);
        postponedPenalty = grow(postponedPenalty, jobs);
        postponedUnits = grow(postponedUnits, jobs);
        swapProbability = grow(swapProbability, jobs);
        minGpus = grow(minGpus, jobs);
        dueCount = grow(dueCount, jobs);
        cfgSorted = grow(cfgSorted, jobs);
        top = grow(top, jobs * K);
        topCumWeight = grow(topCumWeight, jobs * K);
        topCost = grow(topCost, jobs * K);
        topType = grow(topType, jobs * K);
        topGpus = grow(topGpus, jobs * K);
        topDelta = grow(topDelta, jobs * K);
        topCount = grow(topCount, jobs);
        cfgStart = grow(cfgStart, jobs + 1);
        lateType = grow(lateType, perJobMax());
        lateGpus = grow(lateGpus, perJobMax());
        lateTime = grow(lateTime, perJobMax());

        int perJob = 0;
        for (int t = 0; t < types; t++) if (p.typeAvailable(t)) perJob += typeGpus[t];
        int capacity = jobs * perJob;
        cfgType = grow(cfgType, capacity);
        cfgGpus = grow(cfgGpus, capacity);
        cfgTime = grow(cfgTime, capacity);
        cfgCost = grow(cfgCost, capacity);
        cfgPref = grow(cfgPref, capacity);
        cfgDeltaUnits = grow(cfgDeltaUnits, capacity);
        cfgOrder = grow(cfgOrder, capacity);
        cfgRank = grow(cfgRank, capacity);
        bestUpTo = grow(bestUpTo, jobs * types * stride);

        double horizon = p.parameters().horizonSeconds();
        // An upper bound of |f_OBJ| for any schedule picks the fixed-point scale: 1e-6 unless that could overflow.
        double maxRate = 0;
        for (int i = 0; i < types * stride; i++) maxRate = Math.max(maxRate, rate[i]);
        double bound = 1 + mu * nodes * maxG;
        for (int j = 0; j < jobs; j++) {
            var job = p.job(j).job();
            double slowest = p.slowestRemaining(j);
            bound += (1 + rho) * job.weightPerHour() * Math.max(0, now + horizon + slowest - job.dueSeconds()) / 3600.0
                    + slowest / 3600.0 * maxRate;
        }
        unitsPerCost = Math.min(UNITS_PER_COST, MAX_UNITS / bound);
        double minPositiveWeight = Double.POSITIVE_INFINITY;
        postponedTotal = 0;
        int c = 0;
        for (int j = 0; j < jobs; j++) {
            var state = p.job(j);
            var job = state.job();
            weight[j] = job.weightPerHour();
            due[j] = job.dueSeconds();
            if (weight[j] > 0) minPositiveWeight = Math.min(minPositiveWeight, weight[j]);
            Placement cur = state.current();
            jobCurNode[j] = cur == null ? -1 : cur.node();
            jobCurType[j] = cur == null ? -1 : cur.type();
            jobCurG[j] = cur == null ? -1 : cur.gpus();
            double worstLate = now + horizon + p.slowestRemaining(j) - due[j];
            postponedPenalty[j] = worstLate > 0 ? rho * weight[j] * worstLate / 3600.0 : 0;
            postponedUnits[j] = units(postponedPenalty[j]);
            postponedTotal += postponedUnits[j];

            cfgStart[j] = c;
            int onTime = 0;
            int lateCount = 0;
            // configurations meeting the due date first (in place), the late ones parked and appended after them
            for (int t = 0; t < types; t++) {
                if (!p.typeAvailable(t)) continue;
                for (int g = 1; g <= typeGpus[t]; g++) {
                    double r = p.remaining(j, t, g);
                    if (Double.isNaN(r)) continue;
                    double late = now + r - due[j];
                    if (late < 0) {
                        putConfig(c++, t, g, r, -postponedUnits[j]);
                        onTime++;
                    } else {
                        lateType[lateCount] = t;
                        lateGpus[lateCount] = g;
                        lateTime[lateCount++] = r;
                    }
                }
            }
            for (int i = 0; i < lateCount; i++) {
                double late = now + lateTime[i] - due[j];
                putConfig(
                        c++,
                        lateType[i],
                        lateGpus[i],
                        lateTime[i],
                        units(weight[j] * late / 3600.0) - postponedUnits[j]);
            }
            dueCount[j] = onTime;
            cfgSorted[j] = false;
            int min = Integer.MAX_VALUE;
            for (int k = cfgStart[j]; k < c; k++) min = Math.min(min, cfgGpus[k]);
            minGpus[j] = min;
            selectTop(j, c);
            if (opening.active()) {
                for (int k = cfgStart[j]; k < c; k++) opening.configuration(j, cfgType[k], cfgGpus[k], k);
                if (topCount[j] > 0) opening.wants(topType[j * K], topGpus[j * K]);
            }
        }
        cfgStart[jobs] = c;
        for (int j = 0; j < jobs; j++) {
            swapProbability[j] = minPositiveWeight == Double.POSITIVE_INFINITY || weight[j] <= 0
                    ? SWAP_SCALE
                    : SWAP_SCALE * minPositiveWeight / weight[j];
        }

        // pre-processing: pressure descending (ANDREAS eq. 2), ties by job index
        sortedJobs = grow(sortedJobs, jobs);
        sortScratch = grow(sortScratch, jobs);
        sortKey = grow(sortKey, jobs);
        for (int j = 0; j < jobs; j++) {
            sortedJobs[j] = j;
            sortKey[j] = p.pressure(j);
        }
        IndexSort.sort(sortedJobs, jobs, sortKey, true, sortScratch);
        work = grow(work, jobs);
        System.arraycopy(sortedJobs, 0, work, 0, jobs);
    }

    private void putConfig(int c, int t, int g, double r, long delta) {
        cfgType[c] = t;
        cfgGpus[c] = g;
        cfgTime[c] = r;
        cfgCost[c] = r / 3600.0 * rate[t * stride + g];
        cfgPref[c] = opening.ranksByOwnPrice(t) ? cfgCost[c] : r / 3600.0 * opening.preferenceRate(t, g);
        cfgDeltaUnits[c] = delta;
        cfgOrder[c] = c;
    }

    /** The K best configurations of the primary list (on-time by cost, else all by time), with draw weights. */
    private void selectTop(int j, int end) {
        int from = cfgStart[j];
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
            topDelta[base + k] = cfgDeltaUnits[c];
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

    /** Full preference order of a job's configurations, built the first time a sub-optimal assignment needs it. */
    private void ensureSorted(int j) {
        if (cfgSorted[j]) return;
        int from = cfgStart[j];
        int mid = from + dueCount[j];
        int to = cfgStart[j + 1];
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
        cfgSorted[j] = true;
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

    private void prepareOpeningOrder(SchedulingProblem p) {
        boolean[] hostsRunning = new boolean[nodes];
        for (int j = 0; j < jobs; j++) if (jobCurNode[j] >= 0) hostsRunning[jobCurNode[j]] = true;
        nodeClass = grow(nodeClass, nodes);
        int[][] classCandidates = new int[nodes][];
        classCount = 0;
        for (int n = 0; n < nodes; n++) {
            int c = 0;
            while (c < classCount && !Arrays.equals(classCandidates[c], nodeCandidates[n])) c++;
            if (c == classCount) classCandidates[classCount++] = nodeCandidates[n];
            nodeClass[n] = c;
        }
        classRepresentative = grow(classRepresentative, classCount);
        for (int n = nodes - 1; n >= 0; n--) classRepresentative[nodeClass[n]] = n;
        classSize = grow(classSize, classCount);
        Arrays.fill(classSize, 0, classCount, 0);
        classMask = grow(classMask, classCount * words);
        Arrays.fill(classMask, 0, classCount * words, 0L);
        idleMask = grow(idleMask, words);
        Arrays.fill(idleMask, 0, words, 0L);
        classSizeIdle = grow(classSizeIdle, classCount * 2);
        Arrays.fill(classSizeIdle, 0, classCount * 2, 0);
        for (int n = 0; n < nodes; n++) {
            classSizeIdle[nodeClass[n] * 2 + (hostsRunning[n] ? 1 : 0)]++;
            classSize[nodeClass[n]]++;
            classMask[nodeClass[n] * words + (n >>> 6)] |= 1L << (n & 63);
            if (!hostsRunning[n]) idleMask[n >>> 6] |= 1L << (n & 63);
        }
        typeClassStart = grow(typeClassStart, types + 1);
        typeClasses = grow(typeClasses, types * classCount);
        sameTypeStart = grow(sameTypeStart, types + 1);
        sameTypeNodes = grow(sameTypeNodes, nodes);
        int k = 0, m = 0;
        for (int t = 0; t < types; t++) {
            typeClassStart[t] = k;
            for (int c = 0; c < classCount; c++) {
                for (int u : classCandidates[c])
                    if (u == t) {
                        typeClasses[k++] = c;
                        break;
                    }
            }
            sameTypeStart[t] = m;
            for (int n = 0; n < nodes; n++) {
                if (hostsRunning[n] && p.currentNodeType(n) == t && canType[n * types + t]) sameTypeNodes[m++] = n;
            }
        }
        typeClassStart[types] = k;
        sameTypeStart[types] = m;
    }

    /** Whether some node that can run as type t is still off. */
    private boolean hasOff(int t) {
        return typeHasOff[t];
    }

    /** Called when the last off node of class c was switched on: its types may have no off node left. */
    private void classExhausted(int c) {
        for (int t : nodeCandidates[classRepresentative[c]]) {
            boolean any = false;
            for (int i = typeClassStart[t]; i < typeClassStart[t + 1] && !any; i++) any = classOff[typeClasses[i]] > 0;
            typeHasOff[t] = any;
        }
    }

    /**
     * The off node to switch on as type t: the lowest-index node hosting no running job; else a node whose running
     * jobs already run as t; else the lowest-index other node (its running jobs will have to move). -1 if none.
     */
    private int offNodeFor(int t) {
        int best = offIdleTotal == 0 ? -1 : lowestOff(t, true);
        if (best >= 0) return best;
        int ptr = sameTypePointer[t];
        int end = sameTypeStart[t + 1];
        while (ptr < end && nodeType[sameTypeNodes[ptr]] != -1) ptr++;
        sameTypePointer[t] = ptr;
        if (ptr < end) return sameTypeNodes[ptr];
        return lowestOff(t, false);
    }

    private int lowestOff(int t, boolean idle) {
        int best = -1;
        for (int i = typeClassStart[t]; i < typeClassStart[t + 1]; i++) {
            int c = typeClasses[i];
            int group = c * 2 + (idle ? 0 : 1);
            if (classOffIdle[group] == 0) continue;
            for (int w = classWordHint[group]; w < words; w++) {
                long bits = classMask[c * words + w] & offMask[w] & (idle ? idleMask[w] : ~idleMask[w]);
                if (bits != 0) {
                    classWordHint[group] = w;
                    int n = (w << 6) + Long.numberOfTrailingZeros(bits);
                    if (best < 0 || n < best) best = n;
                    break;
                }
            }
        }
        return best;
    }

    private void prepareIterationState() {
        nodeType = grow(nodeType, nodes);
        nodeFree = grow(nodeFree, nodes);
        nodeJobCount = grow(nodeJobCount, nodes);
        nodeJobs = grow(nodeJobs, nodes * Math.max(1, maxG));
        bucketCount = grow(bucketCount, types * stride);
        bucketBits = grow(bucketBits, types * stride * words);
        maxFreeOpen = grow(maxFreeOpen, types);
        offMask = grow(offMask, words);
        classOff = grow(classOff, classCount);
        classOffIdle = grow(classOffIdle, classCount * 2);
        classWordHint = grow(classWordHint, classCount * 2);
        typeHasOff = grow(typeHasOff, types);
        sameTypePointer = grow(sameTypePointer, types);
        opened = grow(opened, nodes);
        jobNode = grow(jobNode, jobs);
        jobType = grow(jobType, jobs);
        jobGpus = grow(jobGpus, jobs);
        jobDeltaUnits = grow(jobDeltaUnits, jobs);
        jobCost = grow(jobCost, jobs);
        nodeFirstCost = grow(nodeFirstCost, nodes);
        placed = grow(placed, jobs);
        Arrays.fill(nodeType, 0, nodes, -1);
        Arrays.fill(nodeFree, 0, nodes, 0);
        Arrays.fill(nodeJobCount, 0, nodes, 0);
        Arrays.fill(bucketCount, 0, types * stride, 0);
        Arrays.fill(bucketBits, 0, types * stride * words, 0L);
        Arrays.fill(jobNode, 0, jobs, -1);
        Arrays.fill(jobType, 0, jobs, -1);
        Arrays.fill(jobGpus, 0, jobs, 0);
        openedCount = 0;
        placedCount = 0;
        placedDelta = 0;
        resetCounters();
    }

    private void resetCounters() {
        offTotal = nodes;
        freeOpenTotal = 0;
        for (int t = 0; t < types; t++) {
            maxFreeOpen[t] = 0;
            sameTypePointer[t] = sameTypeStart[t];
        }
        offIdleTotal = 0;
        for (int c = 0; c < classCount; c++) {
            classOff[c] = classSize[c];
            offIdleTotal += classSizeIdle[c * 2];
        }
        for (int i = 0; i < classCount * 2; i++) {
            classOffIdle[i] = classSizeIdle[i];
            classWordHint[i] = 0;
        }
        for (int t = 0; t < types; t++) typeHasOff[t] = typeClassStart[t + 1] > typeClassStart[t];
        for (int w = 0; w < words; w++) {
            int bits = Math.min(64, nodes - (w << 6));
            offMask[w] = bits == 64 ? -1L : (1L << bits) - 1;
        }
        recomputeMaxAvailable();
    }

    /** Undoes one iteration by touching only what it changed. */
    private void resetIteration() {
        for (int i = 0; i < openedCount; i++) {
            int n = opened[i];
            nodeType[n] = -1;
            nodeFree[n] = 0;
            nodeJobCount[n] = 0;
        }
        for (int i = 0; i < placedCount; i++) {
            int j = placed[i];
            jobNode[j] = -1;
            jobType[j] = -1;
            jobGpus[j] = 0;
        }
        openedCount = 0;
        placedCount = 0;
        placedDelta = 0;
        resetCounters();
    }

    // =====================================================================================================
    // one construction
    // =====================================================================================================

    /** Builds one solution and returns its f_OBJ; {@code random == null} means the deterministic greedy. */
    private long construct(RandomState random, boolean bestFit) {
        boolean randomized = random != null;
        boolean countDemand = opening.active();
        if (countDemand) opening.startConstruction();
        int touched = 0;
        for (int pos = 0; pos < jobs; pos++) {
            if (offTotal == 0 && freeOpenTotal == 0) break;
            if (randomized && pos + 1 < jobs && swapDrawn(random, swapProbability[work[pos]])) {
                int tmp = work[pos];
                work[pos] = work[pos + 1];
                work[pos + 1] = tmp;
            }
            touched = pos + 2;
            int j = work[pos];
            // maxAvailable is refreshed only when a job could not be placed: capacity only shrinks within an
            // iteration, so a stale value is an upper bound and the quick reject stays exact
            if (minGpus[j] <= maxAvailable && !place(j, random, bestFit)) recomputeMaxAvailable();
            if (countDemand && topCount[j] > 0) opening.passed(topType[j * K], topGpus[j * K]);
        }
        if (randomized) System.arraycopy(sortedJobs, 0, work, 0, Math.min(touched, jobs));
        clearBuckets();
        for (int i = 0; i < openedCount; i++) {
            int n = opened[i];
            if (nodeFree[n] > 0) postProcess(n);
        }
        return objective();
    }

    /** @return whether the job was placed (else it is postponed) */
    private boolean place(int j, RandomState random, boolean bestFit) {
        int base = j * K;
        int k = random == null || topCount[j] == 1
                ? 0
                : pick(DrawMemo.CUMULATIVE, random, topCumWeight, base, topCount[j]);
        int slot = base + k;
        candType = topType[slot];
        candGpus = topGpus[slot];
        candDelta = topDelta[slot];
        candCost = topCost[slot];
        return assignOpen(j, random, bestFit) || assignNew(j, random) || placeSubOptimal(j, random, bestFit);
    }

    /** The drawn configuration fits nowhere: thesis (c). Kept apart so that the common path of place stays small. */
    private boolean placeSubOptimal(int j, RandomState random, boolean bestFit) {
        // Sub-optimal: the most preferred configuration that fits an open node, else one a node can be switched on
        // for. The chosen one cannot be among them: it just failed both ways.
        ensureSorted(j);
        int base2 = j * types * stride;
        long alt = NONE;
        for (int t = 0; t < types; t++) {
            int cap = maxFreeOpen[t];
            if (cap > 0) alt = Math.min(alt, bestUpTo[base2 + t * stride + cap]);
        }
        if (alt != NONE) {
            useConfig((int) alt);
            return assignOpen(j, random, bestFit);
        }
        if (offTotal == 0) return false;
        for (int t = 0; t < types; t++) {
            if (hasOff(t)) alt = Math.min(alt, bestUpTo[base2 + t * stride + typeGpus[t]]);
        }
        if (alt != NONE) {
            useConfig((int) alt);
            return assignNew(j, random);
        }
        return false;
    }

    private void useConfig(int c) {
        candType = cfgType[c];
        candGpus = cfgGpus[c];
        candDelta = cfgDeltaUnits[c];
        candCost = cfgCost[c];
    }

    // ---- the random draws: every one takes one uniform, and is recorded for the draw memo while it records ----

    private double uniform(RandomState random) {
        return replayPos < replayCount ? memo.drawn(replayPos++) : random.nextDouble();
    }

    private boolean swapDrawn(RandomState random, double probability) {
        boolean swap = DrawMemo.coin(uniform(random), probability);
        if (recording) {
            pathParams = extend(pathParams, pathParamFrom[pathLength] + 1);
            pathParams[pathParamFrom[pathLength]] = probability;
            endRecord(DrawMemo.COIN, swap ? 1 : 0, 1);
        }
        return swap;
    }

    /** An index drawn by cumulative weights ({@link DrawMemo#CUMULATIVE}) or by weights ({@link DrawMemo#WEIGHTS}). */
    private int pick(int kind, RandomState random, double[] values, int offset, int count) {
        double u = uniform(random);
        int k = kind == DrawMemo.CUMULATIVE
                ? DrawMemo.cumulativeIndex(u, values, offset, count)
                : DrawMemo.weightedIndex(u, values, offset, count);
        if (recording) {
            pathParams = extend(pathParams, pathParamFrom[pathLength] + count);
            System.arraycopy(values, offset, pathParams, pathParamFrom[pathLength], count);
            endRecord(kind, k, count);
        }
        return k;
    }

    private void endRecord(int kind, int outcome, int paramCount) {
        pathKind = extend(pathKind, pathLength + 1);
        pathOutcome = extend(pathOutcome, pathLength + 1);
        pathParamFrom = extend(pathParamFrom, pathLength + 2);
        pathKind[pathLength] = kind;
        pathOutcome[pathLength] = outcome;
        pathParamFrom[pathLength + 1] = pathParamFrom[pathLength] + paramCount;
        pathLength++;
    }

    /**
     * Assignment of the candidate configuration to an already open node (thesis (a)); when no node of its type has
     * room and the opening rule matches by GPU model, an open node of another type of that model on which the job
     * has a time with the same GPUs.
     */
    private boolean assignOpen(int j, RandomState random, boolean bestFit) {
        if (assignOpenAsCandidate(j, random, bestFit)) return true;
        return opening.active() && assignOpenToPeer(j, random, bestFit);
    }

    private boolean assignOpenToPeer(int j, RandomState random, boolean bestFit) {
        int t = candType, g = candGpus;
        for (int i = opening.peerFrom(t); i < opening.peerTo(t); i++) {
            int u = opening.peer(i);
            if (maxFreeOpen[u] < g) continue;
            int c = opening.configOn(j, u, g);
            if (c == NodeOpening.NONE) continue;
            useConfig(c);
            return assignOpenAsCandidate(j, random, bestFit);
        }
        return false;
    }

    private boolean assignOpenAsCandidate(int j, RandomState random, boolean bestFit) {
        int t = candType;
        int g = candGpus;
        if (maxFreeOpen[t] < g) return false;
        int current = jobCurNode[j];
        if (current >= 0 && nodeType[current] == t && nodeFree[current] >= g) {
            assign(j, current);
            return true;
        }
        int n;
        if (!bestFit) n = firstFit(t, g);
        else if (random == null) n = lowestBit(t, smallestBucket(t, g));
        else n = randomizedBestFit(t, g, random);
        assign(j, n);
        return true;
    }

    private int smallestBucket(int t, int g) {
        int base = t * stride;
        for (int f = g; f <= typeGpus[t]; f++) if (bucketCount[base + f] > 0) return f;
        throw new IllegalStateException("no open node of type " + t + " with " + g + " free GPUs");
    }

    private int lowestBit(int t, int f) {
        int base = (t * stride + f) * words;
        for (int w = 0; w < words; w++) {
            long bits = bucketBits[base + w];
            if (bits != 0) return (w << 6) + Long.numberOfTrailingZeros(bits);
        }
        throw new IllegalStateException("empty bucket");
    }

    private int firstFit(int t, int g) {
        int gpus = typeGpus[t];
        for (int w = 0; w < words; w++) {
            long bits = 0;
            for (int f = g; f <= gpus; f++) bits |= bucketBits[(t * stride + f) * words + w];
            if (bits != 0) return (w << 6) + Long.numberOfTrailingZeros(bits);
        }
        throw new IllegalStateException("no open node of type " + t + " with " + g + " free GPUs");
    }

    /** Thesis Fig. 3.3: open nodes by saturation, one of the best few drawn with weight 1 / (1 + idle left). */
    private int randomizedBestFit(int t, int g, RandomState random) {
        int found = 0;
        int gpus = typeGpus[t];
        for (int f = g; f <= gpus && found < K; f++) {
            int b = t * stride + f;
            if (bucketCount[b] == 0) continue;
            int base = b * words;
            for (int w = 0; w < words && found < K; w++) {
                long bits = bucketBits[base + w];
                while (bits != 0 && found < K) {
                    pickNodes[found] = (w << 6) + Long.numberOfTrailingZeros(bits);
                    pickWeights[found] = inverseIdle[f - g];
                    found++;
                    bits &= bits - 1;
                }
            }
        }
        return found == 1 ? pickNodes[0] : pickNodes[pick(DrawMemo.WEIGHTS, random, pickWeights, 0, found)];
    }

    /** Switches a node on for configuration c (thesis (b)): the job's own node if it can, else by preference. */
    private boolean assignNew(int j, RandomState random) {
        if (offTotal == 0) return false;
        int count = opening.typesToOpen(j, candType, candGpus, typeHasOff);
        if (count == 0) return false;
        int t = opening.candidate[
                random == null || count == 1 || opening.rule() != NodeOpeningRule.PACKED
                        ? 0
                        : pick(DrawMemo.WEIGHTS, random, opening.candidateWeight, 0, count)];
        if (t != candType) useConfig(opening.configOn(j, t, candGpus));
        int current = jobCurNode[j];
        int n;
        if (current >= 0 && nodeType[current] == -1 && canType[current * types + t]) n = current;
        else n = offNodeFor(t);
        if (n < 0) return false;
        assign(j, n);
        return true;
    }

    /** Places job j on node n with the current candidate configuration, switching n on if it is off. */
    private void assign(int j, int n) {
        int t = candType;
        int g = candGpus;
        if (nodeType[n] == -1) switchOn(n, t);
        else bucketRemove(t, nodeFree[n], n);
        int free = nodeFree[n] - g;
        nodeFree[n] = free;
        freeOpenTotal -= g;
        if (free > 0) bucketAdd(t, free, n);
        // only the bucket of this node changed: no bucket above max(previous maximum, free) can be non-empty
        int base = t * stride;
        int max = Math.max(maxFreeOpen[t], free);
        while (max > 0 && bucketCount[base + max] == 0) max--;
        maxFreeOpen[t] = max;
        nodeJobs[n * maxG + nodeJobCount[n]++] = j;
        jobNode[j] = n;
        jobType[j] = t;
        jobGpus[j] = g;
        jobDeltaUnits[j] = candDelta;
        double cost = candCost;
        jobCost[j] = cost;
        placedDelta += candDelta;
        if (cost < nodeFirstCost[n]) nodeFirstCost[n] = cost;
        placed[placedCount++] = j;
    }

    /** Switches off node n on as type t (kept out of {@link #assign} so that the hot path stays small to inline). */
    private void switchOn(int n, int t) {
        nodeType[n] = t;
        nodeFree[n] = typeGpus[t];
        nodeFirstCost[n] = Double.POSITIVE_INFINITY;
        freeOpenTotal += typeGpus[t];
        opened[openedCount++] = n;
        offTotal--;
        offMask[n >>> 6] &= ~(1L << (n & 63));
        boolean idle = (idleMask[n >>> 6] & (1L << (n & 63))) != 0;
        int c = nodeClass[n];
        if (idle) offIdleTotal--;
        classOffIdle[c * 2 + (idle ? 0 : 1)]--;
        if (--classOff[c] == 0) classExhausted(c);
    }

    /** After post-processing changed a job's type or GPU count. */
    private void refreshJob(int j) {
        int t = jobType[j], g = jobGpus[j];
        double r = problem.remaining(j, t, g);
        double late = now + r - due[j];
        placedDelta -= jobDeltaUnits[j];
        jobDeltaUnits[j] = units(late > 0 ? weight[j] * late / 3600.0 : 0) - postponedUnits[j];
        placedDelta += jobDeltaUnits[j];
        jobCost[j] = r / 3600.0 * rate[t * stride + g];
    }

    private void refreshFirstCost(int n) {
        double first = Double.POSITIVE_INFINITY;
        for (int k = 0, count = nodeJobCount[n]; k < count; k++) {
            double c = jobCost[nodeJobs[n * maxG + k]];
            if (c < first) first = c;
        }
        nodeFirstCost[n] = first;
    }

    private void recomputeMaxAvailable() {
        int max = 0;
        for (int t = 0; t < types; t++) {
            int a = hasOff(t) ? typeGpus[t] : maxFreeOpen[t];
            if (a > max) max = a;
        }
        maxAvailable = max;
    }

    private void bucketAdd(int t, int f, int n) {
        int b = t * stride + f;
        bucketCount[b]++;
        bucketBits[b * words + (n >>> 6)] |= 1L << (n & 63);
    }

    private void bucketRemove(int t, int f, int n) {
        int b = t * stride + f;
        bucketCount[b]--;
        bucketBits[b * words + (n >>> 6)] &= ~(1L << (n & 63));
    }

    private void clearBuckets() {
        int bucketCells = types * stride;
        if (bucketCells * (words + 1) <= 2 * openedCount) {
            // only open nodes are in buckets: wiping the (small) tables is cheaper than visiting every open node
            Arrays.fill(bucketCount, 0, bucketCells, 0);
            Arrays.fill(bucketBits, 0, bucketCells * words, 0L);
            return;
        }
        for (int i = 0; i < openedCount; i++) {
            int n = opened[i];
            if (nodeFree[n] > 0) bucketRemove(nodeType[n], nodeFree[n], n);
        }
    }

    // =====================================================================================================
    // post-processing (thesis step 2)
    // =====================================================================================================

    private void postProcess(int n) {
        if (rightsizable[n]) downsize(n);
        giveIdleGpus(n);
        refreshFirstCost(n);
    }

    /** The node's share of f_OBJ as it stands: its jobs' tardiness, its first-ending cost and mu x idle GPUs. */
    private double nodeShare(int n) {
        int t = nodeType[n];
        double tard = 0, first = Double.POSITIVE_INFINITY;
        int count = nodeJobCount[n];
        for (int i = 0; i < count; i++) {
            int j = nodeJobs[n * maxG + i];
            int g = jobGpus[j];
            double r = problem.remaining(j, t, g);
            double late = now + r - due[j];
            if (late > 0) tard += weight[j] * late / 3600.0;
            first = Math.min(first, r / 3600.0 * rate[t * stride + g]);
        }
        return tard + first + mu * nodeFree[n];
    }

    /** Thesis: "an equivalent configuration (same VM type) with a lower number of GPUs". */
    private void downsize(int n) {
        int t = nodeType[n];
        int busy = typeGpus[t] - nodeFree[n];
        double bestShare = nodeShare(n);
        int bestType = t;
        int count = nodeJobCount[n];
        for (int e = eqStart[t]; e < eqStart[t + 1]; e++) {
            int u = eqList[e];
            if (typeGpus[u] < busy || !canType[n * types + u]) continue;
            boolean holds = true;
            double tard = 0, first = Double.POSITIVE_INFINITY;
            for (int i = 0; i < count && holds; i++) {
                int j = nodeJobs[n * maxG + i];
                int g = jobGpus[j];
                double r = problem.remaining(j, u, g);
                if (Double.isNaN(r)) {
                    holds = false;
                    break;
                }
                double late = now + r - due[j];
                if (late > 0) tard += weight[j] * late / 3600.0;
                first = Math.min(first, r / 3600.0 * rate[u * stride + g]);
            }
            if (!holds) continue;
            double share = tard + first + mu * (typeGpus[u] - busy);
            if (share < bestShare) {
                bestShare = share;
                bestType = u;
            }
        }
        if (bestType != t) {
            nodeType[n] = bestType;
            nodeFree[n] = typeGpus[bestType] - busy;
            for (int i = 0; i < count; i++) {
                int j = nodeJobs[n * maxG + i];
                jobType[j] = bestType;
                refreshJob(j);
            }
        }
    }

    /**
     * Thesis: idle GPUs go to the job with the highest speed-up r(g)/r(g'), one move at a time; a move that would
     * raise the node's share of f_OBJ is skipped in favour of the next-highest speed-up.
     */
    private void giveIdleGpus(int n) {
        int t = nodeType[n];
        int count = nodeJobCount[n];
        while (nodeFree[n] > 0) {
            double before = nodeShare(n);
            double bestSpeedup = 1;
            int bestJob = -1, bestG = 0;
            for (int i = 0; i < count; i++) {
                int j = nodeJobs[n * maxG + i];
                int g = jobGpus[j];
                double r = problem.remaining(j, t, g);
                int limit = Math.min(typeGpus[t], g + nodeFree[n]);
                for (int h = g + 1; h <= limit; h++) {
                    double rh = problem.remaining(j, t, h);
                    if (Double.isNaN(rh)) continue;
                    double speedup = r / rh;
                    if (!(speedup > bestSpeedup)) continue;
                    jobGpus[j] = h;
                    nodeFree[n] -= h - g;
                    boolean acceptable = nodeShare(n) <= before;
                    jobGpus[j] = g;
                    nodeFree[n] += h - g;
                    if (acceptable) {
                        bestSpeedup = speedup;
                        bestJob = j;
                        bestG = h;
                    }
                }
            }
            if (bestJob < 0) return;
            nodeFree[n] -= bestG - jobGpus[bestJob];
            jobGpus[bestJob] = bestG;
            refreshJob(bestJob);
        }
    }

    /**
     * f_OBJ of the current construction in fixed-point units ({@link #unitsPerCost} per cost unit). Integer sums do
     * not depend on the order jobs were placed in, so the same schedule reached by different iterations always
     * ranks the same; the returned schedules carry the exact {@link ObjectiveFunction} value.
     */
    private long objective() {
        long f = postponedTotal + placedDelta;
        for (int i = 0; i < openedCount; i++) {
            int n = opened[i];
            f += units(nodeFirstCost[n] + mu * nodeFree[n]);
        }
        return f;
    }

    private long units(double cost) {
        return Math.round(cost * unitsPerCost);
    }

    // =====================================================================================================
    // best solutions
    // =====================================================================================================

    private void offer(long f) {
        if (poolSize == keep && !(f < poolObjective[poolSize - 1])) return;
        for (int k = 0; k < poolSize; k++) {
            if (poolObjective[k] == f && sameAsPool(k)) return;
        }
        int pos = poolSize < keep ? poolSize++ : keep - 1;
        // recycle the arrays of the dropped (or next free) entry
        int[] pn = poolNode[pos], pt = poolType[pos], pg = poolGpus[pos], pnt = poolNodeType[pos];
        while (pos > 0 && f < poolObjective[pos - 1]) {
            poolObjective[pos] = poolObjective[pos - 1];
            poolNode[pos] = poolNode[pos - 1];
            poolType[pos] = poolType[pos - 1];
            poolGpus[pos] = poolGpus[pos - 1];
            poolNodeType[pos] = poolNodeType[pos - 1];
            pos--;
        }
        System.arraycopy(jobNode, 0, pn, 0, jobs);
        System.arraycopy(jobType, 0, pt, 0, jobs);
        System.arraycopy(jobGpus, 0, pg, 0, jobs);
        System.arraycopy(nodeType, 0, pnt, 0, nodes);
        poolObjective[pos] = f;
        poolNode[pos] = pn;
        poolType[pos] = pt;
        poolGpus[pos] = pg;
        poolNodeType[pos] = pnt;
    }

    private boolean sameAsPool(int k) {
        return Arrays.equals(poolNode[k], 0, jobs, jobNode, 0, jobs)
                && Arrays.equals(poolGpus[k], 0, jobs, jobGpus, 0, jobs)
                && Arrays.equals(poolNodeType[k], 0, nodes, nodeType, 0, nodes);
    }

    private Schedule toSchedule(int[] node, int[] type, int[] gpus, int[] nodeTypes) {
        Placement[] placements = new Placement[jobs];
        for (int j = 0; j < jobs; j++) {
            if (node[j] >= 0) placements[j] = new Placement(node[j], type[j], gpus[j]);
        }
        int[] types = Arrays.copyOf(nodeTypes, nodes);
        return new Schedule(placements, types, ObjectiveFunction.evaluate(problem, placements, types));
    }

    // =====================================================================================================

    private int perJobMax() {
        int total = 0;
        for (int t = 0; t < types; t++) total += typeGpus[t];
        return total;
    }

    private static int[] grow(int[] a, int size) {
        return a.length >= size ? a : new int[Math.max(size, a.length * 3 / 2)];
    }

    private static long[] grow(long[] a, int size) {
        return a.length >= size ? a : new long[Math.max(size, a.length * 3 / 2)];
    }

    private static double[] grow(double[] a, int size) {
        return a.length >= size ? a : new double[Math.max(size, a.length * 3 / 2)];
    }
    /** Like grow, keeping the contents (grow does not: per-call scratch is rewritten anyway). */
    private static int[] extend(int[] a, int size) {
        return a.length >= size ? a : Arrays.copyOf(a, Math.max(size, a.length * 2));
    }

    private static double[] extend(double[] a, int size) {
        return a.length >= size ? a : Arrays.copyOf(a, Math.max(size, a.length * 2));
    }

    private static boolean[] grow(boolean[] a, int size) {
        return a.length >= size ? a : new boolean[Math.max(size, a.length * 3 / 2)];
    }
}
