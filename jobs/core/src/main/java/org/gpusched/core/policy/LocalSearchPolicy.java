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
 * <p><b>Run-cost guard</b> (ours, only in {@value #GUARDED_NAME}): a move is kept
 * only if it also does not raise the schedule's run cost, what it would cost if it ran to its end unchanged (each
 * used node at its price for its busy GPUs until its last job ends, the jobs' tardiness, and for a waiting job its
 * f_OBJ penalty plus its cheapest execution; {@link Search#runCostOf}), and of the improved starts only those whose
 * run cost is at most andreas-rg's own schedule's compete. So each call's result is no worse than andreas-rg's under
 * f_OBJ and under the run cost. Why: f_OBJ charges a node only until its first job ends (the papers' reading: the
 * next event re-decides), so moves that speed up that job on a dearer VM, or pack more onto a node whose other jobs
 * end later, lower f_OBJ while the node is paid longer or dearer. It is not the default: on whole runs of the
 * hierarchical protocol it was dearer than plain rg-ls on 3 of 4 instances measured (docs/gpuscheduler-comparison.md).
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
 * Plus one neighbourhood of ours, <b>not from the thesis</b>, off in {@code rg-ls} and on in
 * {@value #SHRINK_AND_INSERT_NAME}, documented on {@link ShrinkAndInsertNeighbourhood}: the k postponed jobs of highest postponement penalty are inserted into a
 * used node by shrinking its running jobs to fewer GPUs and/or retyping it (rightsizable), into an off node switched
 * on for them, into room made by moving one running job to another node, or in the place of a running job that is
 * postponed instead. It competes with the seven in the same best-improving round. It exists because the randomized
 * greedy leaves tight clusters with nodes full of jobs on their cheapest (often all-GPU) configurations and many jobs
 * postponed, which none of the seven neighbourhoods can undo. With it, a round that still finds an improving move
 * typically starts one more job, so on large queues {@value #MAX_ROUNDS} rounds per start is what bounds the call's
 * time. It is off by default because whole runs pay for it: it shrinks running jobs so that postponed ones start now
 * (f_OBJ prices a postponed job at rho x its worst-case tardiness), the shrunk jobs end late, and the next events
 * preempt and restart jobs back and forth (ANDREAS small, N = 10, seed 3, papers' setting: 20 late jobs and 465
 * preemptions against andreas-rg's none and 100; docs/gpuscheduler-comparison.md).
 *
 * <p>Work-conserving (the default, {@link PolicyConfig#workConserving()}): the search never returns a schedule that
 * leaves a job waiting while some node could host it ({@link WorkConservation}). Each start is made work-conserving
 * first ({@link WorkConservation#fill}; the randomized greedy's schedules normally are already, since it postpones a
 * job only when no configuration of it fits), and a move is kept only if the schedule it yields is work-conserving
 * too: it may not postpone a job that fits somewhere, nor free room (idle GPUs, a node switched off) that a waiting
 * job fits in. Without it, moves such as "postpone a running job in its stead" trade a job whose postponement is free
 * in f_OBJ (worst-case tardiness 0) for nothing and leave its GPUs idle, which whole runs pay for later. The check is
 * incremental: per round, for each type, how many used nodes have at least g idle GPUs and how many off nodes could
 * run as it, corrected for the move's touched nodes.
 *
 * <p>A move is kept only when the job has a time for its new configuration and no node exceeds its capacity. Moves
 * are evaluated incrementally (f_OBJ is a sum of per-job terms and per-node terms: only the moved jobs and touched
 * nodes are recomputed): the swaps, replacements and our moves are first scored in O(1) from the terms they change
 * (each node keeps its least and second least execution cost), and only a move that may beat the round's best is
 * applied, measured and undone. The returned schedule's objective is recomputed by {@link ObjectiveFunction}.
 * Deterministic: all randomness is in the randomized greedy; ties keep the earlier move and the earlier start, and
 * f_OBJ values within a relative 1e-9 of each other are ties ({@link #beats}).
 * Not thread-safe (scratch memory is reused across calls): one instance per caller.
 */
public final class LocalSearchPolicy implements SchedulingPolicy {
    public static final String NAME = "rg-ls";
    /** {@link #NAME} with every move also guarded by the run cost ({@link Search#runCostOf}). */
    public static final String GUARDED_NAME = "rg-ls-guarded";
    /** {@link #NAME} plus our shrink-and-insert neighbourhood: what rg-ls was before it was turned off. */
    public static final String SHRINK_AND_INSERT_NAME = "rg-ls-sni";
    /** Upper bound on improving moves per start, so a call's time stays bounded on large queues. */
    public static final int MAX_ROUNDS = 200;

    private final PolicyConfig config;
    private final AndreasRandomizedGreedyPolicy randomizedGreedy;
    private final Search search;

    private final String name;

    /** rg-ls: the thesis' seven neighbourhoods, moves ranked by f_OBJ, as the thesis reads it. */
    public LocalSearchPolicy(PolicyConfig config) {
        this(config, false, false, NAME);
    }

    private LocalSearchPolicy(PolicyConfig config, boolean shrinkAndInsert, boolean runCostGuard, String name) {
        this.config = config == null ? PolicyConfig.DEFAULTS : config;
        this.randomizedGreedy = new AndreasRandomizedGreedyPolicy(this.config);
        this.search = new Search(shrinkAndInsert, this.config.workConserving(), runCostGuard);
        this.name = name;
    }

    /** {@value #SHRINK_AND_INSERT_NAME}: the thesis' seven and our shrink-and-insert neighbourhood, by f_OBJ. */
    public static LocalSearchPolicy withShrinkAndInsert(PolicyConfig config) {
        return new LocalSearchPolicy(config, true, false, SHRINK_AND_INSERT_NAME);
    }

    /** {@value #GUARDED_NAME}: the thesis' seven neighbourhoods, moves also guarded by the run cost. */
    public static LocalSearchPolicy guarded(PolicyConfig config) {
        return new LocalSearchPolicy(config, false, true, GUARDED_NAME);
    }

    @Override
    public String name() {
        return name;
    }

    /**
     * The best f_OBJ of the improved starts whose run cost is at most the first start's (andreas-rg's own schedule),
     * so the result is no worse than andreas-rg's under either measure; without the guard, the best f_OBJ.
     */
    @Override
    public Schedule schedule(SchedulingProblem problem, RandomState random) {
        List<Schedule> starts = randomizedGreedy.bestSolutions(problem, random, config.localSearchKeep());
        Schedule best = null;
        double bound = Double.POSITIVE_INFINITY;
        for (Schedule start : starts) {
            Schedule from = config.workConserving() ? WorkConservation.fill(problem, start) : start;
            Schedule improved = search.improve(problem, from, config.localSearchK());
            if (search.runCostGuard) {
                if (best == null) bound = search.startRunCost + roundingSlack(search.startRunCost);
                else if (search.resultRunCost > bound) continue;
            }
            if (best == null || beats(improved.objective(), best.objective())) best = improved;
        }
        return best;
    }

    /**
     * Whether f_OBJ {@code a} is lower than {@code b} by more than rounding: a relative 1e-9, the threshold a move
     * has to clear too. Starts whose results differ only in the last bits are ties, and ties keep the earlier start,
     * andreas-rg's own; a strict comparison once let a 1e-16 relative difference replace it, and the whole run then
     * followed a different plan.
     */
    static boolean beats(double a, double b) {
        return a < b - roundingSlack(b);
    }

    /** What rounding may move a sum of about {@code value}: differences below it are no differences. */
    static double roundingSlack(double value) {
        return 1e-9 * Math.max(1, Math.abs(value));
    }

    /**
     * The local search alone from any feasible schedule of {@code problem}, not work-conserving, moves ranked by
     * f_OBJ alone: never worse than {@code start}.
     */
    static Schedule improve(SchedulingProblem problem, Schedule start, int k) {
        return improve(problem, start, k, true, false);
    }

    /**
     * The same, with or without our shrink-and-insert neighbourhood and the work-conserving rule; with it,
     * {@code start} must be work-conserving (the moves keep it so; they do not repair it).
     */
    static Schedule improve(
            SchedulingProblem problem, Schedule start, int k, boolean shrinkAndInsert, boolean workConserving) {
        return improve(problem, start, k, shrinkAndInsert, workConserving, false);
    }

    /** The same, with or without the run-cost guard ({@link Search#runCostOf}). */
    static Schedule improve(
            SchedulingProblem problem,
            Schedule start,
            int k,
            boolean shrinkAndInsert,
            boolean workConserving,
            boolean runCostGuard) {
        return new Search(shrinkAndInsert, workConserving, runCostGuard).improve(problem, start, k);
    }

    /**
     * One local search run on a mutable copy of a schedule; arrays are reused across calls. The state and the move
     * primitives are package-private for {@link ShrinkAndInsertNeighbourhood}, which reads them and proposes moves.
     */
    static final class Search {
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
        /**
         * Moves are first scored from the terms they change and handed to {@link #evaluate} only when the score may
         * beat the round's best; this slack (far above rounding, far below any real gain) keeps the filter exact.
         */
        double scoreSlack;
        /**
         * Kept with the applied schedule (not during an evaluation): each job's execution cost, and per used node the
         * job of least execution cost, that cost and the second least, so that a node's least without one of its jobs
         * is O(1).
         */
        double[] jobCost = new double[0], nodeLeast = new double[0], nodeSecondLeast = new double[0];

        int[] nodeLeastJob = new int[0];
        /** Null when the search runs the thesis' neighbourhoods only. */
        private final ShrinkAndInsertNeighbourhood shrinkAndInsert;

        private final WorkConservingMoves workConserving;

        Search(boolean withShrinkAndInsert, boolean workConserving, boolean runCostGuard) {
            shrinkAndInsert = withShrinkAndInsert ? new ShrinkAndInsertNeighbourhood(this) : null;
            this.workConserving = workConserving ? new WorkConservingMoves(this) : null;
            this.runCostGuard = runCostGuard;
        }

        /**
         * Whether a move must also not raise the run cost: what the schedule would cost if it ran to its end
         * unchanged. f_OBJ charges a used node only until its first job ends (the papers' reading: the next event
         * re-decides), so a move that speeds up the first-ending job on a dearer VM, or slows down a job that ends
         * after the others, can lower f_OBJ while the node is paid longer or dearer until its last job ends; whole
         * runs pay the latter.
         */
        final boolean runCostGuard;
        /** Run cost of the last {@link #improve}'s start and of what it returned (guarded searches only). */
        double startRunCost, resultRunCost;

        private double[] nodeRunCost = new double[0], futureCost = new double[0];
        private double[] runRemaining = new double[0];
        private int[] runGpus = new int[0];

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
        /** f_OBJ change of the round's best move so far (starts just below 0: only improving moves are kept). */
        double bDelta;

        Schedule improve(SchedulingProblem p, Schedule start, int k) {
            load(p, start, k);
            double objective = 0;
            for (int j = 0; j < jobs; j++) objective += jobTerm[j];
            for (int n = 0; n < nodes; n++) objective += nodeTerm[n];
            if (runCostGuard) startRunCost = resultRunCost = totalRunCost();
            for (int round = 0; round < MAX_ROUNDS; round++) {
                bDelta = -roundingSlack(objective);
                scoreSlack = 1e-11 * Math.max(1, Math.abs(objective));
                bCount = -1;
                if (workConserving != null) workConserving.beginRound();
                exploreNeighbourhoods(k);
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
            double f = ObjectiveFunction.evaluate(p, placements, types);
            // the incremental sums can only drift by rounding; never hand back something worse than the start
            if (!beats(f, start.objective())) return start;
            if (runCostGuard) resultRunCost = totalRunCost();
            return new Schedule(placements, types, f);
        }

        /**
         * Node n's run cost: its type's price at the busy GPUs of each stretch, as its jobs end one after the other
         * (what {@link org.gpusched.core.objective.RealCost} charges if the schedule runs to its end unchanged).
         */
        double runCostOf(int n) {
            int count = nodeCount[n];
            if (count == 0) return 0;
            for (int i = 0; i < count; i++) {
                int j = nodeJobs[n * slots + i];
                double r = remaining(j);
                int g = jobGpus[j];
                int at = i;
                while (at > 0 && runRemaining[at - 1] > r) {
                    runRemaining[at] = runRemaining[at - 1];
                    runGpus[at] = runGpus[at - 1];
                    at--;
                }
                runRemaining[at] = r;
                runGpus[at] = g;
            }
            int base = nodeType[n] * (slots + 1);
            int busy = Math.min(nodeBusy[n], typeGpus[nodeType[n]]);
            double sum = 0, previous = 0;
            for (int i = 0; i < count; i++) {
                sum += (runRemaining[i] - previous) * rate[base + busy];
                previous = runRemaining[i];
                busy = Math.max(0, busy - runGpus[i]);
            }
            return sum / 3600.0;
        }

        /** A job's share of the run cost: its f_OBJ term, and when it waits, its cheapest execution still to pay. */
        private double runTermOf(int j, double term) {
            return jobNode[j] < 0 ? term + futureCost[j] : term;
        }

        private double totalRunCost() {
            double sum = 0;
            for (int j = 0; j < jobs; j++) sum += runTermOf(j, jobTerm[j]);
            for (int n = 0; n < nodes; n++) sum += nodeRunCost[n];
            return sum;
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
                key = new double[jobs];
                list = new int[jobs];
                late = new int[jobs];
                costly = new int[jobs];
                scratch = new int[jobs];
                due = new double[jobs];
                weight = new double[jobs];
                jobCost = new double[jobs];
                futureCost = new double[jobs];
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
                nodeSeen = new boolean[nodes];
                nodeLeast = new double[nodes];
                nodeSecondLeast = new double[nodes];
                nodeLeastJob = new int[nodes];
                nodeJobs = new int[nodes * slots];
                nodeRunCost = new double[nodes];
            }
            if (runRemaining.length < slots) {
                runRemaining = new double[slots];
                runGpus = new int[slots];
            }
            int moveCap = slots + 2;
            if (members.length < slots) members = new int[slots];
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
            for (int j = 0; j < jobs; j++) {
                var job = p.job(j).job();
                due[j] = job.dueSeconds();
                weight[j] = job.weightPerHour();
                double worst = now + params.horizonSeconds() + p.slowestRemaining(j) - job.dueSeconds();
                postponedPenalty[j] = worst > 0 ? params.rho() * job.weightPerHour() * worst / 3600.0 : 0;
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
                if (runCostGuard) futureCost[j] = cheapestExecution(j);
            }
            IndexSort.sort(byPressure, jobs, pressure, true, scratch);
            for (int n = 0; n < nodes; n++) refreshNode(n);
            if (shrinkAndInsert != null) shrinkAndInsert.load(k);
            if (workConserving != null) workConserving.load();
        }

        private double remaining(int j) {
            return problem.remaining(j, jobType[j], jobGpus[j]);
        }

        private double termOf(int j) {
            if (jobNode[j] < 0) return postponedPenalty[j];
            return tardiness(j, remaining(j));
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
            return cost(jobType[j], jobGpus[j], remaining(j));
        }

        /** The least execution cost among node n's jobs other than its job j (infinite when j is alone). */
        double leastExcluding(int n, int j) {
            return nodeLeastJob[n] == j ? nodeSecondLeast[n] : nodeLeast[n];
        }

        /** Node n's f_OBJ term and least costs, from the kept job costs. */
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
            if (runCostGuard) nodeRunCost[n] = runCostOf(n);
        }

        /**
         * What a waiting job will still pay to run: its cheapest remaining time x price over the types some node can
         * run as, priced as the greedy ranks configurations ({@link NodeOpeningRule#DEFAULT}: on a VM leased whole,
         * its GPUs' share).
         */
        private double cheapestExecution(int j) {
            double best = Double.POSITIVE_INFINITY;
            for (int t = 0; t < typeGpus.length && t < cluster.typeCount(); t++) {
                if (!problem.typeAvailable(t)) continue;
                NodeType type = cluster.type(t);
                for (int g = 1; g <= type.gpus(); g++) {
                    double r = problem.remaining(j, t, g);
                    if (!Double.isNaN(r))
                        best = Math.min(best, r / 3600.0 * NodeOpeningRule.DEFAULT.preferenceRate(type, g));
                }
            }
            return best == Double.POSITIVE_INFINITY ? 0 : best;
        }

        /** mu x idle GPUs of used node n (its share of f_OBJ beyond the least execution cost). */
        double idleTerm(int n) {
            return mu > 0 ? mu * (typeGpus[nodeType[n]] - nodeBusy[n]) : 0;
        }

        /** Whether a move scored {@code delta} may beat the round's best; {@link #evaluate} then decides exactly. */
        boolean promising(double delta) {
            return delta < bDelta + scoreSlack;
        }

        private double nodeTermOf(int n) {
            int count = nodeCount[n];
            if (count == 0) return 0;
            double least = Double.POSITIVE_INFINITY;
            for (int i = 0; i < count; i++) least = Math.min(least, executionCost(nodeJobs[n * slots + i]));
            return mu > 0 ? least + mu * (typeGpus[nodeType[n]] - nodeBusy[n]) : least;
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
            // ours, not the thesis': postponed jobs into room made by shrinking, switching on or moving out
            if (shrinkAndInsert != null) shrinkAndInsert.explore(k);
        }

        /** late = J_T's first k (decreasing lateness); costly = the k on-time running jobs of highest cost. */
        private void buildLists(int k) {
            int count = 0;
            for (int j = 0; j < jobs; j++) {
                if (jobNode[j] < 0) continue;
                double lateness = now + remaining(j) - due[j];
                if (lateness > 0) {
                    list[count++] = j;
                    key[j] = lateness;
                }
            }
            lateCount = largestFirst(list, count, key, k);
            System.arraycopy(list, 0, late, 0, lateCount);
            count = 0;
            for (int j = 0; j < jobs; j++) {
                if (jobNode[j] < 0 || now + remaining(j) - due[j] > 0) continue;
                list[count++] = j;
                key[j] = executionCost(j);
            }
            costlyCount = largestFirst(list, count, key, k);
            System.arraycopy(list, 0, costly, 0, costlyCount);
        }

        /**
         * Moves the k entries of {@code idx[0..count)} with the largest key to its front, largest first, ties in
         * their incoming order (the first k of a stable descending sort) in O(count x k); returns min(k, count).
         */
        static int largestFirst(int[] idx, int count, double[] key, int k) {
            int kept = 0;
            for (int i = 0; i < count; i++) {
                int v = idx[i];
                double kv = key[v];
                if (kept == k && !(kv > key[idx[kept - 1]])) continue;
                int at = kept < k ? kept++ : kept - 1;
                while (at > 0 && kv > key[idx[at - 1]]) {
                    idx[at] = idx[at - 1];
                    at--;
                }
                idx[at] = v;
            }
            return kept;
        }

        private boolean hasTime(int j, int t, int g) {
            return g >= 1 && g <= typeGpus[t] && !Double.isNaN(problem.remaining(j, t, g));
        }

        private void trySwap(int a, int b) {
            if (a == b || jobNode[a] == jobNode[b]) return;
            if (!hasTime(a, jobType[b], jobGpus[b]) || !hasTime(b, jobType[a], jobGpus[a])) return;
            // score: both jobs' terms, and each node's least execution cost (its idle GPUs do not change)
            int na = jobNode[a], nb = jobNode[b];
            double ra = problem.remaining(a, jobType[b], jobGpus[b]);
            double rb = problem.remaining(b, jobType[a], jobGpus[a]);
            double score = tardiness(a, ra)
                    - jobTerm[a]
                    + tardiness(b, rb)
                    - jobTerm[b]
                    + Math.min(leastExcluding(na, a), cost(jobType[a], jobGpus[a], rb))
                    + idleTerm(na)
                    - nodeTerm[na]
                    + Math.min(leastExcluding(nb, b), cost(jobType[b], jobGpus[b], ra))
                    + idleTerm(nb)
                    - nodeTerm[nb];
            if (!promising(score)) return;
            beginMove();
            addMove(a, jobNode[b], jobType[b], jobGpus[b]);
            addMove(b, jobNode[a], jobType[a], jobGpus[a]);
            evaluate();
        }

        private void tryReplace(int waiting, int running) {
            if (!hasTime(waiting, jobType[running], jobGpus[running])) return;
            int n = jobNode[running];
            double r = problem.remaining(waiting, jobType[running], jobGpus[running]);
            double score = tardiness(waiting, r)
                    - jobTerm[waiting]
                    + postponedPenalty[running]
                    - jobTerm[running]
                    + Math.min(leastExcluding(n, running), cost(jobType[running], jobGpus[running], r))
                    + idleTerm(n)
                    - nodeTerm[n];
            if (!promising(score)) return;
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

        /** Applies the move, measures the change of f_OBJ on the touched jobs and nodes, undoes it; keeps the best. */
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
            if (fits && delta < bDelta && runCostGuard) fits = runCostHolds();
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

        /**
         * Whether the applied move leaves the run cost of its jobs and touched nodes no higher; the jobs' terms before
         * are the kept ones, after are recomputed (the move is applied, the undo log holds where they were).
         */
        private boolean runCostHolds() {
            double before = 0, after = 0;
            for (int i = 0; i < mCount; i++) {
                int j = mJob[i];
                before += uNode[i] < 0 ? jobTerm[j] + futureCost[j] : jobTerm[j];
                after += runTermOf(j, termOf(j));
            }
            for (int i = 0; i < touchedCount; i++) {
                before += nodeRunCost[touched[i]];
                after += runCostOf(touched[i]);
            }
            return after - before <= roundingSlack(before);
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
}
