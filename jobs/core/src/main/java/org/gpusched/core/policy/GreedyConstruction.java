package org.gpusched.core.policy;

import java.util.Arrays;
import org.gpusched.core.random.RandomState;

/**
 * One construction of {@link GreedyEngine} (thesis 3.1.3 steps 1-2, ANDREAS Algorithm 1 lines 3-20) and the state
 * it changes: the job order after random swaps, each job's placement, the nodes ({@link NodePool}), the opening
 * rule's demand, and the record of its random draws for the {@link DrawMemo}. Reads the call's
 * {@link ProblemTables} and {@link JobConfigurations}; {@link #reset} undoes a construction by touching only what it
 * changed, so one instance serves every iteration of a worker. Not thread-safe: one per worker.
 */
final class GreedyConstruction {
    private static final int K = GreedyEngine.CANDIDATES;

    private final NodeOpening opening;
    private final NodeOpening.Demand demand;
    final NodePool pool = new NodePool();
    final PostProcessing post = new PostProcessing(this);
    final WastePostProcessing wastePost = new WastePostProcessing(this);
    ProblemTables tables;
    JobConfigurations configs;

    private int[] work = new int[0];
    int[] jobNode = new int[0], jobType = new int[0], jobGpus = new int[0];
    private long[] jobDeltaUnits = new long[0];
    /** Under {@link Ranking#WASTE}: each placed job's progress credit, in units ({@link JobConfigurations#progressUnits}). */
    private long[] jobProgressUnits = new long[0];

    double[] jobCost = new double[0];
    boolean wastePostProcessing;
    private long placedDelta; // sum of jobDeltaUnits over placed jobs
    private long placedProgress; // sum of jobProgressUnits over placed jobs
    /** Per job, its migration's figures ({@link #priceMigration}), kept for the call where migrationPriced says so. */
    private double[] migrationCost = new double[0];

    private long[] migrationDelta = new long[0], migrationProgress = new long[0];
    private final CallStamps migrationPriced = new CallStamps();
    /**
     * {@link #refreshJob}'s figures of a job anywhere but where it runs (the post-processing gives the same jobs the
     * same GPU counts in many constructions), kept per call in refreshedKept's slots.
     */
    private double[] refreshedCost = new double[0];

    private long[] refreshedDelta = new long[0], refreshedProgress = new long[0];
    private final ConfigSlots refreshedKept = new ConfigSlots();
    /** {@link #useConfig}'s f_OBJ change and progress credit per configuration index, kept for the call where configPriced says so. */
    private long[] configDelta = new long[0], configProgress = new long[0];

    private final CallStamps configPriced = new CallStamps();
    private int[] placed = new int[0];
    private int placedCount;
    private final int[] pickNodes = new int[K];
    private final double[] pickWeights = new double[K];
    /** The configuration being tried for the current job. */
    private int candType, candGpus;

    private long candDelta, candProgress;
    private double candCost;

    // ---- the draw memo's view of this construction ----
    private DrawMemo memo;
    /** Uniforms the memo walk already drew for this iteration, to be reused before fresh ones. */
    private int replayCount, replayPos;

    private boolean recording;
    private int pathLength;
    private int[] pathKind = new int[64], pathOutcome = new int[64], pathParamFrom = new int[65];
    private double[] pathParams = new double[192];

    GreedyConstruction(NodeOpening opening) {
        this.opening = opening;
        this.demand = opening.demand();
    }

    /**
     * Sizes and clears the state for a call's problem; {@code wastePostProcessing}: post-processed by f_W
     * ({@link WastePostProcessing}), else by the thesis' rule ({@link PostProcessing}).
     */
    void prepare(ProblemTables tables, JobConfigurations configs, boolean wastePostProcessing) {
        this.tables = tables;
        this.configs = configs;
        this.wastePostProcessing = wastePostProcessing;
        int jobs = tables.jobs;
        pool.prepare(tables);
        post.prepare();
        if (wastePostProcessing) wastePost.prepare();
        if (migrationPriced.startCall(jobs)) {
            int capacity = migrationPriced.capacity();
            migrationCost = new double[capacity];
            migrationDelta = new long[capacity];
            migrationProgress = new long[capacity];
        }
        if (refreshedKept.startCall(tables)) {
            int capacity = refreshedKept.capacity();
            refreshedCost = new double[capacity];
            refreshedDelta = new long[capacity];
            refreshedProgress = new long[capacity];
        }
        if (configPriced.startCall(configs.cfgType.length)) {
            configDelta = new long[configPriced.capacity()];
            configProgress = new long[configPriced.capacity()];
        }
        work = GreedyArrays.grow(work, jobs);
        System.arraycopy(configs.sortedJobs, 0, work, 0, jobs);
        jobNode = GreedyArrays.grow(jobNode, jobs);
        jobType = GreedyArrays.grow(jobType, jobs);
        jobGpus = GreedyArrays.grow(jobGpus, jobs);
        jobDeltaUnits = GreedyArrays.grow(jobDeltaUnits, jobs);
        jobProgressUnits = GreedyArrays.grow(jobProgressUnits, jobs);
        jobCost = GreedyArrays.grow(jobCost, jobs);
        placed = GreedyArrays.grow(placed, jobs);
        Arrays.fill(jobNode, 0, jobs, -1);
        Arrays.fill(jobType, 0, jobs, -1);
        Arrays.fill(jobGpus, 0, jobs, 0);
        placedCount = 0;
        placedDelta = 0;
        placedProgress = 0;
    }

    /** Undoes the last construction by touching only what it changed. */
    void reset() {
        pool.reset();
        for (int i = 0; i < placedCount; i++) {
            int j = placed[i];
            jobNode[j] = -1;
            jobType[j] = -1;
            jobGpus[j] = 0;
        }
        placedCount = 0;
        placedDelta = 0;
        placedProgress = 0;
    }

    // ---- the draw memo ----

    /**
     * The next construction first reuses the {@code drawn} uniforms {@code memo} already took from the random state,
     * and records its draws into its path when {@code record}.
     */
    void replayThenRecord(DrawMemo memo, int drawn, boolean record) {
        this.memo = memo;
        replayCount = drawn;
        replayPos = 0;
        recording = record;
        pathLength = 0;
    }

    /** Inserts the recorded path of the last construction into the memo, if it recorded; ends the replay. */
    void endReplay() {
        if (recording) memo.insert(pathLength, pathKind, pathParamFrom, pathParams, pathOutcome);
        recording = false;
        replayCount = 0;
    }

    // =====================================================================================================

    /** Builds one solution and returns its f_OBJ; {@code random == null} means the deterministic greedy. */
    long construct(RandomState random, boolean bestFit) {
        JobConfigurations cf = configs;
        NodePool np = pool;
        int jobs = tables.jobs;
        int[] minGpus = cf.minGpus, topCount = cf.topCount, topType = cf.topType, topGpus = cf.topGpus;
        double[] swapProbability = cf.swapProbability;
        boolean randomized = random != null;
        boolean countDemand = opening.active();
        if (countDemand) demand.startConstruction();
        int touched = 0;
        for (int pos = 0; pos < jobs; pos++) {
            if (np.offTotal == 0 && np.freeOpenTotal == 0) break;
            if (randomized && pos + 1 < jobs && swapDrawn(random, swapProbability[work[pos]])) {
                int tmp = work[pos];
                work[pos] = work[pos + 1];
                work[pos + 1] = tmp;
            }
            touched = pos + 2;
            int j = work[pos];
            // maxAvailable is refreshed only when a job could not be placed: capacity only shrinks within an
            // iteration, so a stale value is an upper bound and the quick reject stays exact
            if (minGpus[j] <= np.maxAvailable && !place(j, random, bestFit)) {
                np.recomputeMaxAvailable();
                // Nothing more fits: the jobs left (the next position's, possibly carried back by swaps, and those
                // after it in pressure order) all want more GPUs than any node can still give. Stopping here builds
                // the same schedule; only the draws the rest would take are not taken, and every iteration has its
                // own stream.
                if (pos + 1 < jobs && np.maxAvailable < Math.min(minGpus[work[pos + 1]], cf.suffixMinGpus[pos + 2]))
                    break;
            }
            if (countDemand && topCount[j] > 0) demand.passed(topType[j * K], topGpus[j * K]);
        }
        if (randomized) System.arraycopy(cf.sortedJobs, 0, work, 0, Math.min(touched, jobs));
        np.clearBuckets();
        if (wastePostProcessing) wastePost.bringJobsToIdleGpus();
        for (int i = 0; i < np.openedCount; i++) {
            int n = np.opened[i];
            if (np.nodeFree[n] > 0) post.postProcess(n);
        }
        return objective();
    }

    /** @return whether the job was placed (else it is postponed) */
    private boolean place(int j, RandomState random, boolean bestFit) {
        JobConfigurations cf = configs;
        int base = j * K;
        int k = random == null || cf.topCount[j] == 1
                ? 0
                : pick(DrawMemo.CUMULATIVE, random, cf.topCumWeight, base, cf.topCount[j]);
        int slot = base + k;
        candType = cf.topType[slot];
        candGpus = cf.topGpus[slot];
        candDelta = cf.topDelta[slot];
        candProgress = cf.ranking == Ranking.WASTE ? cf.topProgress[slot] : 0;
        candCost = cf.topCost[slot];
        return assignOpen(j, random, bestFit) || assignNew(j, random) || placeSubOptimal(j, random, bestFit);
    }

    /** The drawn configuration fits nowhere: thesis (c). Kept apart so that the common path of place stays small. */
    private boolean placeSubOptimal(int j, RandomState random, boolean bestFit) {
        // Sub-optimal: the most preferred configuration that fits an open node, else one a node can be switched on
        // for. The chosen one cannot be among them: it just failed both ways.
        JobConfigurations cf = configs;
        cf.ensureSorted(j);
        int types = tables.types;
        long alt = JobConfigurations.NONE;
        for (int t = 0; t < types; t++) {
            int cap = pool.maxFreeOpen[t];
            if (cap > 0) alt = Math.min(alt, cf.bestUpTo(j, t, cap));
        }
        if (alt != JobConfigurations.NONE) {
            useConfig(j, (int) alt);
            return assignOpen(j, random, bestFit);
        }
        if (pool.offTotal == 0) return false;
        for (int t = 0; t < types; t++) {
            if (pool.typeHasOff[t]) alt = Math.min(alt, cf.bestUpTo(j, t, tables.typeGpus[t]));
        }
        if (alt != JobConfigurations.NONE) {
            useConfig(j, (int) alt);
            return assignNew(j, random);
        }
        return false;
    }

    private void useConfig(int j, int c) {
        JobConfigurations cf = configs;
        candType = cf.cfgType[c];
        candGpus = cf.cfgGpus[c];
        if (!configPriced.valid(c)) {
            configDelta[c] = cf.deltaUnits(j, c);
            configProgress[c] = cf.ranking == Ranking.WASTE ? cf.progressUnits(j, cf.cfgTime[c]) : 0;
            configPriced.markValid(c);
        }
        candDelta = configDelta[c];
        candProgress = configProgress[c];
        candCost = cf.cfgCost[c];
    }

    // ---- the random draws: every one takes one uniform, and is recorded for the draw memo while it records ----

    private double uniform(RandomState random) {
        return replayPos < replayCount ? memo.drawn(replayPos++) : random.nextDouble();
    }

    private boolean swapDrawn(RandomState random, double probability) {
        boolean swap = DrawMemo.coin(uniform(random), probability);
        if (recording) {
            pathParams = GreedyArrays.extend(pathParams, pathParamFrom[pathLength] + 1);
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
            pathParams = GreedyArrays.extend(pathParams, pathParamFrom[pathLength] + count);
            System.arraycopy(values, offset, pathParams, pathParamFrom[pathLength], count);
            endRecord(kind, k, count);
        }
        return k;
    }

    private void endRecord(int kind, int outcome, int paramCount) {
        pathKind = GreedyArrays.extend(pathKind, pathLength + 1);
        pathOutcome = GreedyArrays.extend(pathOutcome, pathLength + 1);
        pathParamFrom = GreedyArrays.extend(pathParamFrom, pathLength + 2);
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
            if (pool.maxFreeOpen[u] < g) continue;
            int c = opening.configOn(j, u, g);
            if (c == NodeOpening.NONE) continue;
            useConfig(j, c);
            return assignOpenAsCandidate(j, random, bestFit);
        }
        return false;
    }

    private boolean assignOpenAsCandidate(int j, RandomState random, boolean bestFit) {
        int t = candType;
        int g = candGpus;
        NodePool np = pool;
        if (np.maxFreeOpen[t] < g) return false;
        int current = configs.jobCurNode[j];
        if (current >= 0 && np.nodeType[current] == t && np.nodeFree[current] >= g) {
            assign(j, current);
            return true;
        }
        int n;
        if (!bestFit) n = np.firstFit(t, g);
        else if (random == null) n = np.tightestOpen(t, g);
        else n = randomizedBestFit(t, g, random);
        assign(j, n);
        return true;
    }

    /** Thesis Fig. 3.3: open nodes by saturation, one of the best few drawn with weight 1 / (1 + idle left). */
    private int randomizedBestFit(int t, int g, RandomState random) {
        int found = pool.mostSaturating(t, g, K, pickNodes, pickWeights);
        return found == 1 ? pickNodes[0] : pickNodes[pick(DrawMemo.WEIGHTS, random, pickWeights, 0, found)];
    }

    /** Switches a node on for configuration c (thesis (b)): the job's own node if it can, else by preference. */
    private boolean assignNew(int j, RandomState random) {
        NodePool np = pool;
        if (np.offTotal == 0) return false;
        int count = demand.typesToOpen(j, candType, candGpus, np.typeHasOff);
        if (count == 0) return false;
        int t = demand.candidate[
                random == null || count == 1 || opening.rule() != NodeOpeningRule.PACKED
                        ? 0
                        : pick(DrawMemo.WEIGHTS, random, demand.candidateWeight, 0, count)];
        if (t != candType) useConfig(j, opening.configOn(j, t, candGpus));
        int current = configs.jobCurNode[j];
        int n;
        if (current >= 0 && np.nodeType[current] == -1 && tables.canType[current * tables.types + t]) n = current;
        else n = np.offNodeFor(t);
        if (n < 0) return false;
        assign(j, n);
        return true;
    }

    /** Places job j on node n with the current candidate configuration, switching n on if it is off. */
    private void assign(int j, int n) {
        double cost = candCost;
        long delta = candDelta, progress = candProgress;
        JobConfigurations cf = configs;
        if (cf.chargesMoves && cf.jobCurNode[j] >= 0 && cf.jobCurNode[j] != n) {
            // its current configuration on another node: a migration, with what it loses (other configurations
            // carry theirs already)
            if (candType == cf.jobCurType[j] && candGpus == cf.jobCurG[j]) {
                if (!migrationPriced.valid(j)) priceMigration(j, n);
                cost = migrationCost[j];
                delta = migrationDelta[j];
                progress = migrationProgress[j];
            }
        }
        pool.take(n, candType, candGpus, j, cost);
        jobNode[j] = n;
        jobType[j] = candType;
        jobGpus[j] = candGpus;
        jobDeltaUnits[j] = delta;
        jobProgressUnits[j] = progress;
        jobCost[j] = cost;
        placedDelta += delta;
        placedProgress += progress;
        placed[placedCount++] = j;
    }

    /**
     * What job j's current configuration costs on another node than its own: the same on every other node (the move
     * loses the same work, and its charge reads only the time it then needs), so priced once per call and kept.
     */
    private void priceMigration(int j, int n) {
        JobConfigurations cf = configs;
        int t = cf.jobCurType[j], g = cf.jobCurG[j];
        double r = remainingOn(j, n, t, g);
        migrationCost[j] = r / 3600.0 * tables.rate[t * tables.stride + g];
        migrationDelta[j] = cf.deltaUnits(j, n, t, g, r);
        migrationProgress[j] = cf.ranking == Ranking.WASTE ? cf.progressUnits(j, r) : 0;
        migrationPriced.markValid(j);
    }

    /** After post-processing changed a job's type or GPU count. */
    void refreshJob(int j) {
        int n = jobNode[j], t = jobType[j], g = jobGpus[j];
        placedDelta -= jobDeltaUnits[j];
        placedProgress -= jobProgressUnits[j];
        if (!refreshedKept.keeps() || configs.runsAt(j, n, t, g)) {
            priceRefreshed(j, n, t, g);
        } else {
            // anywhere but where it runs the job needs the same time and is charged the same: one pricing per call
            int at = refreshedKept.slot(j, t, g);
            if (refreshedKept.valid(at)) {
                jobDeltaUnits[j] = refreshedDelta[at];
                jobProgressUnits[j] = refreshedProgress[at];
                jobCost[j] = refreshedCost[at];
            } else {
                priceRefreshed(j, n, t, g);
                refreshedDelta[at] = jobDeltaUnits[j];
                refreshedProgress[at] = jobProgressUnits[j];
                refreshedCost[at] = jobCost[j];
                refreshedKept.markValid(at);
            }
        }
        placedDelta += jobDeltaUnits[j];
        placedProgress += jobProgressUnits[j];
    }

    private void priceRefreshed(int j, int n, int t, int g) {
        double r = remainingOn(j, n, t, g);
        jobDeltaUnits[j] = configs.deltaUnits(j, n, t, g, r);
        jobProgressUnits[j] = configs.ranking == Ranking.WASTE ? configs.progressUnits(j, r) : 0;
        jobCost[j] = r / 3600.0 * tables.rate[t * tables.stride + g];
    }

    /** Seconds job j needs on node n as type t with g GPUs: with what a move loses when moves are charged. */
    double remainingOn(int j, int n, int t, int g) {
        return configs.chargesMoves ? tables.problem.remainingAt(j, n, t, g) : tables.problem.remaining(j, t, g);
    }

    /**
     * f_W ({@link org.gpusched.core.objective.WasteObjective}) of the current construction in fixed-point units, each
     * term rounded on its own as {@link #objective} does, so the sum does not depend on the order jobs were placed in.
     */
    private long waste() {
        NodePool np = pool;
        long[] spend = configs.nodeSpendUnits;
        int stride = tables.stride;
        int[] typeGpus = tables.typeGpus;
        long f = configs.postponedTotal + placedDelta - placedProgress;
        for (int i = 0; i < np.openedCount; i++) {
            int n = np.opened[i];
            int t = np.nodeType[n];
            f += spend[t * stride + typeGpus[t] - np.nodeFree[n]];
        }
        return f;
    }

    /**
     * f_OBJ of the current construction in fixed-point units ({@link JobConfigurations#unitsPerCost} per cost unit).
     * Integer sums do not depend on the order jobs were placed in, so the same schedule reached by different
     * iterations always ranks the same; the returned schedules carry the exact objective value.
     */
    private long objective() {
        if (configs.ranking == Ranking.WASTE) return waste();
        NodePool np = pool;
        double mu = tables.mu;
        long f = configs.postponedTotal + placedDelta;
        for (int i = 0; i < np.openedCount; i++) {
            int n = np.opened[i];
            f += configs.units(np.nodeFirstCost[n] + mu * np.nodeFree[n]);
        }
        return f;
    }
}
