package org.gpusched.powerflow.policy;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import org.gpusched.powerflow.model.Configuration;

/**
 * PowerFlow's resource allocation (Algorithm 1 of the paper), under {@code power_limit = eta x G x P_max} with every
 * power estimated by the jobs' models.
 *
 * <ol>
 * <li>Every job starts with no GPU at its most energy-efficient limit: the one that maximizes eq. 17's
 * iter / (JCT x E), i.e. minimizes step time x energy per iteration on one GPU ({@link StartLimit#EFFICIENT}, the
 * paper's). {@link StartLimit#LEAST_ENERGY} (ours) starts each job at its least energy per iteration instead: while the
 * budget binds, the cluster's throughput is its iterations per joule, so more jobs run within it; the frequency raise
 * then spends what the budget leaves, as in the paper.</li>
 * <li>GPU allocation: a priority queue ordered by priority_G (eq. 20), the relative JCT reduction over the relative
 * energy increase of the job's next step. Workers are powers of two (network packing), so the step doubles n (0 -> 1
 * -> 2 -> 4 ...). The JCT and energy changes are the job's remaining ones (remaining iterations x step time, x energy
 * per iteration). What they are relative to is the {@link Normalizer}: the paper's text, "compared to the total JCT of
 * the whole cluster" and "the total energy consumption of the cluster", is {@link Normalizer#CLUSTER} (the default);
 * the job's own JCT and energy is {@link Normalizer#JOB}. A waiting job has no finite JCT: its first GPU is worth the
 * same JCT to every job, so waiting jobs come first, ordered by the energy they would add (least first).</li>
 * <li>The budget, {@link BudgetCheck}: by default as Algorithm 1 checks it ({@link BudgetCheck#NODE_BOUNDARY}):
 * GPUs are handed out while they are free, and each time the GPUs handed out fill a node (lines 18-20) the allocation
 * stops if the cluster's predicted power has reached the limit; so it may overshoot by up to a node's worth. Then
 * the frequency raise (lines 25-30) takes one step while the predicted power is within the limit: the step that
 * crosses it is the last. {@link BudgetCheck#STRICT} never exceeds the limit: a step that would is refused (the job
 * leaves the queue), and if nothing fits at all the head job still gets one GPU so that the cluster never idles. A
 * step also needs its GPUs free.</li>
 * <li>Frequency raise: a second queue ordered by priority_F (eq. 21, relative in the same way) raises one job's limit
 * one level at a time.</li>
 * </ol>
 *
 * <p>State: each job's model evaluations ({@link ModelTable}), kept between decisions while the job's model instance
 * is the same and dropped for jobs absent from a decision. They do not change decisions (models are pure); they make
 * a decision at 1,000 GPUs and 500 jobs cost table look-ups instead of model evaluations.
 */
public final class PowerFlowPolicy implements EnergyPolicy {
    /** What eq. 20 and 21's relative changes are relative to. */
    public enum Normalizer {
        /**
         * The cluster's total remaining JCT and energy at the jobs' current assignments, as the paper's text defines
         * them: one factor for every job in a decision, so it scales the priorities without reordering them.
         */
        CLUSTER,
        /** The job's own remaining JCT and energy at its current step: (dJCT / JCT_j) / (dE / E_j). */
        JOB
    }

    /** How the power budget {@code eta x G x P_max} bounds a decision. */
    public enum BudgetCheck {
        /**
         * Algorithm 1 (lines 18-20 and 25): GPU allocation stops at the first node boundary where the predicted power
         * has reached the budget; clocks are raised a step at a time while the predicted power is within it.
         */
        NODE_BOUNDARY,
        /** Every step (a GPU doubling or a clock raise) only if the predicted power stays within the budget. */
        STRICT;

        /** The command-line name: {@code node-boundary} or {@code strict}. */
        public String label() {
            return EnumLabels.of(this);
        }

        public static BudgetCheck parse(String label) {
            return EnumLabels.parse(BudgetCheck.class, label);
        }
    }

    /** The limit a job starts at before the frequency raise (Algorithm 1, line 3). */
    public enum StartLimit {
        /** The paper's: the most energy-efficient limit by eq. 17, the least step time x energy per iteration. */
        EFFICIENT,
        /** The least energy per iteration: the most iterations per joule, the most work a power budget carries. */
        LEAST_ENERGY;

        /** The command-line name: {@code efficient} or {@code least-energy}. */
        public String label() {
            return EnumLabels.of(this);
        }

        public static StartLimit parse(String label) {
            return EnumLabels.parse(StartLimit.class, label);
        }
    }

    private final double eta;
    private final Normalizer normalizer;
    private final BudgetCheck budgetCheck;
    private final StartLimit startLimit;
    private final boolean memoize;
    private Map<Long, ModelTable> tables = new HashMap<>();

    public PowerFlowPolicy(double eta) {
        this(eta, Normalizer.CLUSTER);
    }

    public PowerFlowPolicy(double eta, Normalizer normalizer) {
        this(eta, normalizer, BudgetCheck.NODE_BOUNDARY);
    }

    public PowerFlowPolicy(double eta, Normalizer normalizer, BudgetCheck budgetCheck) {
        this(eta, normalizer, budgetCheck, StartLimit.EFFICIENT);
    }

    public PowerFlowPolicy(double eta, Normalizer normalizer, BudgetCheck budgetCheck, StartLimit startLimit) {
        this(eta, normalizer, budgetCheck, startLimit, true);
    }

    /** {@code memoize = false}: every model value evaluated afresh (the reference the cached path is tested against). */
    PowerFlowPolicy(double eta, Normalizer normalizer, BudgetCheck budgetCheck, boolean memoize) {
        this(eta, normalizer, budgetCheck, StartLimit.EFFICIENT, memoize);
    }

    private PowerFlowPolicy(
            double eta, Normalizer normalizer, BudgetCheck budgetCheck, StartLimit startLimit, boolean memoize) {
        if (!(eta > 0) || eta > 1.5) throw new IllegalArgumentException("eta must be in (0, 1.5], got " + eta);
        this.eta = eta;
        this.normalizer = normalizer;
        this.budgetCheck = budgetCheck;
        this.startLimit = java.util.Objects.requireNonNull(startLimit, "startLimit");
        this.memoize = memoize;
    }

    @Override
    public String name() {
        return "powerflow";
    }

    public Normalizer normalizer() {
        return normalizer;
    }

    public BudgetCheck budgetCheck() {
        return budgetCheck;
    }

    public StartLimit startLimit() {
        return startLimit;
    }

    @Override
    public boolean usesModels() {
        return true;
    }

    @Override
    public boolean migrates() {
        return true;
    }

    @Override
    public Profiling profiling() {
        return Profiling.POWERFLOW;
    }

    public double powerLimitWatts(ClusterView cluster) {
        return eta * cluster.totalGpus() * cluster.maxPower();
    }

    private static final class State {
        final JobView job;
        final ModelTable model;
        int gpus;
        int level;
        double priority;

        State(JobView job, ModelTable model, StartLimit start) {
            this.job = job;
            this.model = model;
            this.level = start == StartLimit.LEAST_ENERGY ? model.leastEnergyLevel() : model.mostEfficientLevel();
        }
    }

    @Override
    public Map<Long, Assignment> decide(ClusterView cluster, List<JobView> jobs) {
        double budget = powerLimitWatts(cluster);
        int levels = cluster.powerLimits().length;
        List<State> states = new ArrayList<>(jobs.size());
        Map<Long, ModelTable> kept = new HashMap<>(jobs.size() * 2);
        for (JobView j : jobs) {
            ModelTable t = tables.get(j.id());
            if (t == null || !memoize || !t.fits(j, cluster)) t = new ModelTable(j, cluster, memoize);
            kept.put(j.id(), t);
            states.add(new State(j, t, startLimit));
        }
        tables = kept;
        double scale = normalizer == Normalizer.CLUSTER ? clusterScale(cluster, states) : 1;

        boolean strict = budgetCheck == BudgetCheck.STRICT;
        int free = cluster.totalGpus(), perNode = cluster.gpusPerNode();
        double power = 0;
        boolean anyRunning = false;
        // a job profiling its GPU count keeps its GPUs and its slice's limit: they count, it takes no step
        for (State s : states)
            if (s.job.profiling() && s.job.current().running()) {
                int level = levelOf(cluster, s.job.current().powerLimit());
                if (level < 0)
                    throw new IllegalArgumentException("job " + s.job.id() + " profiles at an unsupported limit "
                            + s.job.current().powerLimit());
                s.gpus = s.job.current().gpus();
                s.level = level;
                free -= s.gpus;
                power += s.model.power(s.gpus, s.level);
                anyRunning = true;
            }
        if (free < 0) throw new IllegalArgumentException("profiling jobs hold more GPUs than the cluster has");
        PriorityQueue<State> queueG = new PriorityQueue<>(PowerFlowPolicy::byPriority);
        for (State s : states) {
            if (s.job.profiling()) continue;
            s.priority = priorityG(cluster, s, scale);
            if (s.priority > 0) queueG.add(s);
        }
        while (!queueG.isEmpty() && free > 0) {
            State s = queueG.poll();
            int next = s.gpus == 0 ? 1 : 2 * s.gpus;
            int extra = next - s.gpus;
            if (extra > free || next > s.job.maxGpus()) continue;
            double delta = s.model.power(next, s.level) - s.model.power(s.gpus, s.level);
            if (strict && power + delta > budget && anyRunning) continue;
            int allocatedBefore = cluster.totalGpus() - free;
            s.gpus = next;
            free -= extra;
            power += delta;
            anyRunning = true;
            s.priority = priorityG(cluster, s, scale);
            if (s.priority > 0) queueG.add(s);
            // Algorithm 1, lines 18-20: at each node boundary the GPUs handed out reach, stop once the budget is met
            int allocated = cluster.totalGpus() - free;
            if (!strict && allocated / perNode > allocatedBefore / perNode && power >= budget) break;
        }

        PriorityQueue<State> queueF = new PriorityQueue<>(PowerFlowPolicy::byPriority);
        for (State s : states)
            if (s.gpus > 0 && s.level + 1 < levels && !s.job.profiling()) {
                s.priority = priorityF(s, scale);
                queueF.add(s);
            }
        // Algorithm 1, line 25: raise while the total is within the budget (the raise that crosses it is the last)
        while (!queueF.isEmpty() && (strict || power <= budget)) {
            State s = queueF.poll();
            double delta = s.model.power(s.gpus, s.level + 1) - s.model.power(s.gpus, s.level);
            if (strict && power + delta > budget) continue;
            s.level++;
            power += delta;
            if (s.level + 1 < levels) {
                s.priority = priorityF(s, scale);
                queueF.add(s);
            }
        }

        double[] limits = cluster.powerLimits();
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
        return new ModelTable(j, cluster, false).mostEfficientLevel();
    }

    static int leastEnergyLevel(ClusterView cluster, JobView j) {
        return new ModelTable(j, cluster, false).leastEnergyLevel();
    }

    /**
     * E / JCT of the cluster: the remaining energy over the remaining JCT, summed over the jobs that run, at their
     * current assignments (1 when none runs). Eq. 20's {@code (dJCT / JCT) / (dE / E)} is {@code dJCT / dE x E / JCT}.
     */
    static double clusterScale(ClusterView cluster, List<State> states) {
        double jct = 0, energy = 0;
        for (State s : states) {
            Assignment a = s.job.current();
            if (a == null || !a.running()) continue;
            double rem = s.job.remainingIterations();
            int level = Integer.bitCount(a.gpus()) == 1 ? levelOf(cluster, a.powerLimit()) : -1;
            if (level >= 0) {
                jct += rem * s.model.stepTime(a.gpus(), level);
                energy += rem * s.model.energy(a.gpus(), level);
            } else {
                Configuration c = config(cluster, s.job, a.gpus(), a.powerLimit());
                jct += rem * s.job.model().stepTime(c);
                energy += rem * s.job.model().energyPerIteration(c);
            }
        }
        return jct > 0 && energy > 0 ? energy / jct : 1;
    }

    /** priority_G of job {@code id}'s step from {@code gpus} GPUs at its most efficient level, within a decision over {@code jobs}. */
    double priorityG(ClusterView cluster, List<JobView> jobs, long id, int gpus) {
        List<State> states = new ArrayList<>();
        for (JobView j : jobs) states.add(new State(j, new ModelTable(j, cluster, false), startLimit));
        double scale = normalizer == Normalizer.CLUSTER ? clusterScale(cluster, states) : 1;
        State s = states.stream().filter(x -> x.job.id() == id).findFirst().orElseThrow();
        s.gpus = gpus;
        return priorityG(cluster, s, scale);
    }

    private static int levelOf(ClusterView cluster, double limit) {
        double[] limits = cluster.powerLimits();
        for (int l = 0; l < limits.length; l++) if (limits[l] == limit) return l;
        return -1;
    }

    /** Eq. 20 for doubling n (or 0 -> 1); waiting jobs rank above every running one, least added energy first. */
    private double priorityG(ClusterView cluster, State s, double scale) {
        JobView j = s.job;
        int next = s.gpus == 0 ? 1 : 2 * s.gpus;
        if (next > j.maxGpus() || next > cluster.totalGpus()) return 0;
        double rem = j.remainingIterations();
        if (s.gpus == 0) return 1 / (1 + rem * s.model.energy(1, s.level));
        double jctNow = rem * s.model.stepTime(s.gpus, s.level);
        double jctNext = rem * s.model.stepTime(next, s.level);
        double eNow = rem * s.model.energy(s.gpus, s.level);
        double eNext = rem * s.model.energy(next, s.level);
        return relative(jctNow, jctNext, eNow, eNext, scale);
    }

    /** Eq. 21 for one level up. */
    private double priorityF(State s, double scale) {
        double rem = s.job.remainingIterations();
        return relative(
                rem * s.model.stepTime(s.gpus, s.level),
                rem * s.model.stepTime(s.gpus, s.level + 1),
                rem * s.model.energy(s.gpus, s.level),
                rem * s.model.energy(s.gpus, s.level + 1),
                scale);
    }

    private double relative(double jctNow, double jctNext, double eNow, double eNext, double scale) {
        if (normalizer == Normalizer.JOB) return marginal((jctNow - jctNext) / jctNow, (eNext - eNow) / eNow);
        return scale * marginal(jctNow - jctNext, eNext - eNow);
    }

    /** Saved over added; a step that saves time for no extra energy ranks above any that costs energy. */
    static double marginal(double jctSaved, double energyAdded) {
        if (jctSaved <= 0) return 0;
        if (energyAdded <= 1e-9) return 1e9 + jctSaved;
        return jctSaved / energyAdded;
    }

    static Configuration config(ClusterView cluster, JobView j, int gpus, double limit) {
        return Configuration.of(gpus, cluster.gpusPerNode(), j.globalBatch(), cluster.freq(limit));
    }
}
