package org.gpusched.core.policy;

import com.google.ortools.Loader;
import com.google.ortools.linearsolver.MPConstraint;
import com.google.ortools.linearsolver.MPObjective;
import com.google.ortools.linearsolver.MPSolver;
import com.google.ortools.linearsolver.MPSolverParameters;
import com.google.ortools.linearsolver.MPVariable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.gpusched.core.model.Cluster;
import org.gpusched.core.model.InvalidInstanceException;
import org.gpusched.core.model.NodeType;
import org.gpusched.core.model.Placement;
import org.gpusched.core.model.Schedule;
import org.gpusched.core.model.SchedulingProblem;
import org.gpusched.core.objective.ObjectiveFunction;
import org.gpusched.core.objective.ObjectiveParameters;
import org.gpusched.core.random.RandomState;

/**
 * {@code milp} and {@code milp-relaxed}: the hierarchical paper's linearized MILP (P2), solved exactly with
 * OR-Tools/SCIP under {@link PolicyConfig#milpTimeLimitSeconds()}. It is the yardstick of the heuristics on small
 * instances. The two differ only in how they read (P1n), see below: {@code milp} is work-conserving (the
 * default, for whole runs), {@code milp-relaxed} may postpone by choice (the per-decision lower bound of f_OBJ).
 *
 * <p>The model minimizes exactly {@link ObjectiveFunction} (f_OBJ). Variables, with the paper's names:
 * <ul>
 *   <li>{@code x[j,n,v,g]} (P1p): job j on node n of type v with g GPUs; created only where j has a time for (v, g)
 *       and v is a candidate type of n (the single type of a fixed ANDREAS node, the VM catalog of a rightsizable
 *       node);</li>
 *   <li>{@code y[n,v]} (P1o): node n runs as type v; {@code w_n = sum_v y[n,v]} (P1b) is kept as an expression;</li>
 *   <li>{@code alpha[j,n]} binary, {@code gamma[j,n] >= 0}: the first-ending-job cost linearization (P1k, P1l,
 *       P2c-P2e), with the big-M {@code M^_jn} = the largest cost of j on the configurations of n;
 *       {@code xi_n} is substituted by {@code sum_j gamma[j,n]} (P2b holds with equality at any optimum).</li>
 * </ul>
 * Because a job has at most one x set, its tardiness (P1h) and worst-case tardiness when postponed (P1i) are
 * constants of the chosen configuration, so they enter the objective as coefficients of x (and as an offset for
 * the postponement term) instead of through tau variables: the same model with fewer continuous variables. Times
 * are the remaining times of the problem (progress already done is kept), relative to its {@code now}.
 *
 * <p>Readings we had to choose, on purpose:
 * <ul>
 *   <li>(P1n) {@code sum_n w_n = min(N, J)} is not used as written: as an equality it makes instances infeasible
 *       (a node type no queued job can run on, fewer compatible jobs than nodes), and it counts nodes, not room (a
 *       node hosting one small job counts as used while jobs wait that would fit beside it). The paper's intent,
 *       "the execution of jobs as soon as resources are available", is read in one of two ways:
 *       <ul>
 *         <li><b>work-conserving</b> ({@code milp}, our (P1n'), the default): a job may wait only if no node of the
 *             chosen schedule could host it ({@link WorkConservation}: a node on as type v with at least
 *             {@code m_jv} idle GPUs, {@code m_jv} = the fewest GPUs j has a time for on v, or an off node with a
 *             type j can run on). With {@code P_j = sum_{n,v,g} x[j,n,v,g]} (1 when j runs, 0 when it waits) and
 *             {@code U_nv = sum_{j',g} g x[j',n,v,g]} (GPUs used on n as v), for every job j and node n it can run
 *             on:
 *             <pre>
 *   (P1n'a)  sum_v y[n,v] + P_j &gt;= 1                              (j waits only if n is on)
 *   (P1n'b)  U_nv - c_jv y[n,v] + c_jv P_j &gt;= 0, c_jv = G_v - m_jv + 1   for each type v of n j has a time on
 *             </pre>
 *             (P1n'b) says: if n is on as v and j waits, n has fewer than {@code m_jv} idle GPUs
 *             ({@code U_nv >= G_v - m_jv + 1}); when j runs or n is not v, the left side is already {@code >= 0}
 *             (U and y are 0 together). Exact, no new variables, at most {@code J x N x (1 + |types of n|)} rows;
 *             the size guard (binary variables) is unchanged. Always feasible: filling nodes first-fit until no
 *             waiting job fits anywhere gives a work-conserving schedule. Its optimum is the least f_OBJ over
 *             work-conserving schedules, so it is never below {@code milp-relaxed}'s;</li>
 *         <li><b>relaxed</b> ({@code milp-relaxed}): (P1n) relaxed to {@code <=}, which every schedule satisfies,
 *             so it is dropped; the intent is left to the rho penalty of postponed jobs. Its optimum is a true lower
 *             bound of every policy's f_OBJ, but it postpones jobs whose worst-case tardiness is zero (postponing
 *             them is free in f_OBJ), leaving GPUs idle, and whole runs pay for it.</li>
 *       </ul></li>
 *   <li>The first-ending-job cost is the least {@code remaining x costPerHour[v][g]} among the node's jobs (the
 *       minimization picks alpha), as documented in {@link ObjectiveFunction}.</li>
 * </ul>
 *
 * <p>Warm start and time limit: when a warm-start policy is given ({@link #MilpPolicy(PolicyConfig)} wires the
 * randomized greedy, drawing from the caller's random state), its schedule (made work-conserving by
 * {@link WorkConservation#fill} in that mode) is passed to SCIP as a hint. If the
 * time limit stops SCIP, the best incumbent is returned, or the warm start when it is better or SCIP found
 * nothing; {@link Outcome#status()} says which. Only an {@link Status#OPTIMAL} outcome is proven optimal. Without a
 * warm start, a time limit too short for SCIP to find any incumbent ends in an {@link IllegalStateException} saying
 * so. The time of the warm start itself is not counted in the limit. Without a time-limit hit the result is
 * deterministic (SCIP runs single-threaded). Interchangeable nodes (same candidate types) are used in index order
 * (symmetry breaking), which does not change the optimum.
 *
 * <p>Size: instances whose binary variables (x, y and alpha) exceed {@code maxBinaryVariables} (default
 * {@value #DEFAULT_MAX_BINARY_VARIABLES}) are rejected with an {@link InvalidInstanceException} saying so.
 */
public final class MilpPolicy implements SchedulingPolicy {
    public static final String NAME = "milp";
    public static final String RELAXED_NAME = "milp-relaxed";
    public static final int DEFAULT_MAX_BINARY_VARIABLES = 20_000;

    /** How the returned schedule was obtained. */
    public enum Status {
        /** SCIP proved it optimal (relative gap 0). */
        OPTIMAL,
        /** The time limit stopped SCIP; its best incumbent, not proven optimal. */
        TIME_LIMIT_INCUMBENT,
        /** The time limit stopped SCIP with nothing better than the warm start (or no incumbent at all). */
        WARM_START
    }

    /**
     * A solve: the schedule (objective recomputed by {@link ObjectiveFunction}), how it was obtained, the MILP's own
     * objective value for it and SCIP's best lower bound, and the model size.
     */
    public record Outcome(
            Schedule schedule,
            Status status,
            double solverObjective,
            double bestBound,
            int binaryVariables,
            int constraints) {}

    private final PolicyConfig config;
    private final boolean workConserving;
    private final int maxBinaryVariables;
    private final SchedulingPolicy warmStart;

    /**
     * The registry's {@code milp}: work-conserving unless {@link PolicyConfig#workConserving()} says otherwise,
     * warm-started by {@code andreas-rg-fobj} (which ranks by f_OBJ, as the MILP does) with the same config (drawing from the caller's random state), default size
     * limit. Its f_OBJ is therefore never above that of andreas-rg's schedule made work-conserving (andreas-rg's own,
     * when it leaves no job waiting where it fits) for the same random state, even when the time limit stops SCIP.
     */
    public MilpPolicy(PolicyConfig config) {
        this(
                config,
                config == null || config.workConserving(),
                DEFAULT_MAX_BINARY_VARIABLES,
                AndreasRandomizedGreedyPolicy.byFObj(config));
    }

    /** The registry's {@code milp-relaxed}: as {@link #MilpPolicy(PolicyConfig)} with (P1n) relaxed. */
    public static MilpPolicy relaxed(PolicyConfig config) {
        return new MilpPolicy(
                config, false, DEFAULT_MAX_BINARY_VARIABLES, AndreasRandomizedGreedyPolicy.byFObj(config));
    }

    /**
     * @param workConserving (P1n') on (a job waits only where nothing could host it) or off ((P1n) relaxed)
     * @param warmStart a policy whose schedule seeds SCIP and is the fallback when the time limit leaves nothing
     *                  better; null for none
     */
    public MilpPolicy(PolicyConfig config, boolean workConserving, int maxBinaryVariables, SchedulingPolicy warmStart) {
        if (config == null) throw new IllegalArgumentException("milp: config is missing");
        if (maxBinaryVariables < 1)
            throw new IllegalArgumentException("milp: maxBinaryVariables must be >= 1, got " + maxBinaryVariables);
        this.config = config;
        this.workConserving = workConserving;
        this.maxBinaryVariables = maxBinaryVariables;
        this.warmStart = warmStart;
    }

    @Override
    public String name() {
        return workConserving ? NAME : RELAXED_NAME;
    }

    public boolean workConserving() {
        return workConserving;
    }

    @Override
    public Schedule schedule(SchedulingProblem problem, RandomState random) {
        return solve(problem, random).schedule();
    }

    /** Counts the binary variables (x, y, alpha) the model of {@code problem} would have. */
    public static int binaryVariableCount(SchedulingProblem problem) {
        Cluster cluster = problem.cluster();
        long count = 0;
        for (int n = 0; n < cluster.nodeCount(); n++) {
            count += cluster.candidateTypes(n).length;
            for (int j = 0; j < problem.jobCount(); j++) {
                int configs = 0;
                for (int v : cluster.candidateTypes(n)) {
                    for (int g = 1; g <= cluster.type(v).gpus(); g++)
                        if (!Double.isNaN(problem.remaining(j, v, g))) configs++;
                }
                if (configs > 0) count += configs + 1;
            }
        }
        return (int) Math.min(Integer.MAX_VALUE, count);
    }

    public Outcome solve(SchedulingProblem problem, RandomState random) {
        int binaries = binaryVariableCount(problem);
        if (binaries > maxBinaryVariables) {
            throw new InvalidInstanceException(
                    "milp: instance too large for the exact solver: " + problem.jobCount() + " jobs x "
                            + problem.cluster().nodeCount() + " nodes give " + binaries + " binary variables, limit "
                            + maxBinaryVariables
                            + "; use andreas-rg or rg-ls for instances of this size");
        }
        Schedule start = warmStart == null ? null : warmStart.schedule(problem, random);
        if (start != null && workConserving) start = WorkConservation.fill(problem, start);
        NativeLibraries.load();
        MPSolver solver = MPSolver.createSolver("SCIP");
        if (solver == null) throw new IllegalStateException("milp: OR-Tools has no SCIP backend on this platform");
        MPSolverParameters parameters = new MPSolverParameters();
        try {
            Model model = new Model(problem, solver);
            model.breakNodeSymmetry();
            if (workConserving) model.conserveWork();
            if (start != null) model.hint(start);
            solver.setNumThreads(1);
            solver.setTimeLimit(Math.max(1L, Math.round(config.milpTimeLimitSeconds() * 1000)));
            // the default relative gap (1e-4) would let the "exact" yardstick stop above the optimum
            parameters.setDoubleParam(MPSolverParameters.DoubleParam.RELATIVE_MIP_GAP, 0.0);
            MPSolver.ResultStatus result = solver.solve(parameters);
            boolean hasSolution = result == MPSolver.ResultStatus.OPTIMAL || result == MPSolver.ResultStatus.FEASIBLE;
            if (!hasSolution) {
                if (start != null && result == MPSolver.ResultStatus.NOT_SOLVED) {
                    return new Outcome(
                            start, Status.WARM_START, Double.NaN, Double.NaN, binaries, solver.numConstraints());
                }
                throw new IllegalStateException(
                        "milp: SCIP returned " + result + " after " + solver.wallTime() + " ms on " + problem.jobCount()
                                + " jobs x " + problem.cluster().nodeCount()
                                + " nodes (no schedule; the model is always feasible, so this is a solver failure or a time limit too short to find one)");
            }
            Schedule found = model.extract();
            Status status = result == MPSolver.ResultStatus.OPTIMAL ? Status.OPTIMAL : Status.TIME_LIMIT_INCUMBENT;
            if (status != Status.OPTIMAL && start != null && start.objective() < found.objective()) {
                return new Outcome(
                        start,
                        Status.WARM_START,
                        solver.objective().value(),
                        solver.objective().bestBound(),
                        binaries,
                        solver.numConstraints());
            }
            return new Outcome(
                    found,
                    status,
                    solver.objective().value(),
                    solver.objective().bestBound(),
                    binaries,
                    solver.numConstraints());
        } finally {
            parameters.delete();
            solver.delete();
        }
    }

    /** The MILP of one problem on one solver, and the reading of its solution back into a schedule. */
    private static final class Model {
        private final SchedulingProblem problem;
        private final Cluster cluster;
        private final List<MPVariable> xVars = new ArrayList<>();
        private final List<int[]> xKeys = new ArrayList<>(); // {job, node, type, gpus}
        private final MPVariable[][] y; // [node][index in candidateTypes(node)]
        private final MPSolver solver;
        /** Per node and candidate type index, the x variables on it and their GPU counts: U_nv of (P1n'b). */
        private final List<List<List<MPVariable>>> usedVars = new ArrayList<>();

        private final List<List<List<Integer>>> usedGpus = new ArrayList<>();

        Model(SchedulingProblem problem, MPSolver solver) {
            this.problem = problem;
            this.solver = solver;
            this.cluster = problem.cluster();
            ObjectiveParameters params = problem.parameters();
            int jobs = problem.jobCount();
            int nodes = cluster.nodeCount();
            MPObjective objective = solver.objective();
            objective.setMinimization();

            // postponement (P1i) as an offset, cancelled by each placement of the job
            double[] postponeCost = new double[jobs];
            double offset = 0;
            for (int j = 0; j < jobs; j++) {
                var job = problem.job(j).job();
                double late = problem.now() + params.horizonSeconds() + problem.slowestRemaining(j) - job.dueSeconds();
                postponeCost[j] = late > 0 ? params.rho() * job.weightPerHour() * late / 3600.0 : 0;
                offset += postponeCost[j];
            }
            objective.setOffset(offset);

            y = new MPVariable[nodes][];
            MPConstraint[] oneJobPlacement = new MPConstraint[jobs];
            for (int j = 0; j < jobs; j++)
                oneJobPlacement[j] = solver.makeConstraint(Double.NEGATIVE_INFINITY, 1, "place_" + j); // (P1f, P1m)

            for (int n = 0; n < nodes; n++) {
                int[] types = cluster.candidateTypes(n);
                y[n] = new MPVariable[types.length];
                MPConstraint oneType =
                        solver.makeConstraint(Double.NEGATIVE_INFINITY, 1, "type_" + n); // (P1b), w_n <= 1
                MPConstraint firstEnding = solver.makeConstraint(0, 0, "first_" + n); // (P1k): sum_j alpha = w_n
                MPConstraint[] capacity = new MPConstraint[types.length];
                List<List<MPVariable>> nodeVars = new ArrayList<>();
                List<List<Integer>> nodeGpus = new ArrayList<>();
                usedVars.add(nodeVars);
                usedGpus.add(nodeGpus);
                for (int k = 0; k < types.length; k++) {
                    NodeType type = cluster.type(types[k]);
                    y[n][k] = solver.makeBoolVar("y_" + n + "_" + types[k]);
                    oneType.setCoefficient(y[n][k], 1);
                    firstEnding.setCoefficient(y[n][k], -1);
                    objective.setCoefficient(y[n][k], params.mu() * type.gpus()); // (P2a) idle-GPU term, positive part
                    capacity[k] =
                            solver.makeConstraint(Double.NEGATIVE_INFINITY, 0, "cap_" + n + "_" + types[k]); // (P1g)
                    capacity[k].setCoefficient(y[n][k], -type.gpus());
                    nodeVars.add(new ArrayList<>());
                    nodeGpus.add(new ArrayList<>());
                }
                for (int j = 0; j < jobs; j++) {
                    var job = problem.job(j).job();
                    List<MPVariable> onNode = new ArrayList<>();
                    List<Double> costs = new ArrayList<>();
                    double maxCost = 0;
                    for (int k = 0; k < types.length; k++) {
                        int v = types[k];
                        NodeType type = cluster.type(v);
                        MPConstraint onType = null;
                        for (int g = 1; g <= type.gpus(); g++) {
                            double r = problem.remaining(j, v, g);
                            if (Double.isNaN(r)) continue;
                            if (onType == null) {
                                onType = solver.makeConstraint(
                                        Double.NEGATIVE_INFINITY, 0, "on_" + j + "_" + n + "_" + v); // (P1c, P1e)
                                onType.setCoefficient(y[n][k], -1);
                            }
                            MPVariable x = solver.makeBoolVar("x_" + j + "_" + n + "_" + v + "_" + g);
                            xVars.add(x);
                            xKeys.add(new int[] {j, n, v, g});
                            onType.setCoefficient(x, 1);
                            capacity[k].setCoefficient(x, g);
                            nodeVars.get(k).add(x);
                            nodeGpus.get(k).add(g);
                            oneJobPlacement[j].setCoefficient(x, 1);
                            double late = problem.now() + r - job.dueSeconds();
                            double tardiness = late > 0 ? job.weightPerHour() * late / 3600.0 : 0; // (P1h)
                            objective.setCoefficient(x, tardiness - postponeCost[j] - params.mu() * g);
                            double cost = r / 3600.0 * type.costPerHour(g); // (P1j)
                            onNode.add(x);
                            costs.add(cost);
                            maxCost = Math.max(maxCost, cost);
                        }
                    }
                    if (onNode.isEmpty()) continue;
                    MPVariable alpha = solver.makeBoolVar("alpha_" + j + "_" + n);
                    MPVariable gamma = solver.makeNumVar(0, Double.POSITIVE_INFINITY, "gamma_" + j + "_" + n); // (P2g)
                    firstEnding.setCoefficient(alpha, 1);
                    objective.setCoefficient(gamma, 1); // (P2a, P2b) sum_n xi_n = sum_jn gamma
                    MPConstraint linked =
                            solver.makeConstraint(Double.NEGATIVE_INFINITY, 0, "alpha_z_" + j + "_" + n); // (P1l)
                    linked.setCoefficient(alpha, 1);
                    MPConstraint below = solver.makeConstraint(
                            Double.NEGATIVE_INFINITY, 0, "p2c_" + j + "_" + n); // (P2c) gamma <= pi
                    below.setCoefficient(gamma, 1);
                    MPConstraint bigM =
                            solver.makeConstraint(Double.NEGATIVE_INFINITY, 0, "p2d_" + j + "_" + n); // (P2d)
                    bigM.setCoefficient(gamma, 1);
                    bigM.setCoefficient(alpha, -maxCost);
                    MPConstraint above =
                            solver.makeConstraint(Double.NEGATIVE_INFINITY, maxCost, "p2e_" + j + "_" + n); // (P2e)
                    above.setCoefficient(alpha, maxCost);
                    above.setCoefficient(gamma, -1);
                    for (int i = 0; i < onNode.size(); i++) {
                        linked.setCoefficient(onNode.get(i), -1);
                        below.setCoefficient(onNode.get(i), -costs.get(i));
                        above.setCoefficient(onNode.get(i), costs.get(i));
                    }
                }
            }
        }

        /**
         * Interchangeable nodes (same candidate types; f_OBJ does not depend on which node a job is on) are switched
         * on in index order: w_n >= w_n' for consecutive n < n' of one class. It removes symmetric copies of every
         * solution without changing the optimum, which keeps SCIP from re-proving the same bound node by node.
         */
        void breakNodeSymmetry() {
            for (int n = 0; n < cluster.nodeCount(); n++) {
                int m = previousOfClass(n);
                if (m < 0) continue;
                MPConstraint order = solver.makeConstraint(Double.NEGATIVE_INFINITY, 0, "sym_" + m + "_" + n);
                for (MPVariable v : y[n]) order.setCoefficient(v, 1);
                for (MPVariable v : y[m]) order.setCoefficient(v, -1);
            }
        }

        /**
         * (P1n'a) and (P1n'b) of the class javadoc: a job waits only if no node could host it. The job's x variables
         * are the ones it has in {@code xVars} (P_j); a job with no time on any type of node n gets no row for n.
         */
        void conserveWork() {
            List<List<MPVariable>> placedBy = new ArrayList<>();
            for (int j = 0; j < problem.jobCount(); j++) placedBy.add(new ArrayList<>());
            for (int i = 0; i < xVars.size(); i++) placedBy.get(xKeys.get(i)[0]).add(xVars.get(i));
            for (int j = 0; j < problem.jobCount(); j++) {
                for (int n = 0; n < cluster.nodeCount(); n++) {
                    int[] types = cluster.candidateTypes(n);
                    MPConstraint nodeOn = null;
                    for (int k = 0; k < types.length; k++) {
                        int least = WorkConservation.minGpus(problem, j, types[k]);
                        if (least == Integer.MAX_VALUE) continue;
                        if (nodeOn == null) {
                            nodeOn = solver.makeConstraint(
                                    1, Double.POSITIVE_INFINITY, "wc_on_" + j + "_" + n); // (P1n'a)
                            for (MPVariable v : y[n]) nodeOn.setCoefficient(v, 1);
                            for (MPVariable x : placedBy.get(j)) nodeOn.setCoefficient(x, 1);
                        }
                        int c = cluster.type(types[k]).gpus() - least + 1;
                        MPConstraint full = solver.makeConstraint(
                                0, Double.POSITIVE_INFINITY, "wc_full_" + j + "_" + n + "_" + types[k]); // (P1n'b)
                        List<MPVariable> used = usedVars.get(n).get(k);
                        for (int i = 0; i < used.size(); i++)
                            full.setCoefficient(
                                    used.get(i), usedGpus.get(n).get(k).get(i));
                        full.setCoefficient(y[n][k], -c);
                        // j's own x on this node and type are both in U_nv and in P_j: the coefficients add up
                        for (MPVariable x : placedBy.get(j)) full.setCoefficient(x, full.getCoefficient(x) + c);
                    }
                }
            }
        }

        private int previousOfClass(int n) {
            for (int m = n - 1; m >= 0; m--)
                if (Arrays.equals(cluster.candidateTypes(m), cluster.candidateTypes(n))) return m;
            return -1;
        }

        /** The schedule with, in each class of interchangeable nodes, its used nodes moved to the lowest indices. */
        private Schedule canonical(Schedule start) {
            int nodes = cluster.nodeCount();
            boolean[] used = new boolean[nodes];
            for (int j = 0; j < start.jobCount(); j++)
                if (start.placement(j) != null) used[start.placement(j).node()] = true;
            int[] target = new int[nodes];
            boolean[] taken = new boolean[nodes];
            for (int n = 0; n < nodes; n++) {
                target[n] = n;
                if (!used[n]) continue;
                for (int m = 0; m <= n; m++) {
                    if (!taken[m] && Arrays.equals(cluster.candidateTypes(m), cluster.candidateTypes(n))) {
                        target[n] = m;
                        taken[m] = true;
                        break;
                    }
                }
            }
            Placement[] placements = new Placement[start.jobCount()];
            int[] nodeTypes = new int[nodes];
            Arrays.fill(nodeTypes, -1);
            for (int j = 0; j < placements.length; j++) {
                Placement p = start.placement(j);
                if (p == null) continue;
                placements[j] = new Placement(target[p.node()], p.type(), p.gpus());
                nodeTypes[target[p.node()]] = p.type();
            }
            return new Schedule(placements, nodeTypes, start.objective());
        }

        /**
         * Passes a schedule to SCIP as a starting solution (its x and y, nodes renumbered to satisfy the symmetry
         * breaking; SCIP completes alpha and gamma).
         */
        void hint(Schedule warmStart) {
            Schedule start = canonical(warmStart);
            List<MPVariable> vars = new ArrayList<>();
            List<Double> values = new ArrayList<>();
            for (int i = 0; i < xVars.size(); i++) {
                int[] key = xKeys.get(i);
                Placement p = start.placement(key[0]);
                boolean set = p != null && p.node() == key[1] && p.type() == key[2] && p.gpus() == key[3];
                vars.add(xVars.get(i));
                values.add(set ? 1.0 : 0.0);
            }
            boolean[] used = new boolean[cluster.nodeCount()];
            int[] usedType = new int[cluster.nodeCount()];
            for (int j = 0; j < start.jobCount(); j++) {
                Placement p = start.placement(j);
                if (p != null) {
                    used[p.node()] = true;
                    usedType[p.node()] = p.type();
                }
            }
            for (int n = 0; n < cluster.nodeCount(); n++) {
                int[] types = cluster.candidateTypes(n);
                for (int k = 0; k < types.length; k++) {
                    vars.add(y[n][k]);
                    values.add(used[n] && usedType[n] == types[k] ? 1.0 : 0.0);
                }
            }
            double[] v = new double[values.size()];
            for (int i = 0; i < v.length; i++) v[i] = values.get(i);
            solver.setHint(vars.toArray(new MPVariable[0]), v);
        }

        Schedule extract() {
            Placement[] placements = new Placement[problem.jobCount()];
            int[] nodeTypes = new int[cluster.nodeCount()];
            Arrays.fill(nodeTypes, -1);
            for (int i = 0; i < xVars.size(); i++) {
                if (xVars.get(i).solutionValue() > 0.5) {
                    int[] key = xKeys.get(i);
                    placements[key[0]] = new Placement(key[1], key[2], key[3]);
                    nodeTypes[key[1]] = key[2];
                }
            }
            return new Schedule(placements, nodeTypes, ObjectiveFunction.evaluate(problem, placements, nodeTypes));
        }
    }

    /** OR-Tools' native libraries, loaded once per JVM on first use. */
    private static final class NativeLibraries {
        private static volatile boolean loaded;

        static void load() {
            if (loaded) return;
            synchronized (NativeLibraries.class) {
                if (!loaded) {
                    Loader.loadNativeLibraries();
                    loaded = true;
                }
            }
        }
    }
}
