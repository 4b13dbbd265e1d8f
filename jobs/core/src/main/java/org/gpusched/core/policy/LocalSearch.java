package org.gpusched.core.policy;

import java.util.Arrays;
import org.gpusched.core.model.Cluster;
import org.gpusched.core.model.NodeType;
import org.gpusched.core.model.Placement;
import org.gpusched.core.model.Schedule;
import org.gpusched.core.model.SchedulingProblem;
import org.gpusched.core.objective.ObjectiveFunction;
import org.gpusched.core.objective.ObjectiveParameters;
import org.gpusched.core.objective.WasteObjective;

/**
 * The search loop of {@code rg-ls} on a mutable copy of one schedule: best-improving rounds over the neighbourhoods
 * ({@link ThesisNeighbourhoods}, and {@link ShrinkAndInsertNeighbourhood} when asked), each round applying the move
 * that lowers the ranking objective most, until none does or {@link LocalSearchPolicy#MAX_ROUNDS} rounds have passed.
 *
 * <p>The objective is a sum of per-job terms and per-node terms, so a move is measured on its jobs and the nodes it
 * touches only: applied, measured, undone ({@link #evaluate}); the best of the round is applied for good. Under
 * {@link Ranking#F_OBJ} a job's term is its tardiness (or postponement penalty) and a node's its least execution cost
 * plus mu x its idle GPUs, on the jobs' plain remaining times (the thesis' reading: moves are free). Under
 * {@link Ranking#WASTE} a job's term is its f_W job term at its placement (tardiness with what a move loses, move
 * charge, the move's waste, less its progress value) and a node's is H x its rate at its busy GPUs
 * ({@link WasteObjective}), on the remaining times the greedy engine uses.
 *
 * <p>The state and move primitives are package-private for the neighbourhoods, which read them and propose moves
 * ({@link #beginMove}, {@link #addMove}, {@link #retype}, {@link #evaluate}). Arrays are reused across calls. Not
 * thread-safe: one per policy instance.
 */
final class LocalSearch {
    final Ranking ranking;
    SchedulingProblem problem;
    Cluster cluster;
    int jobs, nodes, slots;
    double now, mu;
    int[] jobNode = new int[0], jobType = new int[0], jobGpus = new int[0];
    double[] jobTerm = new double[0], postponedPenalty = new double[0];
    int[] nodeType = new int[0], nodeCount = new int[0], nodeBusy = new int[0], nodeJobs = new int[0];
    double[] nodeTerm = new double[0];
    /** Copies of the problem's figures the hot loops read: GPUs per type, rate[t * (slots + 1) + g], due, weight. */
    int[] typeGpus = new int[0];

    double[] rate = new double[0], due = new double[0], weight = new double[0];
    /** The jobs by decreasing pressure, and each job's pressure. */
    int[] byPressure = new int[0];

    double[] pressure = new double[0];
    /**
     * Moves are first scored from the terms they change and handed to {@link #evaluate} only when the score may
     * beat the round's best; this slack (far above rounding, far below any real gain) keeps the filter exact.
     */
    double scoreSlack;
    /**
     * Kept with the applied schedule (not during an evaluation): each job's execution cost, and per used node the
     * job of least execution cost, that cost and the second least, so that a node's least without one of its jobs
     * is O(1) (the f_OBJ scores).
     */
    double[] jobCost = new double[0], nodeLeast = new double[0], nodeSecondLeast = new double[0];

    int[] nodeLeastJob = new int[0];

    private final ThesisNeighbourhoods thesis;
    /** Null when the search runs the thesis' neighbourhoods only. */
    private final ShrinkAndInsertNeighbourhood shrinkAndInsert;
    /** Null when moves may leave a job waiting beside room for it. */
    private final WorkConservingMoves workConserving;
    /** Null unless moves must also not raise the run cost ({@code rg-ls-guarded}). */
    final RunCostGuard runCostGuard;

    private final IndexSort sorter = new IndexSort();
    // the move under evaluation: jobs with their new (node, type, GPUs), node -1 = postpone; one node retype
    int[] mJob = new int[0], mNode = new int[0], mType = new int[0], mGpus = new int[0];
    int mCount, mRetypeNode = -1, mRetypeType;
    // undo log of the evaluation
    int[] uNode = new int[0];

    private int[] uType = new int[0], uGpus = new int[0];
    private int uRetypeOld;
    int[] touched = new int[0];
    int touchedCount;
    // the best move of the round
    private int[] bJob = new int[0], bNode = new int[0], bType = new int[0], bGpus = new int[0];
    private int bCount, bRetypeNode, bRetypeType;
    /** Objective change of the round's best move so far (starts just below 0: only improving moves are kept). */
    double bDelta;

    LocalSearch(Ranking ranking, boolean withShrinkAndInsert, boolean workConserving, boolean runCostGuard) {
        if (withShrinkAndInsert && ranking != Ranking.F_OBJ)
            throw new IllegalArgumentException("shrink-and-insert scores moves by f_OBJ only");
        this.ranking = ranking;
        thesis = new ThesisNeighbourhoods(this);
        shrinkAndInsert = withShrinkAndInsert ? new ShrinkAndInsertNeighbourhood(this) : null;
        this.workConserving = workConserving ? new WorkConservingMoves(this) : null;
        this.runCostGuard = runCostGuard ? new RunCostGuard(this) : null;
    }

    /** The search from {@code start}; never worse than {@code start} by the exact ranking objective. */
    Schedule improve(SchedulingProblem p, Schedule start, int k) {
        load(p, start, k);
        double objective = 0;
        for (int j = 0; j < jobs; j++) objective += jobTerm[j];
        for (int n = 0; n < nodes; n++) objective += nodeTerm[n];
        if (runCostGuard != null) runCostGuard.start();
        for (int round = 0; round < LocalSearchPolicy.MAX_ROUNDS; round++) {
            bDelta = -LocalSearchPolicy.roundingSlack(objective);
            scoreSlack = 1e-11 * Math.max(1, Math.abs(objective));
            bCount = -1;
            if (workConserving != null) workConserving.beginRound();
            thesis.explore(k);
            if (shrinkAndInsert != null) shrinkAndInsert.explore(k);
            if (bCount < 0) break;
            loadBestMove();
            apply();
            objective += bDelta;
        }
        Placement[] placements = new Placement[jobs];
        int[] types = new int[nodes];
        for (int j = 0; j < jobs; j++)
            if (jobNode[j] >= 0) placements[j] = new Placement(jobNode[j], jobType[j], jobGpus[j]);
        for (int n = 0; n < nodes; n++) types[n] = nodeCount[n] > 0 ? nodeType[n] : -1;
        Schedule result = new Schedule(placements, types, ObjectiveFunction.evaluate(p, placements, types));
        // the incremental sums can only drift by rounding; never hand back something worse than the start
        if (!LocalSearchPolicy.beats(ranking.of(p, result), ranking.of(p, start))) return start;
        if (runCostGuard != null) runCostGuard.finish();
        return result;
    }

    private void load(SchedulingProblem p, Schedule start, int k) {
        problem = p;
        cluster = p.cluster();
        jobs = p.jobCount();
        nodes = cluster.nodeCount();
        slots = cluster.maxGpus();
        now = p.now();
        ObjectiveParameters params = p.parameters();
        mu = params.mu();
        if (jobNode.length < jobs) {
            jobNode = new int[jobs];
            jobType = new int[jobs];
            jobGpus = new int[jobs];
            jobTerm = new double[jobs];
            postponedPenalty = new double[jobs];
            byPressure = new int[jobs];
            pressure = new double[jobs];
            due = new double[jobs];
            weight = new double[jobs];
            jobCost = new double[jobs];
        }
        int types = cluster.typeCount();
        if (typeGpus.length < types || rate.length < types * (slots + 1)) {
            typeGpus = new int[types];
            rate = new double[types * (slots + 1)];
        }
        for (int t = 0; t < types; t++) {
            NodeType type = cluster.type(t);
            typeGpus[t] = type.gpus();
            for (int g = 0; g <= type.gpus(); g++) rate[t * (slots + 1) + g] = type.costPerHour(g);
        }
        if (nodeType.length < nodes || nodeJobs.length < nodes * slots) {
            nodeType = new int[nodes];
            nodeCount = new int[nodes];
            nodeBusy = new int[nodes];
            nodeTerm = new double[nodes];
            nodeLeast = new double[nodes];
            nodeSecondLeast = new double[nodes];
            nodeLeastJob = new int[nodes];
            nodeJobs = new int[nodes * slots];
        }
        int moveCap = slots + 2;
        if (touched.length < 2 * moveCap + 1) touched = new int[2 * moveCap + 1];
        if (mJob.length < moveCap) {
            mJob = new int[moveCap];
            mNode = new int[moveCap];
            mType = new int[moveCap];
            mGpus = new int[moveCap];
            uNode = new int[moveCap];
            uType = new int[moveCap];
            uGpus = new int[moveCap];
            bJob = new int[moveCap];
            bNode = new int[moveCap];
            bType = new int[moveCap];
            bGpus = new int[moveCap];
        }
        Arrays.fill(nodeCount, 0, nodes, 0);
        Arrays.fill(nodeBusy, 0, nodes, 0);
        for (int n = 0; n < nodes; n++) nodeType[n] = start.nodeType(n);
        boolean charged = ranking == Ranking.WASTE && p.chargesMoves();
        for (int j = 0; j < jobs; j++) {
            var job = p.job(j).job();
            due[j] = job.dueSeconds();
            weight[j] = job.weightPerHour();
            if (ranking == Ranking.F_OBJ) {
                double worst = now + params.horizonSeconds() + p.slowestRemaining(j) - job.dueSeconds();
                postponedPenalty[j] = worst > 0 ? params.rho() * job.weightPerHour() * worst / 3600.0 : 0;
            } else {
                postponedPenalty[j] = WasteObjective.jobTerm(p, j, null) + (charged ? p.moveCharge(j, null) : 0);
            }
            Placement pl = start.placement(j);
            if (pl == null) {
                jobNode[j] = -1;
            } else {
                jobNode[j] = pl.node();
                jobType[j] = pl.type();
                jobGpus[j] = pl.gpus();
                nodeJobs[pl.node() * slots + nodeCount[pl.node()]++] = j;
                nodeBusy[pl.node()] += pl.gpus();
            }
            jobTerm[j] = termOf(j);
            jobCost[j] = jobNode[j] >= 0 ? executionCost(j) : 0;
            byPressure[j] = j;
            pressure[j] = p.pressure(j);
        }
        sorter.sort(byPressure, jobs, pressure, true);
        if (runCostGuard != null) runCostGuard.load();
        for (int n = 0; n < nodes; n++) refreshNode(n);
        thesis.load();
        if (shrinkAndInsert != null) shrinkAndInsert.load(k);
        if (workConserving != null) workConserving.load();
    }

    // ---------------------------------------------------------------- terms

    /** Seconds job j needs where it is placed now (plain under f_OBJ; with what a move loses under f_W). */
    double remaining(int j) {
        return remainingAt(j, jobNode[j], jobType[j], jobGpus[j]);
    }

    /** Seconds job j would need on node n as type t with g GPUs, as the ranking reads them. */
    double remainingAt(int j, int n, int t, int g) {
        return ranking == Ranking.F_OBJ ? problem.remaining(j, t, g) : problem.remainingAt(j, n, t, g);
    }

    double termOf(int j) {
        if (jobNode[j] < 0) return postponedPenalty[j];
        return termAt(j, jobNode[j], jobType[j], jobGpus[j]);
    }

    /** Job j's term if it ran on node n as type t with g GPUs. */
    double termAt(int j, int n, int t, int g) {
        double r = remainingAt(j, n, t, g);
        if (ranking == Ranking.F_OBJ) return tardiness(j, r);
        double term = tardiness(j, r) - WasteObjective.progressValue(problem, j, r);
        if (problem.job(j).isRunning()) {
            if (problem.chargesMoves()) term += problem.moveCharge(j, n, t, g);
            term += WasteObjective.moveWaste(problem, j, t, g, r);
        }
        return term;
    }

    /** Job j's tardiness term of f_OBJ when it runs with {@code remaining} seconds left. */
    double tardiness(int j, double remaining) {
        double late = now + remaining - due[j];
        return late > 0 ? weight[j] * late / 3600.0 : 0;
    }

    /** Execution cost of {@code remaining} seconds on type t with g GPUs. */
    double cost(int t, int g, double remaining) {
        return remaining / 3600.0 * rate[t * (slots + 1) + g];
    }

    double executionCost(int j) {
        return cost(jobType[j], jobGpus[j], problem.remaining(j, jobType[j], jobGpus[j]));
    }

    /** The least execution cost among node n's jobs other than its job j (infinite when j is alone). */
    double leastExcluding(int n, int j) {
        return nodeLeastJob[n] == j ? nodeSecondLeast[n] : nodeLeast[n];
    }

    /** mu x idle GPUs of used node n (its share of f_OBJ beyond the least execution cost). */
    double idleTerm(int n) {
        return mu > 0 ? mu * (typeGpus[nodeType[n]] - nodeBusy[n]) : 0;
    }

    /** f_W's term of a node running as type t with {@code busy} GPUs busy (0 when it hosts nothing). */
    double spend(int t, int busy) {
        if (busy <= 0) return 0;
        return problem.parameters().horizonSeconds() / 3600.0 * rate[t * (slots + 1) + Math.min(busy, typeGpus[t])];
    }

    /** Whether a move scored {@code delta} may beat the round's best; {@link #evaluate} then decides exactly. */
    boolean promising(double delta) {
        return delta < bDelta + scoreSlack;
    }

    private double nodeTermOf(int n) {
        int count = nodeCount[n];
        if (count == 0) return 0;
        if (ranking == Ranking.WASTE) return spend(nodeType[n], nodeBusy[n]);
        double least = Double.POSITIVE_INFINITY;
        for (int i = 0; i < count; i++) least = Math.min(least, executionCost(nodeJobs[n * slots + i]));
        return mu > 0 ? least + mu * (typeGpus[nodeType[n]] - nodeBusy[n]) : least;
    }

    /** Node n's term and least costs, from the kept job costs. */
    private void refreshNode(int n) {
        double least = Double.POSITIVE_INFINITY, second = Double.POSITIVE_INFINITY;
        int leastJob = -1;
        for (int i = 0, count = nodeCount[n]; i < count; i++) {
            int j = nodeJobs[n * slots + i];
            double c = jobCost[j];
            if (c < least) {
                second = least;
                least = c;
                leastJob = j;
            } else if (c < second) {
                second = c;
            }
        }
        nodeLeast[n] = least;
        nodeSecondLeast[n] = second;
        nodeLeastJob[n] = leastJob;
        nodeTerm[n] = nodeTermOf(n);
        if (runCostGuard != null) runCostGuard.refreshNode(n);
    }

    // ---------------------------------------------------------------- moves

    void beginMove() {
        mCount = 0;
        mRetypeNode = -1;
    }

    void addMove(int j, int node, int type, int gpus) {
        mJob[mCount] = j;
        mNode[mCount] = node;
        mType[mCount] = type;
        mGpus[mCount] = gpus;
        mCount++;
    }

    /** The current move also sets node n's type to v (switches it on as v when it hosts no job). */
    void retype(int n, int v) {
        mRetypeNode = n;
        mRetypeType = v;
    }

    private void touch(int n) {
        if (n < 0) return;
        for (int i = 0; i < touchedCount; i++) if (touched[i] == n) return;
        touched[touchedCount++] = n;
    }

    /** Applies the move, measures the objective's change on the touched jobs and nodes, undoes it; keeps the best. */
    void evaluate() {
        touchedCount = 0;
        double before = 0;
        for (int i = 0; i < mCount; i++) {
            before += jobTerm[mJob[i]];
            touch(jobNode[mJob[i]]);
            touch(mNode[i]);
        }
        touch(mRetypeNode);
        for (int i = 0; i < touchedCount; i++) before += nodeTerm[touched[i]];
        if (workConserving != null) workConserving.recordBefore(touched, touchedCount);
        applyRaw();
        double after = 0;
        boolean fits = true;
        for (int i = 0; i < mCount; i++) after += termOf(mJob[i]);
        for (int i = 0; i < touchedCount; i++) {
            int n = touched[i];
            if (nodeCount[n] > 0 && nodeBusy[n] > typeGpus[nodeType[n]]) fits = false;
            after += nodeTermOf(n);
        }
        double delta = after - before;
        if (fits && delta < bDelta && runCostGuard != null) fits = runCostGuard.holds();
        // only a move that would be kept pays for the work-conserving check
        if (fits && delta < bDelta && workConserving != null)
            fits = workConserving.holdsAfter(touched, touchedCount, mJob, mNode, mCount);
        undoRaw();
        if (fits && delta < bDelta) {
            bDelta = delta;
            bCount = mCount;
            System.arraycopy(mJob, 0, bJob, 0, mCount);
            System.arraycopy(mNode, 0, bNode, 0, mCount);
            System.arraycopy(mType, 0, bType, 0, mCount);
            System.arraycopy(mGpus, 0, bGpus, 0, mCount);
            bRetypeNode = mRetypeNode;
            bRetypeType = mRetypeType;
        }
    }

    private void loadBestMove() {
        mCount = bCount;
        System.arraycopy(bJob, 0, mJob, 0, bCount);
        System.arraycopy(bNode, 0, mNode, 0, bCount);
        System.arraycopy(bType, 0, mType, 0, bCount);
        System.arraycopy(bGpus, 0, mGpus, 0, bCount);
        mRetypeNode = bRetypeNode;
        mRetypeType = bRetypeType;
        touchedCount = 0;
        for (int i = 0; i < mCount; i++) {
            touch(jobNode[mJob[i]]);
            touch(mNode[i]);
        }
        touch(mRetypeNode);
    }

    /** Applies the best move for good and refreshes the terms of its jobs and touched nodes. */
    private void apply() {
        applyRaw();
        for (int i = 0; i < mCount; i++) {
            int j = mJob[i];
            jobTerm[j] = termOf(j);
            jobCost[j] = jobNode[j] >= 0 ? executionCost(j) : 0;
        }
        for (int i = 0; i < touchedCount; i++) refreshNode(touched[i]);
    }

    /**
     * Applies the current move, recording the undo log. All moved jobs leave their nodes before any arrives, so
     * no node ever holds more jobs than it has GPUs (the thesis' moves keep the job count of each node; the
     * shrink-and-insert ones add a job only where its GPUs fit, checked before they are evaluated).
     */
    private void applyRaw() {
        for (int i = 0; i < mCount; i++) {
            int j = mJob[i];
            uNode[i] = jobNode[j];
            uType[i] = jobType[j];
            uGpus[i] = jobGpus[j];
            detach(j);
        }
        for (int i = 0; i < mCount; i++) attach(mJob[i], mNode[i], mType[i], mGpus[i]);
        if (mRetypeNode >= 0) {
            uRetypeOld = nodeType[mRetypeNode];
            nodeType[mRetypeNode] = mRetypeType;
        }
    }

    private void undoRaw() {
        if (mRetypeNode >= 0) nodeType[mRetypeNode] = uRetypeOld;
        for (int i = 0; i < mCount; i++) detach(mJob[i]);
        for (int i = 0; i < mCount; i++) attach(mJob[i], uNode[i], uType[i], uGpus[i]);
    }

    private void detach(int j) {
        int old = jobNode[j];
        if (old < 0) return;
        int base = old * slots;
        int last = --nodeCount[old];
        for (int i = 0; i <= last; i++) {
            if (nodeJobs[base + i] == j) {
                nodeJobs[base + i] = nodeJobs[base + last];
                break;
            }
        }
        nodeBusy[old] -= jobGpus[j];
        jobNode[j] = -1;
    }

    private void attach(int j, int node, int type, int gpus) {
        jobNode[j] = node;
        if (node < 0) return;
        jobType[j] = type;
        jobGpus[j] = gpus;
        nodeJobs[node * slots + nodeCount[node]++] = j;
        nodeBusy[node] += gpus;
    }
}
