package org.gpusched.powerflow.policy;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import org.gpusched.powerflow.model.Configuration;

/**
 * PowerFlow's resource allocation (Algorithm 1 of the paper), under {@code power_limit = eta x G x P_max} with every
 * power estimated by the jobs' fitted models.
 *
 * <ol>
 * <li>Every job starts with no GPU at its most energy-efficient limit: the one that maximizes eq. 17's
 * iter / (JCT x E), i.e. minimizes step time x energy per iteration on one GPU.</li>
 * <li>GPU allocation: a priority queue ordered by priority_G (eq. 20), the relative JCT reduction over the relative
 * energy increase of the job's next step. Workers are powers of two (network packing), so the step doubles n (0 -> 1
 * -> 2 -> 4 ...). JCT and energy are the job's remaining ones (remaining iterations x step time, x energy per
 * iteration); the cluster-wide normalizers of eq. 20 are common to all jobs and do not change the order. A waiting job
 * has no finite JCT: its first GPU is worth the same JCT to every job, so waiting jobs come first, ordered by the
 * energy they would add (least first, which is shortest-remaining-work first in energy).</li>
 * <li>A step is taken only if the cluster's predicted power stays within the limit (the paper checks at node
 * boundaries and may overshoot; here it is never exceeded) and the GPUs are free; a job whose step is refused leaves
 * the queue. If nothing at all fits the budget, the head job still gets one GPU so that the cluster never idles.</li>
 * <li>Frequency raise: a second queue ordered by priority_F (eq. 21) raises one job's limit one level at a time while
 * the predicted power stays within the limit.</li>
 * </ol>
 */
public final class PowerFlowPolicy implements EnergyPolicy {
    private final double eta;

    public PowerFlowPolicy(double eta) {
        if (!(eta > 0) || eta > 1.5) throw new IllegalArgumentException("eta must be in (0, 1.5], got " + eta);
        this.eta = eta;
    }

    @Override
    public String name() {
        return "powerflow";
    }

    @Override
    public boolean usesModels() {
        return true;
    }

    @Override
    public boolean migrates() {
        return true;
    }

    public double powerLimitWatts(ClusterView cluster) {
        return eta * cluster.totalGpus() * cluster.maxPower();
    }

    private static final class State {
        final JobView job;
        int gpus;
        int level;
        double priority;

        State(JobView job, int level) {
            this.job = job;
            this.level = level;
        }
    }

    @Override
    public Map<Long, Assignment> decide(ClusterView cluster, List<JobView> jobs) {
        double budget = powerLimitWatts(cluster);
        double[] limits = cluster.powerLimits();
        List<State> states = new ArrayList<>(jobs.size());
        for (JobView j : jobs) states.add(new State(j, mostEfficientLevel(cluster, j)));

        PriorityQueue<State> queueG = new PriorityQueue<>(PowerFlowPolicy::byPriority);
        for (State s : states) {
            s.priority = priorityG(cluster, s);
            if (s.priority > 0) queueG.add(s);
        }
        int free = cluster.totalGpus();
        double power = 0;
        boolean anyRunning = false;
        while (!queueG.isEmpty() && free > 0) {
            State s = queueG.poll();
            int next = s.gpus == 0 ? 1 : 2 * s.gpus;
            int extra = next - s.gpus;
            if (extra > free || next > s.job.maxGpus()) continue;
            double delta =
                    power(cluster, s.job, next, limits[s.level]) - power(cluster, s.job, s.gpus, limits[s.level]);
            if (power + delta > budget && anyRunning) continue;
            s.gpus = next;
            free -= extra;
            power += delta;
            anyRunning = true;
            s.priority = priorityG(cluster, s);
            if (s.priority > 0) queueG.add(s);
        }

        PriorityQueue<State> queueF = new PriorityQueue<>(PowerFlowPolicy::byPriority);
        for (State s : states)
            if (s.gpus > 0 && s.level + 1 < limits.length) {
                s.priority = priorityF(cluster, s);
                queueF.add(s);
            }
        while (!queueF.isEmpty()) {
            State s = queueF.poll();
            double delta =
                    power(cluster, s.job, s.gpus, limits[s.level + 1]) - power(cluster, s.job, s.gpus, limits[s.level]);
            if (power + delta > budget) continue;
            s.level++;
            power += delta;
            if (s.level + 1 < limits.length) {
                s.priority = priorityF(cluster, s);
                queueF.add(s);
            }
        }

        Map<Long, Assignment> out = new HashMap<>();
        for (State s : states)
            out.put(s.job.id(), s.gpus == 0 ? Assignment.WAITING : new Assignment(s.gpus, limits[s.level]));
        return out;
    }

    /** Waiting jobs first, then larger priority; job id breaks ties so that the order is deterministic. */
    private static int byPriority(State a, State b) {
        int c = Boolean.compare(b.gpus == 0, a.gpus == 0);
        if (c != 0) return c;
        c = Double.compare(b.priority, a.priority);
        return c != 0 ? c : Long.compare(a.job.id(), b.job.id());
    }

    static int mostEfficientLevel(ClusterView cluster, JobView j) {
        double[] limits = cluster.powerLimits();
        int best = limits.length - 1;
        double bestCost = Double.POSITIVE_INFINITY;
        for (int l = 0; l < limits.length; l++) {
            Configuration c = config(cluster, j, 1, limits[l]);
            double cost = j.model().stepTime(c) * j.model().energyPerIteration(c);
            if (cost < bestCost) {
                bestCost = cost;
                best = l;
            }
        }
        return best;
    }

    /** Eq. 20 for doubling n (or 0 -> 1); waiting jobs rank above every running one, least added energy first. */
    private double priorityG(ClusterView cluster, State s) {
        JobView j = s.job;
        double limit = cluster.powerLimits()[s.level];
        int next = s.gpus == 0 ? 1 : 2 * s.gpus;
        if (next > j.maxGpus() || next > cluster.totalGpus()) return 0;
        double rem = j.remainingIterations();
        if (s.gpus == 0) return 1 / (1 + rem * j.model().energyPerIteration(config(cluster, j, 1, limit)));
        double jctNow = rem * j.model().stepTime(config(cluster, j, s.gpus, limit));
        double jctNext = rem * j.model().stepTime(config(cluster, j, next, limit));
        double eNow = rem * j.model().energyPerIteration(config(cluster, j, s.gpus, limit));
        double eNext = rem * j.model().energyPerIteration(config(cluster, j, next, limit));
        return marginal(jctNow - jctNext, eNext - eNow);
    }

    /** Eq. 21 for one level up. */
    private double priorityF(ClusterView cluster, State s) {
        JobView j = s.job;
        double[] limits = cluster.powerLimits();
        Configuration now = config(cluster, j, s.gpus, limits[s.level]),
                up = config(cluster, j, s.gpus, limits[s.level + 1]);
        double rem = j.remainingIterations();
        return marginal(
                rem * (j.model().stepTime(now) - j.model().stepTime(up)),
                rem * (j.model().energyPerIteration(up) - j.model().energyPerIteration(now)));
    }

    /** JCT saved per joule added; a step that saves time for no extra energy ranks above any that costs energy. */
    static double marginal(double jctSaved, double energyAdded) {
        if (jctSaved <= 0) return 0;
        if (energyAdded <= 1e-9) return 1e9 + jctSaved;
        return jctSaved / energyAdded;
    }

    static double power(ClusterView cluster, JobView j, int gpus, double limit) {
        return gpus == 0 ? 0 : j.model().power(config(cluster, j, gpus, limit));
    }

    static Configuration config(ClusterView cluster, JobView j, int gpus, double limit) {
        return Configuration.of(gpus, cluster.gpusPerNode(), j.globalBatch(), cluster.freq(limit));
    }
}
