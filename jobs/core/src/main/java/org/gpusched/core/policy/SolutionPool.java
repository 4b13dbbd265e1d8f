package org.gpusched.core.policy;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.gpusched.core.model.Placement;
import org.gpusched.core.model.Schedule;
import org.gpusched.core.model.SchedulingProblem;
import org.gpusched.core.objective.ObjectiveFunction;

/**
 * The best {@code keep} distinct schedules of one call, ordered by the ranking objective (fixed-point f_OBJ) and, for
 * equal values, by the iteration that first built them; plus a copy of the deterministic iteration's schedule for the
 * never-worse-than-greedy guarantee. Whatever order entries are offered in (one worker's iterations, or several
 * workers' pools merged), the pool ends as the first {@code keep} distinct schedules of that order, each with the
 * lowest iteration that built it. Arrays are recycled across calls.
 */
final class SolutionPool {
    private int jobs, nodes, keep, size;
    private long[] objective = new long[0];
    private int[] iteration = new int[0];
    private int[][] node = new int[0][], type = new int[0][], gpus = new int[0][], nodeType = new int[0][];

    private boolean hasGreedy;
    private int[] greedyNode = new int[0],
            greedyType = new int[0],
            greedyGpus = new int[0],
            greedyNodeType = new int[0];

    void prepare(int jobs, int nodes, int keepBest) {
        this.jobs = jobs;
        this.nodes = nodes;
        this.keep = keepBest;
        size = 0;
        hasGreedy = false;
        if (objective.length < keep || node.length < keep || (node[0].length < jobs || nodeType[0].length < nodes)) {
            objective = new long[keep];
            iteration = new int[keep];
            node = new int[keep][jobs];
            type = new int[keep][jobs];
            gpus = new int[keep][jobs];
            nodeType = new int[keep][nodes];
        }
    }

    int size() {
        return size;
    }

    /** The ranking value of the best entry; the pool must not be empty. */
    long bestObjective() {
        return objective[0];
    }

    /** The iteration that first built the best entry; the pool must not be empty. */
    int bestIteration() {
        return iteration[0];
    }

    /** Offers the schedule a construction just built, with its ranking objective f, by iteration {@code it}. */
    void offer(long f, int it, GreedyConstruction c) {
        offer(f, it, c.jobNode, c.jobType, c.jobGpus, c.pool.nodeType);
    }

    /** Offers every entry of another pool of the same call. */
    void offerAll(SolutionPool other) {
        for (int k = 0; k < other.size; k++)
            offer(
                    other.objective[k],
                    other.iteration[k],
                    other.node[k],
                    other.type[k],
                    other.gpus[k],
                    other.nodeType[k]);
    }

    private void offer(long f, int it, int[] jobNode, int[] jobType, int[] jobGpus, int[] nodeTypes) {
        for (int k = 0; k < size; k++) {
            if (objective[k] == f && same(k, jobNode, jobGpus, nodeTypes)) {
                if (iteration[k] <= it) return;
                remove(k); // the same schedule, built earlier: it ranks by its first iteration
                break;
            }
        }
        if (size == keep && !before(f, it, size - 1)) return;
        int pos = size < keep ? size++ : keep - 1;
        // recycle the arrays of the dropped (or next free) entry
        int[] pn = node[pos], pt = type[pos], pg = gpus[pos], pnt = nodeType[pos];
        while (pos > 0 && before(f, it, pos - 1)) {
            move(pos - 1, pos);
            pos--;
        }
        System.arraycopy(jobNode, 0, pn, 0, jobs);
        System.arraycopy(jobType, 0, pt, 0, jobs);
        System.arraycopy(jobGpus, 0, pg, 0, jobs);
        System.arraycopy(nodeTypes, 0, pnt, 0, nodes);
        objective[pos] = f;
        iteration[pos] = it;
        node[pos] = pn;
        type[pos] = pt;
        gpus[pos] = pg;
        nodeType[pos] = pnt;
    }

    private boolean before(long f, int it, int k) {
        return ranksBefore(f, it, objective[k], iteration[k]);
    }

    /** The pools' order: a schedule of ranking value f built by iteration it comes before one of g built by jt. */
    static boolean ranksBefore(long f, int it, long g, int jt) {
        return f < g || f == g && it < jt;
    }

    private void move(int from, int to) {
        objective[to] = objective[from];
        iteration[to] = iteration[from];
        node[to] = node[from];
        type[to] = type[from];
        gpus[to] = gpus[from];
        nodeType[to] = nodeType[from];
    }

    private void remove(int k) {
        int[] pn = node[k], pt = type[k], pg = gpus[k], pnt = nodeType[k];
        for (int i = k; i < size - 1; i++) move(i + 1, i);
        size--;
        node[size] = pn;
        type[size] = pt;
        gpus[size] = pg;
        nodeType[size] = pnt;
    }

    private boolean same(int k, int[] jobNode, int[] jobGpus, int[] nodeTypes) {
        return Arrays.equals(node[k], 0, jobs, jobNode, 0, jobs)
                && Arrays.equals(gpus[k], 0, jobs, jobGpus, 0, jobs)
                && Arrays.equals(nodeType[k], 0, nodes, nodeTypes, 0, nodes);
    }

    /** Keeps the deterministic iteration's schedule (the construction's current one). */
    void keepGreedy(GreedyConstruction c) {
        greedyNode = GreedyArrays.copyInto(greedyNode, c.jobNode, jobs);
        greedyType = GreedyArrays.copyInto(greedyType, c.jobType, jobs);
        greedyGpus = GreedyArrays.copyInto(greedyGpus, c.jobGpus, jobs);
        greedyNodeType = GreedyArrays.copyInto(greedyNodeType, c.pool.nodeType, nodes);
        hasGreedy = true;
    }

    /**
     * The kept schedules, best first, with their exact {@link ObjectiveFunction} values; when the deterministic
     * iteration was kept and is better by the exact {@code ranking} than the best kept (the ranking in fixed point
     * rounds each term), it comes first, so the result is never worse than the greedy.
     */
    List<Schedule> schedules(SchedulingProblem problem, Ranking ranking) {
        List<Schedule> result = new ArrayList<>(size);
        for (int k = 0; k < size; k++) result.add(toSchedule(problem, node[k], type[k], gpus[k], nodeType[k]));
        if (hasGreedy && !greedyIsBest()) {
            Schedule greedy = toSchedule(problem, greedyNode, greedyType, greedyGpus, greedyNodeType);
            if (ranking.of(problem, greedy) < ranking.of(problem, result.get(0))) {
                result.remove(greedy);
                result.add(0, greedy);
                if (result.size() > keep) result.remove(result.size() - 1);
            }
        }
        return result;
    }

    /** Whether the best kept solution is the deterministic greedy's: then the exact comparison cannot change it. */
    private boolean greedyIsBest() {
        return Arrays.equals(node[0], 0, jobs, greedyNode, 0, jobs)
                && Arrays.equals(type[0], 0, jobs, greedyType, 0, jobs)
                && Arrays.equals(gpus[0], 0, jobs, greedyGpus, 0, jobs)
                && Arrays.equals(nodeType[0], 0, nodes, greedyNodeType, 0, nodes);
    }

    private Schedule toSchedule(SchedulingProblem problem, int[] node, int[] type, int[] gpus, int[] nodeTypes) {
        Placement[] placements = new Placement[jobs];
        for (int j = 0; j < jobs; j++) {
            if (node[j] >= 0) placements[j] = new Placement(node[j], type[j], gpus[j]);
        }
        int[] types = Arrays.copyOf(nodeTypes, nodes);
        return new Schedule(placements, types, ObjectiveFunction.evaluate(problem, placements, types));
    }
}
