package org.gpusched.core.policy;

import java.util.Arrays;
import java.util.List;
import org.gpusched.core.model.Cluster;
import org.gpusched.core.model.NodeType;
import org.gpusched.core.model.Placement;
import org.gpusched.core.model.Schedule;
import org.gpusched.core.model.SchedulingProblem;
import org.gpusched.core.objective.ObjectiveFunction;
import org.gpusched.core.objective.ObjectiveParameters;
import org.gpusched.core.random.RandomState;

/**
 * {@code rg-ls}: the randomized greedy ({@code andreas-rg}) followed by the thesis' local search (Section 3.1.5).
 * The search starts from each of the {@link PolicyConfig#localSearchKeep()} best distinct randomized solutions
 * (the first is exactly what {@code andreas-rg} returns for the same random state) and keeps the best result, so
 * rg-ls is never worse than andreas-rg with the same seed. Only improving moves are applied (best-improving: each
 * round evaluates every move of the seven neighbourhoods and applies the best one), until no move improves f_OBJ
 * or {@value #MAX_ROUNDS} rounds have passed.
 *
 * <p>Lists, with k = {@link PolicyConfig#localSearchK()}: J_T = running jobs that end after their due date by
 * decreasing lateness (its first k drive every neighbourhood); C = the k on-time running jobs of highest execution
 * cost; P = running jobs by decreasing pressure. The seven neighbourhoods, and the readings chosen:
 * <ol>
 *   <li>swap the configurations (node, type, GPUs) of a job of J_T and a job of C on different nodes;</li>
 *   <li>the same with a job of J_T and any job of P;</li>
 *   <li>postponed jobs against running ones: a postponed job takes the configuration of a running job with lower
 *       pressure, which is postponed. The thesis scans all pairs, O(J^2); we take the k postponed jobs of highest
 *       pressure (the ones the swap can help most) against all running jobs by increasing pressure, O(kJ);</li>
 *   <li>on the nodes hosting J_T's first k: another VM type (rightsizable nodes), each job keeping its GPU count;</li>
 *   <li>the same nodes with every job's GPU count doubled, on the same type (fixed or rightsizable: uses idle GPUs)
 *       or on the type with the same GPU model and twice the GPUs (rightsizable), keeping the jobs' relative power;</li>
 *   <li>likewise halved, only when every job on the node has an even GPU count;</li>
 *   <li>one job of such a node on another GPU count, same type, within the node's capacity.</li>
 * </ol>
 * A move is kept only when the job has a time for its new configuration and no node exceeds its capacity. Moves
 * are evaluated incrementally (f_OBJ is a sum of per-job terms and per-node terms: only the moved jobs and touched
 * nodes are recomputed); the returned schedule's objective is recomputed by {@link ObjectiveFunction}.
 * Deterministic: all randomness is in the randomized greedy; ties keep the earlier move and the earlier start.
 * Not thread-safe (scratch memory is reused across calls): one instance per caller.
 */
public final class LocalSearchPolicy implements SchedulingPolicy {
    public static final String NAME = "rg-ls";
    /** Upper bound on improving moves per start, so a call's time stays bounded on large queues. */
    public static final int MAX_ROUNDS = 200;

    private final PolicyConfig config;
    private final AndreasRandomizedGreedyPolicy randomizedGreedy;
    private final Search search = new Search();

    public LocalSearchPolicy(PolicyConfig config) {
        this.config = config == null ? PolicyConfig.DEFAULTS : config;
        this.randomizedGreedy = new AndreasRandomizedGreedyPolicy(this.config);
    }

    @Override public String name() { return NAME; }

    @Override
    public Schedule schedule(SchedulingProblem problem, RandomState random) {
        List<Schedule> starts = randomizedGreedy.bestSolutions(problem, random, config.localSearchKeep());
        Schedule best = starts.get(0);
        for (Schedule start : starts) {
            Schedule improved = search.improve(problem, start, config.localSearchK());
            if (improved.objective() < best.objective()) best = improved;
        }
        return best;
    }

    /** The local search alone from any feasible schedule of {@code problem}: never worse than {@code start}. */
    static Schedule improve(SchedulingProblem problem, Schedule start, int k) {
        return new Search().improve(problem, start, k);
    }

    /** One local search run on a mutable copy of a schedule; arrays are reused across calls. */
    private static final class Search {
        private SchedulingProblem problem;
        private Cluster cluster;
        private int jobs, nodes, slots;
        private double now, mu;

        private int[] jobNode = new int[0], jobType = new int[0], jobGpus = new int[0];
        private double[] jobTerm = new double[0], postponedPenalty = new double[0];
        private int[] nodeType = new int[0], nodeCount = new int[0], nodeBusy = new int[0], nodeJobs = new int[0];
        private double[] nodeTerm = new double[0];

        private int[] byPressure = new int[0];
        private double[] pressure = new double[0], key = new double[0];
        private int[] list = new int[0], late = new int[0], costly = new int[0], scratch = new int[0];
        private int lateCount, costlyCount;
        private boolean[] nodeSeen = new boolean[0];
        private int[] members = new int[0];

        // the move under evaluation: jobs with their new (node, type, GPUs), node -1 = postpone; one node retype
        private int[] mJob = new int[0], mNode = new int[0], mType = new int[0], mGpus = new int[0];
        private int mCount, mRetypeNode = -1, mRetypeType;
        // undo log of the evaluation
        private int[] uNode = new int[0], uType = new int[0], uGpus = new int[0];
        private int uRetypeOld;
        private int[] touched = new int[0];
        private int touchedCount;
        // the best move of the round
        private int[] bJob = new int[0], bNode = new int[0], bType = new int[0], bGpus = new int[0];
        private int bCount, bRetypeNode, bRetypeType;
        private double bDelta;

        Schedule improve(SchedulingProblem p, Schedule start, int k) {
            load(p, start);
            double objective = 0;
            for (int j = 0; j < jobs; j++) objective += jobTerm[j];
            for (int n = 0; n < nodes; n++) objective += nodeTerm[n];
            for (int round = 0; round < MAX_ROUNDS; round++) {
                bDelta = -1e-9 * Math.max(1, Math.abs(objective));
                bCount = -1;
                exploreNeighbourhoods(k);
                if (bCount < 0) break;
                loadBestMove();
                apply();
                objective += bDelta;
            }
            Placement[] placements = new Placement[jobs];
            int[] types = new int[nodes];
            for (int j = 0; j < jobs; j++) if (jobNode[j] >= 0) placements[j] = new Placement(jobNode[j], jobType[j], jobGpus[j]);
            for (int n = 0; n < nodes; n++) types[n] = nodeCount[n] > 0 ? nodeType[n] : -1;
            double f = ObjectiveFunction.evaluate(p, placements, types);
            // the incremental sums can only drift by rounding; never hand back something worse than the start
            if (!(f < start.objective())) return start;
            return new Schedule(placements, types, f);
        }

        private void load(SchedulingProblem p, Schedule start) {
            problem = p;
            cluster = p.cluster();
            jobs = p.jobCount();
            nodes = cluster.nodeCount();
            slots = cluster.maxGpus();
            now = p.now();
            ObjectiveParameters params = p.parameters();
            mu = params.mu();
            if (jobNode.length < jobs) {
                jobNode = new int[jobs]; jobType = new int[jobs]; jobGpus = new int[jobs];
                jobTerm = new double[jobs]; postponedPenalty = new double[jobs];
                byPressure = new int[jobs]; pressure = new double[jobs]; key = new double[jobs]; list = new int[jobs]; late = new int[jobs];
                costly = new int[jobs]; scratch = new int[jobs];
            }
            if (nodeType.length < nodes || nodeJobs.length < nodes * slots) {
                nodeType = new int[nodes]; nodeCount = new int[nodes]; nodeBusy = new int[nodes];
                nodeTerm = new double[nodes]; nodeSeen = new boolean[nodes];
                nodeJobs = new int[nodes * slots];
            }
            int moveCap = slots + 2;
            if (members.length < slots) members = new int[slots];
            if (touched.length < 2 * moveCap + 1) touched = new int[2 * moveCap + 1];
            if (mJob.length < moveCap) {
                mJob = new int[moveCap]; mNode = new int[moveCap]; mType = new int[moveCap]; mGpus = new int[moveCap];
                uNode = new int[moveCap]; uType = new int[moveCap]; uGpus = new int[moveCap];
                bJob = new int[moveCap]; bNode = new int[moveCap]; bType = new int[moveCap]; bGpus = new int[moveCap];
            }
            Arrays.fill(nodeCount, 0, nodes, 0);
            Arrays.fill(nodeBusy, 0, nodes, 0);
            for (int n = 0; n < nodes; n++) nodeType[n] = start.nodeType(n);
            for (int j = 0; j < jobs; j++) {
                var job = p.job(j).job();
                double worst = now + params.horizonSeconds() + p.slowestRemaining(j) - job.dueSeconds();
                postponedPenalty[j] = worst > 0 ? params.rho() * job.weightPerHour() * worst / 3600.0 : 0;
                Placement pl = start.placement(j);
                if (pl == null) {
                    jobNode[j] = -1;
                } else {
                    jobNode[j] = pl.node(); jobType[j] = pl.type(); jobGpus[j] = pl.gpus();
                    nodeJobs[pl.node() * slots + nodeCount[pl.node()]++] = j;
                    nodeBusy[pl.node()] += pl.gpus();
                }
                jobTerm[j] = termOf(j);
                byPressure[j] = j;
                pressure[j] = p.pressure(j);
            }
            IndexSort.sort(byPressure, jobs, pressure, true, scratch);
            for (int n = 0; n < nodes; n++) nodeTerm[n] = nodeTermOf(n);
        }

        private double remaining(int j) { return problem.remaining(j, jobType[j], jobGpus[j]); }

        private double termOf(int j) {
            if (jobNode[j] < 0) return postponedPenalty[j];
            double late = now + remaining(j) - problem.job(j).job().dueSeconds();
            return late > 0 ? problem.job(j).job().weightPerHour() * late / 3600.0 : 0;
        }

        private double executionCost(int j) {
            return remaining(j) / 3600.0 * cluster.type(jobType[j]).costPerHour(jobGpus[j]);
        }

        private double nodeTermOf(int n) {
            int count = nodeCount[n];
            if (count == 0) return 0;
            double least = Double.POSITIVE_INFINITY;
            for (int i = 0; i < count; i++) least = Math.min(least, executionCost(nodeJobs[n * slots + i]));
            return mu > 0 ? least + mu * (cluster.type(nodeType[n]).gpus() - nodeBusy[n]) : least;
        }

        // ---------------------------------------------------------------- neighbourhoods

        private void exploreNeighbourhoods(int k) {
            buildLists(k);
            // 1: J_T x C
            for (int a = 0; a < lateCount; a++) for (int b = 0; b < costlyCount; b++) trySwap(late[a], costly[b]);
            // 2: J_T x running jobs by decreasing pressure
            for (int a = 0; a < lateCount; a++) {
                for (int i = 0; i < jobs; i++) {
                    int b = byPressure[i];
                    if (jobNode[b] >= 0) trySwap(late[a], b);
                }
            }
            // 3: the k postponed jobs of highest pressure x running jobs by increasing pressure
            int postponedSeen = 0;
            for (int i = 0; i < jobs && postponedSeen < k; i++) {
                int waiting = byPressure[i];
                if (jobNode[waiting] >= 0) continue;
                postponedSeen++;
                for (int r = jobs - 1; r >= 0; r--) {
                    int running = byPressure[r];
                    if (pressure[running] >= pressure[waiting]) break;
                    if (jobNode[running] >= 0) tryReplace(waiting, running);
                }
            }
            // 4-7: nodes hosting J_T's jobs
            for (int a = 0; a < lateCount; a++) {
                int n = jobNode[late[a]];
                if (nodeSeen[n]) continue;
                nodeSeen[n] = true;
                tryRetype(n);
                tryScale(n, true);
                tryScale(n, false);
                tryResize(n);
            }
            for (int a = 0; a < lateCount; a++) nodeSeen[jobNode[late[a]]] = false;
        }

        /** late = J_T's first k (decreasing lateness); costly = the k on-time running jobs of highest cost. */
        private void buildLists(int k) {
            int count = 0;
            for (int j = 0; j < jobs; j++) {
                if (jobNode[j] < 0) continue;
                double lateness = now + remaining(j) - problem.job(j).job().dueSeconds();
                if (lateness > 0) {
                    list[count++] = j;
                    key[j] = lateness;
                }
            }
            IndexSort.sort(list, count, key, true, scratch);
            lateCount = Math.min(k, count);
            System.arraycopy(list, 0, late, 0, lateCount);
            count = 0;
            for (int j = 0; j < jobs; j++) {
                if (jobNode[j] < 0 || now + remaining(j) - problem.job(j).job().dueSeconds() > 0) continue;
                list[count++] = j;
                key[j] = executionCost(j);
            }
            IndexSort.sort(list, count, key, true, scratch);
            costlyCount = Math.min(k, count);
            System.arraycopy(list, 0, costly, 0, costlyCount);
        }

        private boolean hasTime(int j, int t, int g) {
            return g >= 1 && g <= cluster.type(t).gpus() && !Double.isNaN(problem.remaining(j, t, g));
        }

        private void trySwap(int a, int b) {
            if (a == b || jobNode[a] == jobNode[b]) return;
            if (!hasTime(a, jobType[b], jobGpus[b]) || !hasTime(b, jobType[a], jobGpus[a])) return;
            beginMove();
            addMove(a, jobNode[b], jobType[b], jobGpus[b]);
            addMove(b, jobNode[a], jobType[a], jobGpus[a]);
            evaluate();
        }

        private void tryReplace(int waiting, int running) {
            if (!hasTime(waiting, jobType[running], jobGpus[running])) return;
            beginMove();
            addMove(waiting, jobNode[running], jobType[running], jobGpus[running]);
            addMove(running, -1, 0, 0);
            evaluate();
        }

        private void tryRetype(int n) {
            int current = nodeType[n];
            for (int v : cluster.candidateTypes(n)) {
                if (v == current || cluster.type(v).gpus() < nodeBusy[n]) continue;
                moveNodeJobs(n, v, 1, 1);
            }
        }

        /** Every job of node n with its GPUs doubled (or halved), on the same type or its twin of 2x (1/2) the GPUs. */
        private void tryScale(int n, boolean doubling) {
            int current = nodeType[n];
            NodeType type = cluster.type(current);
            int num = doubling ? 2 : 1;
            int den = doubling ? 1 : 2;
            if (!doubling) {
                for (int i = 0; i < nodeCount[n]; i++) if (jobGpus[nodeJobs[n * slots + i]] % 2 != 0) return;
            }
            moveNodeJobs(n, current, num, den);
            for (int v : cluster.candidateTypes(n)) {
                NodeType other = cluster.type(v);
                if (v == current || !other.gpuModel().equals(type.gpuModel())) continue;
                if (other.gpus() * den == type.gpus() * num) moveNodeJobs(n, v, num, den);
            }
        }

        /** Moves all jobs of node n to type v with GPU counts scaled by num/den; skipped if any has no time there. */
        private void moveNodeJobs(int n, int v, int num, int den) {
            beginMove();
            for (int i = 0; i < nodeCount[n]; i++) {
                int j = nodeJobs[n * slots + i];
                int g = jobGpus[j] * num / den;
                if (!hasTime(j, v, g)) return;
                addMove(j, n, v, g);
            }
            if (v != nodeType[n]) {
                mRetypeNode = n;
                mRetypeType = v;
            }
            evaluate();
        }

        private void tryResize(int n) {
            int capacity = cluster.type(nodeType[n]).gpus();
            // evaluating a move reorders the node's job list, so walk a copy of it
            int count = nodeCount[n];
            System.arraycopy(nodeJobs, n * slots, members, 0, count);
            for (int i = 0; i < count; i++) {
                int j = members[i];
                for (int g = 1; g <= capacity - nodeBusy[n] + jobGpus[j]; g++) {
                    if (g == jobGpus[j] || !hasTime(j, jobType[j], g)) continue;
                    beginMove();
                    addMove(j, n, jobType[j], g);
                    evaluate();
                }
            }
        }

        // ---------------------------------------------------------------- moves

        private void beginMove() {
            mCount = 0;
            mRetypeNode = -1;
        }

        private void addMove(int j, int node, int type, int gpus) {
            mJob[mCount] = j; mNode[mCount] = node; mType[mCount] = type; mGpus[mCount] = gpus;
            mCount++;
        }

        private void touch(int n) {
            if (n < 0) return;
            for (int i = 0; i < touchedCount; i++) if (touched[i] == n) return;
            touched[touchedCount++] = n;
        }

        /** Applies the move, measures the change of f_OBJ on the touched jobs and nodes, undoes it; keeps the best. */
        private void evaluate() {
            touchedCount = 0;
            double before = 0;
            for (int i = 0; i < mCount; i++) {
                before += jobTerm[mJob[i]];
                touch(jobNode[mJob[i]]);
                touch(mNode[i]);
            }
            touch(mRetypeNode);
            for (int i = 0; i < touchedCount; i++) before += nodeTerm[touched[i]];
            applyRaw();
            double after = 0;
            boolean fits = true;
            for (int i = 0; i < mCount; i++) after += termOf(mJob[i]);
            for (int i = 0; i < touchedCount; i++) {
                int n = touched[i];
                if (nodeCount[n] > 0 && nodeBusy[n] > cluster.type(nodeType[n]).gpus()) fits = false;
                after += nodeTermOf(n);
            }
            undoRaw();
            double delta = after - before;
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
            for (int i = 0; i < mCount; i++) jobTerm[mJob[i]] = termOf(mJob[i]);
            for (int i = 0; i < touchedCount; i++) nodeTerm[touched[i]] = nodeTermOf(touched[i]);
        }

        /**
         * Applies the current move, recording the undo log. All moved jobs leave their nodes before any arrives, so
         * no node ever holds more jobs than it has GPUs (every move keeps the job count of each node).
         */
        private void applyRaw() {
            for (int i = 0; i < mCount; i++) {
                int j = mJob[i];
                uNode[i] = jobNode[j]; uType[i] = jobType[j]; uGpus[i] = jobGpus[j];
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
}
