package org.gpusched.core.policy;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.gpusched.core.model.Cluster;
import org.gpusched.core.model.Placement;
import org.gpusched.core.model.Schedule;
import org.gpusched.core.model.SchedulingProblem;
import org.gpusched.core.objective.ObjectiveFunction;

/**
 * Turns an optimizer's plan into one a cluster can carry out: running jobs stay where they are unless moving them
 * pays for the move. The papers price preemption, resizing and migration at zero, so an optimizer's plan moves running
 * jobs for any gain, however small, and names nodes as it happens to open them. Three steps, all deterministic:
 * <ol>
 *   <li><b>Relabel.</b> Nodes with the same candidate types are interchangeable for f_OBJ, so the plan's nodes are
 *       matched to the nodes the running jobs are on (a greedy maximum matching: node pairs by the running jobs they
 *       would keep in place, then by index), and the plan is rewritten on the matched nodes. A plan that only renames
 *       nodes keeps every job where it is.</li>
 *   <li><b>Revert small moves.</b> Each running job the plan still moves (migrates, resizes or preempts), in job
 *       order, goes back to its current placement when there is room for it there and the plan's f_OBJ gain from the
 *       move is less than the move's overhead: (weight per hour + the hourly rate of its current configuration) x
 *       {@code moveOverheadSeconds} / 3600, the tardiness and node time lost to one checkpoint and restart, doubled
 *       for each move the job has had already (so a job the plans keep pushing around soon stays put), and never after
 *       {@link #MAX_MOVES} moves.</li>
 *   <li><b>Keep what pays.</b> A second plan starts from the status quo: every running job where it is, the plan's
 *       waiting jobs wherever they fit beside them; then each job the plan places otherwise takes its planned place,
 *       one at a time, when there is room and that lowers f_OBJ by more than the move's overhead. Of the two plans,
 *       the one with the lower f_OBJ plus the overheads of its moves is carried out (the status quo on ties): a plan
 *       that reshuffles the cluster wins only when it beats the careful one by more than its moves cost.</li>
 * </ol>
 * f_OBJ is recomputed ({@link ObjectiveFunction}) for the plan returned. Not thread-safe: one per policy instance.
 */
public final class PlanStabilizer {
    private final double moveOverheadSeconds;
    /** The current call's moves per job so far (null: none). */
    private int[] movesSoFar;

    public PlanStabilizer(double moveOverheadSeconds) {
        if (!(moveOverheadSeconds >= 0) || Double.isInfinite(moveOverheadSeconds)) {
            throw new IllegalArgumentException("move overhead must be >= 0 seconds, got " + moveOverheadSeconds);
        }
        this.moveOverheadSeconds = moveOverheadSeconds;
    }

    /**
     * The plan to carry out instead of {@code plan}, for {@code problem}; {@code movesSoFar[j]} is how often job j was
     * moved already (null: never).
     */
    public Schedule stabilize(SchedulingProblem problem, Schedule plan, int[] movesSoFar) {
        this.movesSoFar = movesSoFar;
        Plan p = relabel(problem, plan);
        revertSmallMoves(problem, p);
        Plan kept = keepRunning(problem, p);
        takeSuggestionsThatPay(problem, kept, p);
        takeStartsThatPayForTheirMoves(problem, kept, p);
        double keptObjective = ObjectiveFunction.evaluate(problem, kept.placements, kept.nodeTypes);
        if (Arrays.equals(kept.placements, p.placements) && Arrays.equals(kept.nodeTypes, p.nodeTypes)) {
            // the same plan: the comparison below would keep it, at the same objective
            this.movesSoFar = null;
            return new Schedule(kept.placements, kept.nodeTypes, keptObjective);
        }
        double planObjective = ObjectiveFunction.evaluate(problem, p.placements, p.nodeTypes);
        boolean keep = keptObjective + overheadOfMoves(problem, kept) <= planObjective + overheadOfMoves(problem, p);
        this.movesSoFar = null;
        return keep
                ? new Schedule(kept.placements, kept.nodeTypes, keptObjective)
                : new Schedule(p.placements, p.nodeTypes, planObjective);
    }

    /** A plan being edited: placements and node types, with each node's jobs and used GPUs. */
    private static final class Plan {
        final Placement[] placements;
        final int[] nodeTypes;
        final int[] busy;
        final List<List<Integer>> onNode;

        Plan(Placement[] placements, int[] nodeTypes) {
            this.placements = placements;
            this.nodeTypes = nodeTypes;
            this.busy = new int[nodeTypes.length];
            this.onNode = new ArrayList<>(nodeTypes.length);
            for (int n = 0; n < nodeTypes.length; n++) onNode.add(new ArrayList<>(2));
            for (int j = 0; j < placements.length; j++) if (placements[j] != null) put(j, placements[j]);
        }

        void put(int j, Placement p) {
            placements[j] = p;
            busy[p.node()] += p.gpus();
            onNode.get(p.node()).add(j);
            nodeTypes[p.node()] = p.type();
        }

        void take(int j) {
            Placement p = placements[j];
            if (p == null) return;
            placements[j] = null;
            busy[p.node()] -= p.gpus();
            onNode.get(p.node()).remove(Integer.valueOf(j));
            if (onNode.get(p.node()).isEmpty()) nodeTypes[p.node()] = -1;
        }
    }

    /** Step 1: the plan on the nodes matched to the running jobs' nodes. */
    static Plan relabel(SchedulingProblem problem, Schedule plan) {
        Cluster cluster = problem.cluster();
        int nodes = cluster.nodeCount();
        // pairs (plan node, current node) of one class, scored by the running jobs the mapping keeps: 2 in place, 1
        // resized
        // each running job's pair with its score in the two low bits, sorted so that a pair's jobs are adjacent
        long[] scored = new long[problem.jobCount()];
        int count = 0;
        for (int j = 0; j < problem.jobCount(); j++) {
            Placement cur = problem.job(j).current();
            Placement p = plan.placement(j);
            if (cur == null || p == null || cluster.nodeClass(cur.node()) != cluster.nodeClass(p.node())) continue;
            int s = p.type() == cur.type() && p.gpus() == cur.gpus() ? 2 : 1;
            scored[count++] = ((long) p.node() * nodes + cur.node()) << 2 | s;
        }
        Arrays.sort(scored, 0, count);
        long[] pairs = new long[count];
        double[] score = new double[count];
        int distinct = 0;
        for (int i = 0; i < count; i++) {
            long pair = scored[i] >>> 2;
            if (distinct == 0 || pairs[distinct - 1] != pair) pairs[distinct++] = pair;
            score[distinct - 1] += scored[i] & 3;
        }
        // best score first, then plan node, then current node: a stable sort of the pairs, which are in that order
        int[] order = new int[distinct];
        for (int i = 0; i < distinct; i++) order[i] = i;
        new IndexSort().sort(order, distinct, score, true);
        int[] target = new int[nodes];
        boolean[] taken = new boolean[nodes];
        Arrays.fill(target, -1);
        for (int i = 0; i < distinct; i++) {
            long pair = pairs[order[i]];
            int from = (int) (pair / nodes), to = (int) (pair % nodes);
            if (target[from] >= 0 || taken[to]) continue;
            target[from] = to;
            taken[to] = true;
        }
        // the rest keep their own label when it is free, else take the lowest free node of their class
        for (int n = 0; n < nodes; n++) {
            if (target[n] < 0 && !taken[n]) {
                target[n] = n;
                taken[n] = true;
            }
        }
        int[] nextFree = new int[cluster.nodeClassCount()];
        for (int n = 0; n < nodes; n++) {
            if (target[n] >= 0) continue;
            int c = cluster.nodeClass(n);
            int m = nextFree[c];
            while (m < nodes && (taken[m] || cluster.nodeClass(m) != c)) m++;
            nextFree[c] = m;
            target[n] = m;
            taken[m] = true;
        }
        Placement[] placements = new Placement[problem.jobCount()];
        int[] types = new int[nodes];
        Arrays.fill(types, -1);
        for (int j = 0; j < placements.length; j++) {
            Placement p = plan.placement(j);
            if (p != null) placements[j] = new Placement(target[p.node()], p.type(), p.gpus());
        }
        Plan relabelled = new Plan(new Placement[placements.length], types);
        for (int j = 0; j < placements.length; j++) if (placements[j] != null) relabelled.put(j, placements[j]);
        return relabelled;
    }

    /** Step 2. */
    private void revertSmallMoves(SchedulingProblem problem, Plan p) {
        Cluster cluster = problem.cluster();
        for (int j = 0; j < problem.jobCount(); j++) {
            Placement cur = problem.job(j).current();
            Placement planned = p.placements[j];
            if (cur == null || cur.equals(planned)) continue;
            int n = cur.node();
            int other = planned == null ? n : planned.node();
            boolean plannedHere = other == n && planned != null;
            int othersBusy = p.busy[n] - (plannedHere ? planned.gpus() : 0);
            boolean othersOnNode = p.onNode.get(n).size() > (plannedHere ? 1 : 0);
            if (othersOnNode && p.nodeTypes[n] != cur.type()) continue;
            if (othersBusy + cur.gpus() > cluster.type(cur.type()).gpus()) continue;
            double moved = share(problem, p, j, n, other);
            p.take(j);
            p.put(j, cur);
            double kept = share(problem, p, j, n, other);
            if (kept - moved >= overhead(problem, j, cur)) {
                p.take(j);
                if (planned != null) p.put(j, planned);
            }
        }
    }

    /** The part of f_OBJ job j's placement can change: its own term and the shares of nodes {@code a} and {@code b}. */
    private static double share(SchedulingProblem problem, Plan p, int j, int a, int b) {
        double total = jobTerm(problem, j, p.placements[j]) + nodeShare(problem, p, a);
        return b == a ? total : total + nodeShare(problem, p, b);
    }

    /** Job j's own terms of f_OBJ at {@code placed} (null: waiting), with its move's charge when moves are charged. */
    private static double jobTerm(SchedulingProblem problem, int j, Placement placed) {
        var job = problem.job(j).job();
        double now = problem.now();
        double charge = problem.moveCharge(j, placed);
        if (placed == null) {
            double late =
                    now + problem.parameters().horizonSeconds() + problem.postponedRemaining(j) - job.dueSeconds();
            return (late > 0 ? problem.parameters().rho() * job.weightPerHour() * late / 3600.0 : 0) + charge;
        }
        double late = now + problem.remainingAt(j, placed) - job.dueSeconds();
        return (late > 0 ? job.weightPerHour() * late / 3600.0 : 0) + charge;
    }

    private static double nodeShare(SchedulingProblem problem, Plan p, int n) {
        List<Integer> jobs = p.onNode.get(n);
        if (jobs.isEmpty()) return 0;
        int t = p.nodeTypes[n];
        double first = Double.POSITIVE_INFINITY;
        for (int j : jobs) {
            Placement placed = p.placements[j];
            first = Math.min(
                    first,
                    problem.remainingAt(j, placed)
                            / 3600.0
                            * problem.cluster().type(placed.type()).costPerHour(placed.gpus()));
        }
        return first + problem.parameters().mu() * (problem.cluster().type(t).gpus() - p.busy[n]);
    }

    /**
     * One move of running job j off {@code current}: the tardiness and node time of one checkpoint and restart, times
     * 2^(moves it had already).
     */
    private double overhead(SchedulingProblem problem, int j, Placement current) {
        int earlier = movesSoFar == null ? 0 : movesSoFar[j];
        if (earlier >= MAX_MOVES) return Double.POSITIVE_INFINITY;
        double rate = problem.cluster().type(current.type()).costPerHour(current.gpus());
        return (problem.job(j).job().weightPerHour() + rate) * moveOverheadSeconds / 3600.0 * (1L << earlier);
    }

    /**
     * Moves of one job after which plans leave it where it runs until it ends (a node failure may still stop it). A
     * safety net: the optimizers' f_OBJ charges a move aside at the postponement's scale
     * ({@link SchedulingProblem#moveCharge}); with it one job of the stability benchmark's 8,203 reaches this many
     * moves (docs/benchmarks-scale.md).
     */
    public static final int MAX_MOVES = 10;

    private double overheadOfMoves(SchedulingProblem problem, Plan p) {
        double total = 0;
        for (int j = 0; j < problem.jobCount(); j++) total += overheadIfMoved(problem, p, j);
        return total;
    }

    /** The overhead of running job j's move when plan p does not keep it where it runs (0 when it does or it waits). */
    private double overheadIfMoved(SchedulingProblem problem, Plan p, int j) {
        Placement cur = problem.job(j).current();
        return cur != null && !cur.equals(p.placements[j]) ? overhead(problem, j, cur) : 0;
    }

    /**
     * Step 3's alternative, improved: each job the plan places differently from {@code kept} (a running job it moves,
     * a waiting job that did not fit beside the running ones) is given its planned placement, one at a time in job
     * order, when there is room and it lowers f_OBJ by more than the move's overhead (any amount for a waiting job).
     */
    private void takeSuggestionsThatPay(SchedulingProblem problem, Plan kept, Plan plan) {
        Cluster cluster = problem.cluster();
        for (int j = 0; j < problem.jobCount(); j++) {
            Placement from = kept.placements[j];
            Placement to = plan.placements[j];
            Placement current = problem.job(j).current();
            if (to == null || to.equals(from)) continue;
            int n = to.node();
            boolean sameNode = from != null && from.node() == n;
            int othersBusy = kept.busy[n] - (sameNode ? from.gpus() : 0);
            boolean othersOnNode = kept.onNode.get(n).size() > (sameNode ? 1 : 0);
            if (othersOnNode && kept.nodeTypes[n] != to.type()) continue;
            if (othersBusy + to.gpus() > cluster.type(to.type()).gpus()) continue;
            int a = from == null ? n : from.node();
            double before = share(problem, kept, j, a, n);
            kept.take(j);
            kept.put(j, to);
            double gain = before - share(problem, kept, j, a, n);
            double needed = current == null ? 0 : overhead(problem, j, current);
            if (!(gain > needed)) {
                kept.take(j);
                if (from != null) kept.put(j, from);
            }
        }
    }

    /**
     * Step 3's alternative, improved further: per node, in node order, the waiting jobs the plan starts there that
     * {@code kept} leaves waiting, together with the plan's moves of the jobs {@code kept} has on that node (to their
     * planned places, which must be free), taken as a unit when that lowers f_OBJ plus the overheads of the moves. So
     * a running job makes room for another only when starting the other pays for the move. The change is priced on
     * what a unit touches (its jobs' terms and overheads, the shares of the nodes they leave and reach), not by
     * pricing the whole problem per node: with thousands of jobs asked and a start on every other node, that was
     * quadratic and took over half of a controller's time.
     */
    private void takeStartsThatPayForTheirMoves(SchedulingProblem problem, Plan kept, Plan plan) {
        List<List<Integer>> starts = new ArrayList<>();
        for (int n = 0; n < kept.nodeTypes.length; n++) starts.add(null);
        boolean any = false;
        for (int j = 0; j < problem.jobCount(); j++) {
            Placement to = plan.placements[j];
            if (problem.job(j).current() != null || to == null || kept.placements[j] != null) continue;
            if (starts.get(to.node()) == null) starts.set(to.node(), new ArrayList<>(2));
            starts.get(to.node()).add(j);
            any = true;
        }
        if (!any) return;
        for (int n = 0; n < starts.size(); n++) {
            List<Integer> waiting = starts.get(n);
            if (waiting == null) continue;
            List<Integer> unit = new ArrayList<>();
            for (int j : kept.onNode.get(n)) {
                Placement to = plan.placements[j];
                if (to == null || to.node() != n) unit.add(j);
            }
            unit.addAll(waiting);
            Placement[] before = new Placement[unit.size()];
            for (int i = 0; i < before.length; i++) before[i] = kept.placements[unit.get(i)];
            List<Integer> touched = new ArrayList<>();
            touched.add(n);
            for (int i = 0; i < before.length; i++) {
                if (before[i] != null) touched.add(before[i].node());
                Placement to = plan.placements[unit.get(i)];
                if (to != null) touched.add(to.node());
            }
            List<Integer> nodes = touched.stream().distinct().toList();
            double cost = unitCost(problem, kept, unit, nodes);
            for (int j : unit) kept.take(j);
            boolean fits = true;
            for (int j : unit) {
                Placement to = plan.placements[j];
                if (to == null) continue;
                if (!fits(problem, kept, to.node(), to.type(), to.gpus())) {
                    fits = false;
                    break;
                }
                kept.put(j, to);
            }
            double after = fits ? unitCost(problem, kept, unit, nodes) : Double.POSITIVE_INFINITY;
            if (after < cost) continue;
            for (int j : unit) kept.take(j);
            for (int i = 0; i < before.length; i++) if (before[i] != null) kept.put(unit.get(i), before[i]);
        }
    }

    /** The part of f_OBJ plus overheads that placing {@code unit} can change: its jobs' and {@code nodes}' shares. */
    private double unitCost(SchedulingProblem problem, Plan p, List<Integer> unit, List<Integer> nodes) {
        double total = 0;
        for (int j : unit) {
            total += jobTerm(problem, j, p.placements[j]);
            total += overheadIfMoved(problem, p, j);
        }
        for (int m : nodes) total += nodeShare(problem, p, m);
        return total;
    }

    /**
     * Step 3's alternative: every running job where it is, and the plan's started jobs where they still fit: on their
     * planned node, else (after those) in the same configuration on the first node of its class with room (the plan
     * may have put them where a running job it moves away still is in the status quo).
     */
    private static Plan keepRunning(SchedulingProblem problem, Plan p) {
        int[] types = new int[p.nodeTypes.length];
        Arrays.fill(types, -1);
        Plan kept = new Plan(new Placement[p.placements.length], types);
        for (int j = 0; j < problem.jobCount(); j++) {
            Placement cur = problem.job(j).current();
            if (cur != null) kept.put(j, cur);
        }
        List<Integer> displaced = new ArrayList<>();
        for (int j = 0; j < problem.jobCount(); j++) {
            Placement planned = p.placements[j];
            if (problem.job(j).current() != null || planned == null) continue;
            if (fits(problem, kept, planned.node(), planned.type(), planned.gpus())) kept.put(j, planned);
            else displaced.add(j);
        }
        Cluster cluster = problem.cluster();
        for (int j : displaced) {
            Placement planned = p.placements[j];
            for (int m = 0; m < cluster.nodeCount(); m++) {
                if (cluster.nodeClass(m) == cluster.nodeClass(planned.node())
                        && fits(problem, kept, m, planned.type(), planned.gpus())) {
                    kept.put(j, new Placement(m, planned.type(), planned.gpus()));
                    break;
                }
            }
        }
        return kept;
    }

    /** Whether {@code gpus} GPUs of node n running as {@code type} are free in plan p. */
    private static boolean fits(SchedulingProblem problem, Plan p, int n, int type, int gpus) {
        boolean typeFits = p.onNode.get(n).isEmpty() || p.nodeTypes[n] == type;
        return typeFits && p.busy[n] + gpus <= problem.cluster().type(type).gpus();
    }
}
