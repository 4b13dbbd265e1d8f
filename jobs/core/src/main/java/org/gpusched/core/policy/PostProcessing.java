package org.gpusched.core.policy;

/**
 * The thesis' post-processing (step 2) of one construction's open node with idle GPUs: (1) an equivalent smaller
 * type for a rightsizable node, (2) the idle GPUs to the jobs with the highest speed-up while the node's share of
 * f_OBJ does not grow (readings on {@link GreedyEngine}); step (2) by f_W instead in a call that searches by f_W with
 * moves free ({@link WastePostProcessing}). Changes the construction's jobs and nodes in place.
 */
final class PostProcessing {
    private final GreedyConstruction c;
    /** Scratch of {@link #loadTerms}: per job of one node, its tardiness, move charge and first-ending cost. */
    private double[] lateTerm = new double[0], chargeTerm = new double[0], firstTerm = new double[0];
    /** Out-values of {@link #termsOf}. */
    private double termLate, termCharge, termFirst;

    /** {@link #termsOf} a job placed anywhere but where it runs, kept per call in termsKept's slots (36 bytes each with its stamp). */
    private double[] keptRemaining = new double[0],
            keptLate = new double[0],
            keptCharge = new double[0],
            keptFirst = new double[0];

    private final ConfigSlots termsKept = new ConfigSlots();

    PostProcessing(GreedyConstruction construction) {
        this.c = construction;
    }

    /** Sizes the kept terms for a call and forgets the last call's. */
    void prepare() {
        if (termsKept.startCall(c.tables)) {
            int capacity = termsKept.capacity();
            keptRemaining = new double[capacity];
            keptLate = new double[capacity];
            keptCharge = new double[capacity];
            keptFirst = new double[capacity];
        }
    }

    void postProcess(int n) {
        loadTerms(n);
        if (c.tables.rightsizable[n] && downsize(n) && c.pool.nodeFree[n] > 0) loadTerms(n);
        if (c.wastePostProcessing) c.wastePost.giveIdleGpus(n);
        else giveIdleGpus(n);
        refreshFirstCost(n);
    }

    /** Node n's least job cost, f_OBJ's first-ending job, after its jobs changed. */
    void refreshFirstCost(int n) {
        NodePool np = c.pool;
        int maxG = c.tables.maxG;
        double first = Double.POSITIVE_INFINITY;
        for (int k = 0, count = np.nodeJobCount[n]; k < count; k++) {
            double cost = c.jobCost[np.nodeJobs[n * maxG + k]];
            if (cost < first) first = cost;
        }
        np.nodeFirstCost[n] = first;
    }

    /**
     * The node's share of f_OBJ as it stands, from its loaded terms ({@link #loadTerms}): its jobs' tardiness, its
     * first-ending cost and mu x idle GPUs.
     */
    private double nodeShare(int n) {
        return shareWith(n, -1, 0, 0, 0, c.pool.nodeFree[n]);
    }

    /**
     * Each of node n's jobs' terms of {@link #nodeShare}, in the node's job order, for its configuration now; kept up
     * to date as the post-processing changes a job (the same terms a fresh load gives: the same function of the
     * same placement).
     */
    private void loadTerms(int n) {
        ProblemTables p = c.tables;
        NodePool np = c.pool;
        int count = np.nodeJobCount[n];
        if (lateTerm.length < count) {
            lateTerm = new double[p.maxG];
            chargeTerm = new double[p.maxG];
            firstTerm = new double[p.maxG];
        }
        int t = np.nodeType[n];
        for (int i = 0; i < count; i++) {
            int j = np.nodeJobs[n * p.maxG + i];
            termsOf(j, n, t, c.jobGpus[j]);
            lateTerm[i] = termLate;
            chargeTerm[i] = termCharge;
            firstTerm[i] = termFirst;
        }
    }

    /**
     * Job j's terms on node n as type t with g GPUs, into {@link #termLate}, {@link #termCharge} and
     * {@link #termFirst}; returns its remaining time there (NaN: no time for that configuration).
     */
    private double termsOf(int j, int n, int t, int g) {
        if (!termsKept.keeps() || c.configs.runsAt(j, n, t, g)) return computeTerms(j, n, t, g);
        // anywhere but where it runs the job needs the same time and is charged the same: one pricing per call
        int at = termsKept.slot(j, t, g);
        if (!termsKept.valid(at)) {
            keptRemaining[at] = computeTerms(j, n, t, g);
            keptLate[at] = termLate;
            keptCharge[at] = termCharge;
            keptFirst[at] = termFirst;
            termsKept.markValid(at);
            return keptRemaining[at];
        }
        termLate = keptLate[at];
        termCharge = keptCharge[at];
        termFirst = keptFirst[at];
        return keptRemaining[at];
    }

    private double computeTerms(int j, int n, int t, int g) {
        ProblemTables p = c.tables;
        JobConfigurations cf = c.configs;
        double r = c.remainingOn(j, n, t, g);
        double lateness = p.now + r - cf.due[j];
        termLate = lateness > 0 ? cf.weight[j] * lateness / 3600.0 : 0;
        termCharge = cf.chargesMoves ? p.problem.moveCharge(j, n, t, g, r) : 0;
        termFirst = r / 3600.0 * p.rate[t * p.stride + g];
        return r;
    }

    /**
     * {@link #nodeShare} from the loaded terms, the job at index {@code replaced} (none: -1) given the terms passed
     * instead and the node {@code free} idle GPUs. The sums run in the same order as over fresh terms, so a share
     * compares with another bit for bit; adding a zero term changes no sum.
     */
    private double shareWith(int n, int replaced, double lateOf, double chargeOf, double firstOf, int free) {
        double tard = 0, firstEnd = Double.POSITIVE_INFINITY;
        for (int i = 0, count = c.pool.nodeJobCount[n]; i < count; i++) {
            boolean swapped = i == replaced;
            tard += swapped ? lateOf : lateTerm[i];
            tard += swapped ? chargeOf : chargeTerm[i];
            firstEnd = Math.min(firstEnd, swapped ? firstOf : firstTerm[i]);
        }
        return tard + firstEnd + c.tables.mu * free;
    }

    /**
     * Thesis: "an equivalent configuration (same VM type) with a lower number of GPUs". Returns whether the node's
     * type changed (its jobs' loaded terms are then stale).
     */
    private boolean downsize(int n) {
        ProblemTables p = c.tables;
        NodePool np = c.pool;
        int t = np.nodeType[n];
        int busy = p.typeGpus[t] - np.nodeFree[n];
        double bestShare = nodeShare(n);
        int bestType = t;
        int count = np.nodeJobCount[n];
        for (int e = p.eqStart[t]; e < p.eqStart[t + 1]; e++) {
            int u = p.eqList[e];
            if (p.typeGpus[u] < busy || !p.canType[n * p.types + u]) continue;
            boolean holds = true;
            double tard = 0, first = Double.POSITIVE_INFINITY;
            for (int i = 0; i < count && holds; i++) {
                int j = np.nodeJobs[n * p.maxG + i];
                if (Double.isNaN(termsOf(j, n, u, c.jobGpus[j]))) {
                    holds = false;
                    break;
                }
                tard += termLate;
                tard += termCharge;
                first = Math.min(first, termFirst);
            }
            if (!holds) continue;
            double share = tard + first + p.mu * (p.typeGpus[u] - busy);
            if (share < bestShare) {
                bestShare = share;
                bestType = u;
            }
        }
        if (bestType != t) {
            np.nodeType[n] = bestType;
            np.nodeFree[n] = p.typeGpus[bestType] - busy;
            for (int i = 0; i < count; i++) {
                int j = np.nodeJobs[n * p.maxG + i];
                c.jobType[j] = bestType;
                c.refreshJob(j);
            }
            return true;
        }
        return false;
    }

    /**
     * Thesis: idle GPUs go to the job with the highest speed-up r(g)/r(g'), one move at a time; a move that would
     * raise the node's share of f_OBJ is skipped in favour of the next-highest speed-up.
     */
    private void giveIdleGpus(int n) {
        ProblemTables p = c.tables;
        NodePool np = c.pool;
        int[] jobGpus = c.jobGpus;
        int t = np.nodeType[n];
        int count = np.nodeJobCount[n];
        while (np.nodeFree[n] > 0) {
            double before = nodeShare(n);
            double bestSpeedup = 1;
            int bestJob = -1, bestG = 0, bestIndex = -1;
            double bestLate = 0, bestCharge = 0, bestFirst = 0;
            for (int i = 0; i < count; i++) {
                int j = np.nodeJobs[n * p.maxG + i];
                int g = jobGpus[j];
                double r = p.problem.remaining(j, t, g);
                int limit = Math.min(p.typeGpus[t], g + np.nodeFree[n]);
                // largest count first: once a count passes, the smaller ones (mostly slower) are priced only when
                // as fast; among equal speed-ups of one job the smallest count wins, of two jobs the first, as a
                // scan of increasing counts keeping the first strictly faster one would give
                for (int h = limit; h > g; h--) {
                    double rh = p.problem.remaining(j, t, h);
                    if (Double.isNaN(rh)) continue;
                    double speedup = r / rh;
                    if (!(speedup > bestSpeedup || speedup == bestSpeedup && bestIndex == i)) continue;
                    termsOf(j, n, t, h);
                    if (shareWith(n, i, termLate, termCharge, termFirst, np.nodeFree[n] - (h - g)) <= before) {
                        bestSpeedup = speedup;
                        bestJob = j;
                        bestG = h;
                        bestIndex = i;
                        bestLate = termLate;
                        bestCharge = termCharge;
                        bestFirst = termFirst;
                    }
                }
            }
            if (bestJob < 0) return;
            np.nodeFree[n] -= bestG - jobGpus[bestJob];
            jobGpus[bestJob] = bestG;
            c.refreshJob(bestJob);
            lateTerm[bestIndex] = bestLate;
            chargeTerm[bestIndex] = bestCharge;
            firstTerm[bestIndex] = bestFirst;
        }
    }
}
