package org.gpusched.core.policy;

import java.util.Arrays;
import java.util.List;
import org.gpusched.core.model.Cluster;
import org.gpusched.core.model.Placement;
import org.gpusched.core.model.Schedule;
import org.gpusched.core.model.SchedulingProblem;

/**
 * The real cost a plan would come to if it were kept: its running jobs end where it puts them, and the jobs it leaves
 * waiting start, most pressed first (ANDREAS pressure), as soon as GPUs free up, each on its cheapest configuration
 * that fits and still meets its due date, else on the fastest that fits; nodes cost their rate at their busy GPUs
 * while they host a job, jobs their weight per hour late. No job arrives and no running job moves.
 *
 * <p>Why. While moves cost time (a restore and the progress since the last snapshot) and some job is short of time,
 * what a plan leaves waiting decides most of what the run pays: a waiting job starts only when GPUs free up, and by
 * then its due date may be gone. f_OBJ and f_W price a waiting job by its worst case at the horizon H and a running
 * one by its own end, so they cannot see a queue forming behind a plan's choices; a forecast of the queue can. Under
 * free moves the next event re-plans everything, so a forecast without moves says little, and the policies do not
 * ask for one there.
 *
 * <p>Cost: per plan, one pass over the jobs per completion, O(jobs x (jobs + nodes x configurations)) at worst. The
 * per-call part (each job's configurations by price, the pressure order) is built once per problem. Not thread-safe.
 */
final class PlanForecast {
    private SchedulingProblem prepared;
    private int jobs, nodes;
    private int[] typeGpus;
    private double[][] rate;
    /** Per job, its configurations by cheapest share ascending: type, GPUs and seconds to its end there (no move). */
    private int[][] cfgType, cfgGpus;

    private double[][] cfgSeconds;
    /** The jobs by pressure, most pressed first. */
    private int[] byPressure;
    // per forecast, reused
    private int[] nodeType = new int[0], busy = new int[0], jobNode = new int[0], jobGpus = new int[0];
    private double[] end = new double[0];
    private boolean[] waiting = new boolean[0];

    /** The plan among {@code plans} with the lowest forecast; ties keep the earlier one. */
    Schedule cheapest(SchedulingProblem problem, List<Schedule> plans) {
        Schedule best = null;
        double bestCost = Double.POSITIVE_INFINITY;
        for (Schedule plan : plans) {
            double cost = cost(problem, plan);
            if (best == null || cost < bestCost) {
                best = plan;
                bestCost = cost;
            }
        }
        return best;
    }

    /** The forecast real cost of {@code plan} from the problem's time on. */
    double cost(SchedulingProblem problem, Schedule plan) {
        prepare(problem);
        Cluster cluster = problem.cluster();
        Arrays.fill(busy, 0, nodes, 0);
        Arrays.fill(end, 0, jobs, Double.POSITIVE_INFINITY);
        for (int n = 0; n < nodes; n++) nodeType[n] = plan.nodeType(n);
        double now = problem.now();
        int running = 0, queued = 0;
        for (int j = 0; j < jobs; j++) {
            Placement p = plan.placement(j);
            waiting[j] = p == null;
            if (p == null) {
                queued++;
                continue;
            }
            start(j, p.node(), p.type(), p.gpus(), now + problem.remainingAt(j, p));
            running++;
        }
        double cost = 0;
        while (running > 0) {
            double next = Double.POSITIVE_INFINITY;
            for (int j = 0; j < jobs; j++) next = Math.min(next, end[j]);
            double ratePerHour = 0;
            for (int n = 0; n < nodes; n++) if (busy[n] > 0) ratePerHour += rate[nodeType[n]][busy[n]];
            cost += ratePerHour * (next - now) / 3600.0;
            now = next;
            for (int j = 0; j < jobs; j++) {
                if (end[j] > now) continue;
                var job = problem.job(j).job();
                double late = now - job.dueSeconds();
                if (late > 0) cost += job.weightPerHour() * late / 3600.0;
                end[j] = Double.POSITIVE_INFINITY;
                int n = jobNode[j];
                busy[n] -= jobGpus[j];
                if (busy[n] == 0) nodeType[n] = -1;
                running--;
            }
            for (int k = 0; k < jobs && queued > 0; k++) {
                int j = byPressure[k];
                if (waiting[j] && startWaiting(problem, cluster, j, now)) {
                    waiting[j] = false;
                    queued--;
                    running++;
                }
            }
        }
        return cost;
    }

    private void start(int j, int n, int t, int g, double at) {
        nodeType[n] = t;
        busy[n] += g;
        jobNode[j] = n;
        jobGpus[j] = g;
        end[j] = at;
    }

    /** Starts waiting job j at {@code now} on its cheapest configuration that fits and meets its due date, else fastest. */
    private boolean startWaiting(SchedulingProblem problem, Cluster cluster, int j, double now) {
        double due = problem.job(j).job().dueSeconds();
        int[] types = cfgType[j], gpus = cfgGpus[j];
        double[] seconds = cfgSeconds[j];
        int pick = -1, pickNode = -1;
        for (int i = 0; i < types.length && pick < 0; i++) {
            if (now + seconds[i] > due) continue;
            int n = nodeFor(cluster, types[i], gpus[i]);
            if (n >= 0) {
                pick = i;
                pickNode = n;
            }
        }
        if (pick < 0) {
            // none on time: the fastest that fits
            for (int i = 0; i < types.length; i++) {
                if (pick >= 0 && seconds[i] >= seconds[pick]) continue;
                int n = nodeFor(cluster, types[i], gpus[i]);
                if (n >= 0) {
                    pick = i;
                    pickNode = n;
                }
            }
        }
        if (pick < 0) return false;
        var p = new Placement(pickNode, types[pick], gpus[pick]);
        start(j, pickNode, types[pick], gpus[pick], now + problem.remainingAt(j, p));
        return true;
    }

    /** The node with the fewest free GPUs that runs as t with g free, else the first off node that can run as t, or -1. */
    private int nodeFor(Cluster cluster, int t, int g) {
        int best = -1, bestFree = Integer.MAX_VALUE, off = -1;
        for (int n = 0; n < nodes; n++) {
            if (nodeType[n] == t) {
                int free = typeGpus[t] - busy[n];
                if (free >= g && free < bestFree) {
                    best = n;
                    bestFree = free;
                }
            } else if (off < 0 && nodeType[n] < 0 && cluster.canTake(n, t)) {
                off = n;
            }
        }
        return best >= 0 ? best : off;
    }

    private void prepare(SchedulingProblem problem) {
        if (problem == prepared) return;
        prepared = problem;
        Cluster cluster = problem.cluster();
        jobs = problem.jobCount();
        nodes = cluster.nodeCount();
        int types = cluster.typeCount();
        typeGpus = new int[types];
        rate = new double[types][];
        for (int t = 0; t < types; t++) {
            typeGpus[t] = cluster.type(t).gpus();
            rate[t] = cluster.type(t).costPerHour();
        }
        cfgType = new int[jobs][];
        cfgGpus = new int[jobs][];
        cfgSeconds = new double[jobs][];
        int most = types * (cluster.maxGpus() + 1);
        int[] t0 = new int[most], g0 = new int[most];
        double[] s0 = new double[most], price = new double[most];
        Integer[] order = new Integer[most];
        for (int j = 0; j < jobs; j++) {
            int k = 0;
            for (int t = 0; t < types; t++) {
                if (!problem.typeAvailable(t)) continue;
                for (int g = 1; g <= typeGpus[t]; g++) {
                    double r = problem.remaining(j, t, g);
                    if (Double.isNaN(r)) continue;
                    t0[k] = t;
                    g0[k] = g;
                    s0[k] = r;
                    price[k] = cluster.type(t).cheapestGpuHour() * g * r;
                    order[k] = k;
                    k++;
                }
            }
            Arrays.sort(order, 0, k, (a, b) -> {
                int c = Double.compare(price[a], price[b]);
                return c != 0 ? c : Integer.compare(a, b);
            });
            cfgType[j] = new int[k];
            cfgGpus[j] = new int[k];
            cfgSeconds[j] = new double[k];
            for (int i = 0; i < k; i++) {
                cfgType[j][i] = t0[order[i]];
                cfgGpus[j][i] = g0[order[i]];
                cfgSeconds[j][i] = s0[order[i]];
            }
        }
        Integer[] pressed = new Integer[jobs];
        for (int j = 0; j < jobs; j++) pressed[j] = j;
        Arrays.sort(pressed, (a, b) -> {
            int c = Double.compare(problem.pressure(b), problem.pressure(a));
            return c != 0 ? c : Integer.compare(a, b);
        });
        byPressure = new int[jobs];
        for (int j = 0; j < jobs; j++) byPressure[j] = pressed[j];
        nodeType = GreedyArrays.grow(nodeType, nodes);
        busy = GreedyArrays.grow(busy, nodes);
        jobNode = GreedyArrays.grow(jobNode, jobs);
        jobGpus = GreedyArrays.grow(jobGpus, jobs);
        end = GreedyArrays.grow(end, jobs);
        if (waiting.length < jobs) waiting = new boolean[jobs];
    }
}
