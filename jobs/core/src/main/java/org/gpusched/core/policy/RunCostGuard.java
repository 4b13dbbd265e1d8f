package org.gpusched.core.policy;

import org.gpusched.core.model.NodeType;

/**
 * The run-cost guard of {@code rg-ls-guarded}: a move of the {@link LocalSearch} is kept only if it does not raise
 * the schedule's run cost, what it would cost if it ran to its end unchanged: each used node at its type's price at
 * the busy GPUs of each stretch as its jobs end one after the other (what {@link org.gpusched.core.objective.RealCost}
 * charges), the jobs' tardiness terms, and for a waiting job its postponement penalty plus its cheapest execution.
 * Why: f_OBJ charges a used node only until its first job ends (the papers' reading: the next event re-decides), so a
 * move that speeds up the first-ending job on a dearer VM, or slows down a job that ends after the others, can lower
 * f_OBJ while the node is paid longer or dearer until its last job ends; whole runs pay the latter.
 */
final class RunCostGuard {
    private final LocalSearch s;
    /** Run cost of the last search's start and of what it returned. */
    double startRunCost, resultRunCost;

    private double[] nodeRunCost = new double[0], futureCost = new double[0];
    private double[] runRemaining = new double[0];
    private int[] runGpus = new int[0];

    RunCostGuard(LocalSearch search) {
        this.s = search;
    }

    /** Sizes the arrays and prices each job's cheapest execution, once the search has loaded its start. */
    void load() {
        if (futureCost.length < s.jobs) futureCost = new double[s.jobs];
        if (nodeRunCost.length < s.nodes) nodeRunCost = new double[s.nodes];
        if (runRemaining.length < s.slots) {
            runRemaining = new double[s.slots];
            runGpus = new int[s.slots];
        }
        for (int j = 0; j < s.jobs; j++) futureCost[j] = cheapestExecution(j);
    }

    void start() {
        startRunCost = resultRunCost = totalRunCost();
    }

    void finish() {
        resultRunCost = totalRunCost();
    }

    void refreshNode(int n) {
        nodeRunCost[n] = runCostOf(n);
    }

    /**
     * Whether the applied move leaves the run cost of its jobs and touched nodes no higher; the jobs' terms before
     * are the kept ones, after are recomputed (the move is applied, the undo log holds where they were).
     */
    boolean holds() {
        double before = 0, after = 0;
        for (int i = 0; i < s.mCount; i++) {
            int j = s.mJob[i];
            before += s.uNode[i] < 0 ? s.jobTerm[j] + futureCost[j] : s.jobTerm[j];
            after += runTermOf(j, s.termOf(j));
        }
        for (int i = 0; i < s.touchedCount; i++) {
            before += nodeRunCost[s.touched[i]];
            after += runCostOf(s.touched[i]);
        }
        return after - before <= LocalSearchPolicy.roundingSlack(before);
    }

    /** Node n's run cost: its type's price at the busy GPUs of each stretch, as its jobs end one after the other. */
    double runCostOf(int n) {
        int count = s.nodeCount[n];
        if (count == 0) return 0;
        for (int i = 0; i < count; i++) {
            int j = s.nodeJobs[n * s.slots + i];
            double r = s.remaining(j);
            int g = s.jobGpus[j];
            int at = i;
            while (at > 0 && runRemaining[at - 1] > r) {
                runRemaining[at] = runRemaining[at - 1];
                runGpus[at] = runGpus[at - 1];
                at--;
            }
            runRemaining[at] = r;
            runGpus[at] = g;
        }
        int base = s.nodeType[n] * (s.slots + 1);
        int busy = Math.min(s.nodeBusy[n], s.typeGpus[s.nodeType[n]]);
        double sum = 0, previous = 0;
        for (int i = 0; i < count; i++) {
            sum += (runRemaining[i] - previous) * s.rate[base + busy];
            previous = runRemaining[i];
            busy = Math.max(0, busy - runGpus[i]);
        }
        return sum / 3600.0;
    }

    /** A job's share of the run cost: its term, and when it waits, its cheapest execution still to pay. */
    private double runTermOf(int j, double term) {
        return s.jobNode[j] < 0 ? term + futureCost[j] : term;
    }

    private double totalRunCost() {
        double sum = 0;
        for (int j = 0; j < s.jobs; j++) sum += runTermOf(j, s.jobTerm[j]);
        for (int n = 0; n < s.nodes; n++) sum += nodeRunCost[n];
        return sum;
    }

    /**
     * What a waiting job will still pay to run: its cheapest remaining time x price over the types some node can
     * run as, priced as the greedy ranks configurations ({@link NodeOpeningRule#DEFAULT}: on a VM leased whole,
     * its GPUs' share).
     */
    private double cheapestExecution(int j) {
        double best = Double.POSITIVE_INFINITY;
        for (int t = 0; t < s.typeGpus.length && t < s.cluster.typeCount(); t++) {
            if (!s.problem.typeAvailable(t)) continue;
            NodeType type = s.cluster.type(t);
            for (int g = 1; g <= type.gpus(); g++) {
                double r = s.problem.remaining(j, t, g);
                if (!Double.isNaN(r))
                    best = Math.min(best, r / 3600.0 * NodeOpeningRule.DEFAULT.preferenceRate(type, g));
            }
        }
        return best == Double.POSITIVE_INFINITY ? 0 : best;
    }
}
