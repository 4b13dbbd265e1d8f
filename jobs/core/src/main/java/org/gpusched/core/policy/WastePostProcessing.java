package org.gpusched.core.policy;

import java.util.Arrays;

/**
 * The post-processing of a construction ranked by f_W in a call that searches with moves free (andreas-rg with
 * MaxIt > 1 in the papers' setting), where the product departs from the thesis' step 2 ({@link PostProcessing}): jobs
 * that scale are brought to the nodes left with idle GPUs ({@link #bringJobsToIdleGpus}), and each node's idle GPUs
 * are split among its jobs as f_W is lowest ({@link #giveIdleGpus}). Changes the construction's jobs and nodes in
 * place; not thread-safe, one per construction.
 */
final class WastePostProcessing {
    /** A job with no time for a configuration. */
    private static final long NONE = Long.MAX_VALUE;
    /** A split no choice of the jobs' GPUs reaches. */
    private static final long UNREACHABLE = Long.MIN_VALUE;

    private final GreedyConstruction c;

    /** Scratch of {@link #planIdleGpus}: per job of one node and GPU count, its f_W job terms (NONE: no time). */
    private long[] wasteTerms = new long[0];
    /** Scratch of {@link #planIdleGpus}: best gains by (jobs considered, GPUs handed out), and the last job's share. */
    private long[] bestGain = new long[0];

    private int[] share = new int[0];
    /** {@link #planIdleGpus}'s result: per job of the node, the idle GPUs it is to get. */
    private int[] handOut = new int[0];

    /** {@link #gainPerGpu} of a job on a node not its own, by [(job x types + type) x stride + GPUs], kept per call. */
    private double[] keptGain = new double[0];

    private final ConfigSlots gainKept = new ConfigSlots();

    WastePostProcessing(GreedyConstruction construction) {
        this.c = construction;
    }

    /** Sizes the kept gains for a call and forgets the last call's. */
    void prepare() {
        if (gainKept.startCall(c.tables)) keptGain = new double[gainKept.capacity()];
    }

    /**
     * Under f_W: node n's idle GPUs go to its jobs as f_W is lowest (an exact split over the node's few jobs and
     * GPUs, {@link #planIdleGpus}). The thesis' rule gives them one job at a time to the highest speed-up r(g) / r(h),
     * which hands them all to the job that gains most from all of them however little each adds, checked only
     * against f_OBJ's node share; f_W counts what each GPU turns into progress, and what it saves in tardiness.
     */
    void giveIdleGpus(int n) {
        if (planIdleGpus(n) <= 0) return;
        ProblemTables p = c.tables;
        NodePool np = c.pool;
        for (int i = 0, count = np.nodeJobCount[n]; i < count; i++) {
            if (handOut[i] == 0) continue;
            int j = np.nodeJobs[n * p.maxG + i];
            c.jobGpus[j] += handOut[i];
            np.nodeFree[n] -= handOut[i];
            c.refreshJob(j);
        }
    }

    /**
     * The split of node n's idle GPUs among its jobs that lowers f_W most: its jobs' terms (progress credit,
     * tardiness, move terms) at each GPU count, less what the node spends more on the busier GPUs (nothing on a VM
     * leased whole). A knapsack over the node's jobs by dynamic programming (at most GPUs x GPUs x jobs steps), so a
     * job whose next time is several GPUs up is weighed against several jobs one GPU up. Fills {@link #handOut};
     * returns the f_W it saves, in units (0: none, nothing handed out). Ties go to fewer GPUs and to the job earlier on
     * the node, so the split does not depend on anything but the node's jobs in their order.
     */
    private long planIdleGpus(int n) {
        ProblemTables p = c.tables;
        NodePool np = c.pool;
        int t = np.nodeType[n];
        int gpus = p.typeGpus[t];
        int idle = np.nodeFree[n];
        int count = np.nodeJobCount[n];
        int row = gpus + 1;
        if (wasteTerms.length < count * row) wasteTerms = new long[Math.max(count, p.maxG) * row];
        if (bestGain.length < (count + 1) * row) {
            bestGain = new long[(Math.max(count, p.maxG) + 1) * row];
            share = new int[bestGain.length];
        }
        if (handOut.length < count) handOut = new int[Math.max(count, p.maxG)];
        Arrays.fill(handOut, 0, count, 0);
        Arrays.fill(bestGain, 0, row, UNREACHABLE);
        bestGain[0] = 0;
        for (int i = 0; i < count; i++) {
            int j = np.nodeJobs[n * p.maxG + i];
            int g = c.jobGpus[j];
            for (int h = g, last = Math.min(gpus, g + idle); h <= last; h++)
                wasteTerms[i * row + h] = wasteTerm(j, n, t, h);
            long base = wasteTerms[i * row + g];
            int from = i * row, to = from + row;
            for (int given = 0; given <= idle; given++) {
                long best = UNREACHABLE;
                int bestShare = 0;
                for (int e = 0; e <= given && g + e <= gpus; e++) {
                    long before = bestGain[from + given - e];
                    long term = wasteTerms[i * row + g + e];
                    if (before == UNREACHABLE || term == NONE) continue;
                    long gain = before + base - term;
                    if (gain > best) {
                        best = gain;
                        bestShare = e;
                    }
                }
                bestGain[to + given] = best;
                share[to + given] = bestShare;
            }
        }
        long[] spend = c.configs.nodeSpendUnits;
        int spendBase = t * p.stride + gpus - idle;
        long best = 0;
        int given = 0;
        for (int e = 1; e <= idle; e++) {
            long gain = bestGain[count * row + e];
            if (gain == UNREACHABLE) continue;
            gain -= spend[spendBase + e] - spend[spendBase];
            if (gain > best) {
                best = gain;
                given = e;
            }
        }
        for (int i = count - 1; i >= 0 && given > 0; i--) {
            int e = share[(i + 1) * row + given];
            handOut[i] = e;
            given -= e;
        }
        return best;
    }

    /**
     * Under f_W, before any node's idle GPUs are handed out: jobs that would put them to more use come to the nodes
     * that have them. The construction fills nodes in pressure order, so a node left with idle GPUs holds whatever
     * came last, often one job alone, whose speed-up then takes the whole node however little each GPU adds, while
     * jobs that scale well sit one GPU each on full nodes. For each node with idle GPUs, one step at a time, the job
     * of its type on another node holding two jobs or more with the best gain per GPU ({@link #gainPerGpu}) moves in
     * if it fits, else trades places with the node's job of the least gain (same configuration, so no load changes). A
     * step is made only if it lowers f_W: the two nodes' best splits of their idle GPUs ({@link #planIdleGpus}) save
     * more than the step adds to the jobs' terms (their move charges when moves are charged) and to the two nodes'
     * spend. The first step that would not stops the node's turn.
     */
    void bringJobsToIdleGpus() {
        NodePool np = c.pool;
        for (int a = 0; a < np.openedCount; a++) {
            int n = np.opened[a];
            if (np.nodeFree[n] > 0) bringJobsTo(n);
        }
    }

    private void bringJobsTo(int n) {
        ProblemTables p = c.tables;
        NodePool np = c.pool;
        int t = np.nodeType[n];
        for (int steps = 0; steps < p.typeGpus[t] && np.nodeFree[n] > 0; steps++) {
            int from = -1, fromIndex = -1;
            double bestGain = 0;
            for (int b = 0; b < np.openedCount; b++) {
                int m = np.opened[b];
                if (m == n || np.nodeType[m] != t || np.nodeJobCount[m] < 2) continue;
                for (int i = 0, count = np.nodeJobCount[m]; i < count; i++) {
                    int k = np.nodeJobs[m * p.maxG + i];
                    double gain = gainPerGpu(k, n, t, c.jobGpus[k]);
                    if (gain > bestGain) {
                        bestGain = gain;
                        from = m;
                        fromIndex = i;
                    }
                }
            }
            if (from < 0) return;
            int k = np.nodeJobs[from * p.maxG + fromIndex];
            boolean moved = c.jobGpus[k] <= np.nodeFree[n] ? moveIn(n, from, fromIndex) : tradeIn(n, from, fromIndex);
            if (!moved) return;
        }
    }

    /** Moves the job at {@code index} on node m to node n if that lowers f_W; returns whether it did. */
    private boolean moveIn(int n, int m, int index) {
        ProblemTables p = c.tables;
        NodePool np = c.pool;
        int t = np.nodeType[n];
        int k = np.nodeJobs[m * p.maxG + index];
        int g = c.jobGpus[k];
        long[] spend = c.configs.nodeSpendUnits;
        int base = t * p.stride;
        int busyN = p.typeGpus[t] - np.nodeFree[n], busyM = p.typeGpus[t] - np.nodeFree[m];
        long added = wasteTerm(k, n, t, g)
                - wasteTerm(k, m, t, g)
                + spend[base + busyN + g]
                - spend[base + busyN]
                + spend[base + busyM - g]
                - spend[base + busyM];
        long savedBefore = planIdleGpus(n) + planIdleGpus(m);
        int lastM = np.nodeJobCount[m] - 1;
        np.nodeJobs[m * p.maxG + index] = np.nodeJobs[m * p.maxG + lastM];
        np.nodeJobCount[m] = lastM;
        np.nodeFree[m] += g;
        np.nodeJobs[n * p.maxG + np.nodeJobCount[n]] = k;
        np.nodeJobCount[n]++;
        np.nodeFree[n] -= g;
        if (planIdleGpus(n) + planIdleGpus(m) - savedBefore > added) {
            c.jobNode[k] = n;
            c.refreshJob(k);
            c.post.refreshFirstCost(m);
            return true;
        }
        np.nodeJobCount[n]--;
        np.nodeFree[n] += g;
        np.nodeFree[m] -= g;
        np.nodeJobs[m * p.maxG + lastM] = np.nodeJobs[m * p.maxG + index];
        np.nodeJobs[m * p.maxG + index] = k;
        np.nodeJobCount[m] = lastM + 1;
        return false;
    }

    /**
     * Trades the job at {@code index} on node m for node n's job of the same configuration with the least gain
     * per GPU, if that lowers f_W; returns whether it did.
     */
    private boolean tradeIn(int n, int m, int index) {
        ProblemTables p = c.tables;
        NodePool np = c.pool;
        int t = np.nodeType[n];
        int in = np.nodeJobs[m * p.maxG + index];
        int g = c.jobGpus[in];
        int low = -1;
        double lowGain = gainPerGpu(in, n, t, g);
        for (int i = 0, count = np.nodeJobCount[n]; i < count; i++) {
            int j = np.nodeJobs[n * p.maxG + i];
            if (c.jobGpus[j] != g) continue;
            double gain = gainPerGpu(j, n, t, g);
            if (gain < lowGain) {
                lowGain = gain;
                low = i;
            }
        }
        if (low < 0) return false;
        int out = np.nodeJobs[n * p.maxG + low];
        long added =
                wasteTerm(out, m, t, g) + wasteTerm(in, n, t, g) - wasteTerm(out, n, t, g) - wasteTerm(in, m, t, g);
        long savedBefore = planIdleGpus(n);
        np.nodeJobs[n * p.maxG + low] = in;
        if (planIdleGpus(n) - savedBefore <= added) {
            np.nodeJobs[n * p.maxG + low] = out;
            return false;
        }
        np.nodeJobs[m * p.maxG + index] = out;
        c.jobNode[in] = n;
        c.jobNode[out] = m;
        c.refreshJob(in);
        c.refreshJob(out);
        c.post.refreshFirstCost(m);
        return true;
    }

    /** Job j's f_W job terms on node n as type t with g GPUs, in units ({@link #NONE}: no time there). */
    private long wasteTerm(int j, int n, int t, int g) {
        if (Double.isNaN(c.tables.problem.remaining(j, t, g))) return NONE;
        double r = c.remainingOn(j, n, t, g);
        JobConfigurations cf = c.configs;
        return cf.deltaUnits(j, n, t, g, r) - cf.progressUnits(j, r);
    }

    /**
     * The most job j's f_W terms fall per GPU added to its g on a node of type t (0 if no more GPUs lower them), the
     * node's spend left out (on one node it is the same whichever job gets the GPUs). Job j on node n, which changes
     * it only through a move's charge, so it is kept per call for nodes other than j's own.
     */
    private double gainPerGpu(int j, int n, int t, int g) {
        ProblemTables p = c.tables;
        boolean kept = gainKept.keeps() && n != c.configs.jobCurNode[j];
        int at = gainKept.slot(j, t, g);
        if (kept && gainKept.valid(at)) return keptGain[at];
        long from = wasteTerm(j, n, t, g);
        double best = 0;
        for (int h = g + 1; from != NONE && h <= p.typeGpus[t]; h++) {
            long to = wasteTerm(j, n, t, h);
            if (to != NONE) best = Math.max(best, (double) (from - to) / (h - g));
        }
        if (kept) {
            keptGain[at] = best;
            gainKept.markValid(at);
        }
        return best;
    }
}
