package org.gpusched.core.policy;

/**
 * The thesis' post-processing (step 2) of one construction's open node with idle GPUs: (1) an equivalent smaller
 * type for a rightsizable node, (2) the idle GPUs to the jobs with the highest speed-up while the node's share of
 * f_OBJ does not grow (readings on {@link GreedyEngine}). Changes the construction's jobs and nodes in place.
 */
final class PostProcessing {
    private final GreedyConstruction c;

    PostProcessing(GreedyConstruction construction) {
        this.c = construction;
    }

    void postProcess(int n) {
        if (c.tables.rightsizable[n]) downsize(n);
        giveIdleGpus(n);
        refreshFirstCost(n);
    }

    private void refreshFirstCost(int n) {
        NodePool np = c.pool;
        int maxG = c.tables.maxG;
        double first = Double.POSITIVE_INFINITY;
        for (int k = 0, count = np.nodeJobCount[n]; k < count; k++) {
            double cost = c.jobCost[np.nodeJobs[n * maxG + k]];
            if (cost < first) first = cost;
        }
        np.nodeFirstCost[n] = first;
    }

    /** The node's share of f_OBJ as it stands: its jobs' tardiness, its first-ending cost and mu x idle GPUs. */
    private double nodeShare(int n) {
        ProblemTables p = c.tables;
        JobConfigurations cf = c.configs;
        NodePool np = c.pool;
        int t = np.nodeType[n];
        double tard = 0, first = Double.POSITIVE_INFINITY;
        int count = np.nodeJobCount[n];
        for (int i = 0; i < count; i++) {
            int j = np.nodeJobs[n * p.maxG + i];
            int g = c.jobGpus[j];
            double r = c.remainingOn(j, n, t, g);
            double late = p.now + r - cf.due[j];
            if (late > 0) tard += cf.weight[j] * late / 3600.0;
            if (cf.chargesMoves) tard += p.problem.moveCharge(j, n, t, g);
            first = Math.min(first, r / 3600.0 * p.rate[t * p.stride + g]);
        }
        return tard + first + p.mu * np.nodeFree[n];
    }

    /** Thesis: "an equivalent configuration (same VM type) with a lower number of GPUs". */
    private void downsize(int n) {
        ProblemTables p = c.tables;
        JobConfigurations cf = c.configs;
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
                int g = c.jobGpus[j];
                double r = c.remainingOn(j, n, u, g);
                if (Double.isNaN(r)) {
                    holds = false;
                    break;
                }
                double late = p.now + r - cf.due[j];
                if (late > 0) tard += cf.weight[j] * late / 3600.0;
                if (cf.chargesMoves) tard += p.problem.moveCharge(j, n, u, g);
                first = Math.min(first, r / 3600.0 * p.rate[u * p.stride + g]);
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
        }
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
            int bestJob = -1, bestG = 0;
            for (int i = 0; i < count; i++) {
                int j = np.nodeJobs[n * p.maxG + i];
                int g = jobGpus[j];
                double r = p.problem.remaining(j, t, g);
                int limit = Math.min(p.typeGpus[t], g + np.nodeFree[n]);
                for (int h = g + 1; h <= limit; h++) {
                    double rh = p.problem.remaining(j, t, h);
                    if (Double.isNaN(rh)) continue;
                    double speedup = r / rh;
                    if (!(speedup > bestSpeedup)) continue;
                    jobGpus[j] = h;
                    np.nodeFree[n] -= h - g;
                    boolean acceptable = nodeShare(n) <= before;
                    jobGpus[j] = g;
                    np.nodeFree[n] += h - g;
                    if (acceptable) {
                        bestSpeedup = speedup;
                        bestJob = j;
                        bestG = h;
                    }
                }
            }
            if (bestJob < 0) return;
            np.nodeFree[n] -= bestG - jobGpus[bestJob];
            jobGpus[bestJob] = bestG;
            c.refreshJob(bestJob);
        }
    }
}
