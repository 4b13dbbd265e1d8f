package org.gpusched.core.model;

import java.util.List;
import org.gpusched.core.objective.ObjectiveParameters;

/**
 * The state of a cluster at one rescheduling point, validated and pre-computed for the optimizers.
 * Job indices follow {@link #jobs()}; node and type indices follow the {@link Cluster}.
 */
public final class SchedulingProblem {
    private final double now;
    private final Cluster cluster;
    private final List<JobState> jobs;
    private final int[] currentNodeType;
    private final ObjectiveParameters parameters;
    /** times[j][t][g]: job j's full time on type t with g GPUs (NaN: cannot run there); its {@link JobTimes}' array, not a copy. */
    private final double[][][] times;
    /** left[j] = 1 - done: the remaining time on a configuration is its full time x left[j]. */
    private final double[] left;
    /**
     * Whether some job, waiting or running, would end past its due date even on its fastest configuration started
     * at the horizon: then the cluster is short of time, and a move's whole delay is charged at rho's scale; otherwise
     * only the lateness a move adds is (moves that consolidate jobs on time stay as cheap as the real cost says).
     */
    private final boolean deadlinePressure;
    /** restartLeft[j] = 1 - doneIfRestarted and restart[j] its restart seconds: job j's figures off its current placement. */
    private final double[] restartLeft;

    private final double[] restart;
    /** postponed[j]: M_j if job j is left waiting, with what stopping it costs when it runs now. */
    private final double[] postponed;

    private final double[] fastest;
    private final double[] slowest;
    /**
     * Job j's placement now as node, type and GPUs (node -1: waiting), its due date and weight per hour: the fields
     * the move pricing reads for every configuration an optimizer tries, kept flat so that it does not go through
     * the job list and its records each time.
     */
    private final int[] currentNode, currentType, currentGpus;

    private final double[] due, weightPerHour;
    /** Per job, {@link #cheapestShare}, computed on first use (most policies never ask). */
    private volatile double[] cheapestShare;

    /**
     * @param currentNodeType per node, the type it runs as now (-1 when off); may be null when every node is off
     *                        or fixed. A rightsizable node that hosts running jobs must give their type.
     */
    public SchedulingProblem(
            double now, Cluster cluster, List<JobState> jobs, int[] currentNodeType, ObjectiveParameters parameters) {
        this(now, cluster, jobs, null, currentNodeType, parameters);
    }

    /**
     * @param jobTimes per job, its times laid out for this cluster's catalog (see {@link JobTimes}), or null (also
     *                 per entry) to build them here; a table for another catalog is ignored
     */
    public SchedulingProblem(
            double now,
            Cluster cluster,
            List<JobState> jobs,
            List<JobTimes> jobTimes,
            int[] currentNodeType,
            ObjectiveParameters parameters) {
        this(now, cluster, jobs, jobTimes, currentNodeType, parameters, true, true);
    }

    /**
     * As {@link #SchedulingProblem(double, Cluster, List, List, int[], ObjectiveParameters)}, for a caller whose jobs
     * have distinct ids by construction (it holds them in a map by id), so they are not checked again: a controller
     * builds a problem at every event, and the check was a twentieth of its work. {@code currentNodeType} is read in
     * place, not copied: the caller leaves it unchanged while the problem is in use (a copy as large as the cluster
     * at every event was a quarter of a queue baseline's allocation on a 2,000-node cluster).
     */
    public static SchedulingProblem ofDistinctJobsSharingNodeTypes(
            double now,
            Cluster cluster,
            List<JobState> jobs,
            List<JobTimes> jobTimes,
            int[] currentNodeType,
            ObjectiveParameters parameters) {
        return new SchedulingProblem(now, cluster, jobs, jobTimes, currentNodeType, parameters, false, false);
    }

    private SchedulingProblem(
            double now,
            Cluster cluster,
            List<JobState> jobs,
            List<JobTimes> jobTimes,
            int[] currentNodeType,
            ObjectiveParameters parameters,
            boolean checkIds,
            boolean copyNodeTypes) {
        if (!Double.isFinite(now)) throw new InvalidInstanceException("scheduling time must be finite, got " + now);
        this.now = now;
        this.cluster = cluster;
        this.jobs = List.copyOf(jobs);
        this.parameters = parameters == null ? ObjectiveParameters.DEFAULTS : parameters;
        if (currentNodeType != null && currentNodeType.length != cluster.nodeCount()) {
            throw new IllegalArgumentException(
                    "current node types: " + currentNodeType.length + " for " + cluster.nodeCount() + " nodes");
        }
        this.currentNodeType = currentNodeType == null
                ? new int[cluster.nodeCount()]
                : copyNodeTypes ? currentNodeType.clone() : currentNodeType;
        if (currentNodeType == null) java.util.Arrays.fill(this.currentNodeType, -1);

        if (jobTimes != null && jobTimes.size() != this.jobs.size())
            throw new IllegalArgumentException(
                    "job times: " + jobTimes.size() + " tables for " + this.jobs.size() + " jobs");
        times = new double[this.jobs.size()][][];
        left = new double[this.jobs.size()];
        restartLeft = new double[this.jobs.size()];
        restart = new double[this.jobs.size()];
        postponed = new double[this.jobs.size()];
        fastest = new double[this.jobs.size()];
        slowest = new double[this.jobs.size()];
        currentNode = new int[this.jobs.size()];
        currentType = new int[this.jobs.size()];
        currentGpus = new int[this.jobs.size()];
        due = new double[this.jobs.size()];
        weightPerHour = new double[this.jobs.size()];
        DistinctIds ids = checkIds ? new DistinctIds(this.jobs.size()) : null;
        boolean pressed = false;
        for (int j = 0; j < this.jobs.size(); j++) {
            JobState state = this.jobs.get(j);
            Job job = state.job();
            if (ids != null && !ids.add(job.id()))
                throw new InvalidInstanceException("job " + job.id() + ": appears twice in the queue");
            double jobLeft = 1 - state.doneFraction();
            left[j] = jobLeft;
            restartLeft[j] = 1 - state.doneIfRestarted();
            restart[j] = state.restartSeconds();
            JobTimes table = jobTimes == null ? null : jobTimes.get(j);
            if (table == null || table.job() != job || !table.fits(cluster)) table = JobTimes.of(job, cluster);
            times[j] = table.rows();
            double min = table.fastest(cluster) * jobLeft;
            double max = table.slowest(cluster) * jobLeft;
            if (min == Double.POSITIVE_INFINITY) {
                throw new InvalidInstanceException(
                        "job " + job.id() + ": no feasible configuration on this cluster (it runs on "
                                + job.times().keySet() + ")");
            }
            fastest[j] = min;
            slowest[j] = max;
            postponed[j] = state.current() == null ? max : table.slowest(cluster) * restartLeft[j] + restart[j];
            if (this.parameters.chargeMoves() && now + this.parameters.horizonSeconds() + min > job.dueSeconds())
                pressed = true;
            due[j] = job.dueSeconds();
            weightPerHour[j] = job.weightPerHour();
            Placement p = state.current();
            currentNode[j] = p == null ? -1 : p.node();
            currentType[j] = p == null ? -1 : p.type();
            currentGpus[j] = p == null ? -1 : p.gpus();
            if (p != null) {
                if (p.node() >= cluster.nodeCount())
                    throw new InvalidInstanceException("job " + job.id() + ": runs on unknown node index " + p.node());
                if (p.type() >= cluster.typeCount())
                    throw new InvalidInstanceException(
                            "job " + job.id() + ": runs as unknown node type index " + p.type());
                if (!cluster.canTake(p.node(), p.type())) {
                    throw new InvalidInstanceException("job " + job.id() + ": runs on node "
                            + cluster.node(p.node()).id() + " as type "
                            + cluster.type(p.type()).name() + ", which that node cannot be");
                }
                if (p.gpus() >= times[j][p.type()].length)
                    throw new InvalidInstanceException(
                            "job " + job.id() + ": runs on " + p.gpus() + " GPUs, more than any node type has");
                if (Double.isNaN(times[j][p.type()][p.gpus()])) {
                    throw new InvalidInstanceException("job " + job.id() + ": runs on "
                            + cluster.type(p.type()).name() + " with " + p.gpus()
                            + " GPUs, a configuration it has no time for");
                }
            }
        }
        deadlinePressure = pressed;
    }

    /**
     * The ids seen so far, in an open-addressing table of the strings themselves, lighter than a HashSet's entry per
     * job for a problem built at every event.
     */
    private static final class DistinctIds {
        private final String[] table;
        private final int mask;

        DistinctIds(int capacity) {
            table = new String[Integer.highestOneBit(Math.max(8, capacity) * 2) * 2];
            mask = table.length - 1;
        }

        /** False when {@code id} was added before. */
        boolean add(String id) {
            int h = id.hashCode();
            for (int i = (h ^ h >>> 16) & mask; ; i = (i + 1) & mask) {
                if (table[i] == null) {
                    table[i] = id;
                    return true;
                }
                if (table[i].equals(id)) return false;
            }
        }
    }

    public double now() {
        return now;
    }

    public Cluster cluster() {
        return cluster;
    }

    public List<JobState> jobs() {
        return jobs;
    }

    public int jobCount() {
        return jobs.size();
    }

    public JobState job(int j) {
        return jobs.get(j);
    }

    public ObjectiveParameters parameters() {
        return parameters;
    }
    /** The type node n runs as now, or -1 when it is off. */
    public int currentNodeType(int n) {
        return currentNodeType[n];
    }

    /** Seconds job j still needs on type t with g GPUs, or NaN when it cannot run there. */
    public double remaining(int j, int t, int g) {
        double[] row = times[j][t];
        return g < row.length ? row[g] * left[j] : Double.NaN;
    }
    /**
     * Seconds job j still needs at placement p: {@link #remaining} where it runs now, else with what moving (or
     * restarting) it costs ({@link JobState}). f_OBJ prices placements with this.
     */
    public double remainingAt(int j, Placement p) {
        double[] row = times[j][p.type()];
        if (p.gpus() >= row.length) return Double.NaN;
        if (runsAt(j, p.node(), p.type(), p.gpus())) return row[p.gpus()] * left[j];
        return row[p.gpus()] * restartLeft[j] + restart[j];
    }

    /**
     * Seconds job j needs on node n as type t with g GPUs, NaN when it cannot run there: {@link #remaining} where a
     * running job runs now, else with what moving it costs. Unlike {@link #remainingAt(int, Placement)}, a waiting job
     * is priced at {@link #remaining} (the greedy engine's own reading, without a preempted job's restore).
     */
    public double remainingAt(int j, int n, int t, int g) {
        double[] row = times[j][t];
        if (g >= row.length) return Double.NaN;
        if (currentNode[j] < 0 || runsAt(j, n, t, g)) return row[g] * left[j];
        return row[g] * restartLeft[j] + restart[j];
    }

    /** Whether job j runs now on node n as type t with g GPUs. */
    private boolean runsAt(int j, int n, int t, int g) {
        return currentNode[j] == n && currentType[j] == t && currentGpus[j] == g;
    }

    /** Whether f_OBJ charges moves of running jobs ({@link ObjectiveParameters#chargeMoves}). */
    public boolean chargesMoves() {
        return parameters.chargeMoves();
    }

    /**
     * What f_OBJ charges, when moves are charged, for placing running job j on node n as type t with g GPUs instead of
     * where it runs: rho x weight x the hours by which the move puts its end off (the work it loses, its progress
     * since the last snapshot and the restore ({@link JobState}), plus any slowdown of the new configuration) while
     * some job of the problem is short of time ({@link #deadlinePressure}), otherwise rho x weight x the hours of
     * lateness past its due date the move adds; 0 where it runs, for a move that ends it sooner (its own tardiness
     * term prices that, loss included), for a waiting job, or when moves are not charged. The papers price a waiting job's postponement at rho times its
     * weight but a running job's displacement at its weight only, so a plan that moves a running job aside to start a
     * waiting one always won, however much the move cost; at the same scale, such a start is made only when it gains
     * more than the displaced job loses.
     */
    public double moveCharge(int j, int n, int t, int g) {
        if (!parameters.chargeMoves() || currentNode[j] < 0 || runsAt(j, n, t, g)) return 0;
        return moveCharge(j, n, t, g, remainingAt(j, n, t, g));
    }

    /**
     * {@link #moveCharge(int, int, int, int)} where the caller knows {@code movedRemaining}, the job's {@link
     * #remainingAt(int, int, int, int)} there (so the optimizers' inner loops look it up once).
     */
    public double moveCharge(int j, int n, int t, int g, double movedRemaining) {
        if (!parameters.chargeMoves() || currentNode[j] < 0 || runsAt(j, n, t, g)) return 0;
        if (Double.isNaN(movedRemaining)) return 0;
        double stay = now + remaining(j, currentType[j], currentGpus[j]);
        double moved = now + movedRemaining;
        if (deadlinePressure) return chargeFor(j, moved - stay);
        return chargeFor(j, Math.max(0, moved - due[j]) - Math.max(0, stay - due[j]));
    }

    /**
     * {@link #moveCharge(int, int, int, int)} for placement p; p null: preempting a running job, charged the work it
     * loses while some job is short of time (its wait is the postponement term's), else nothing.
     */
    public double moveCharge(int j, Placement p) {
        if (p != null) return moveCharge(j, p.node(), p.type(), p.gpus());
        if (!parameters.chargeMoves() || !deadlinePressure || currentNode[j] < 0) return 0;
        return chargeFor(j, postponed[j] - slowest[j]);
    }

    private double chargeFor(int j, double lostSeconds) {
        return lostSeconds > 0 ? parameters.rho() * weightPerHour[j] * lostSeconds / 3600.0 : 0;
    }

    /**
     * The least any schedule can pay for job j's remaining work: min over the configurations it has a time for, on a
     * type some node can run as, of remaining hours x GPUs x that type's {@link NodeType#cheapestGpuHour} (no
     * schedule pays a busy node less than its busy GPUs' cheapest share).
     */
    public double cheapestShare(int j) {
        double[] shares = cheapestShare;
        if (shares == null) {
            shares = new double[jobs.size()];
            for (int k = 0; k < shares.length; k++) {
                double least = Double.POSITIVE_INFINITY;
                for (int t = 0; t < cluster.typeCount(); t++) {
                    if (!cluster.typeAvailable(t)) continue;
                    NodeType type = cluster.type(t);
                    double gpuHour = type.cheapestGpuHour();
                    double[] row = times[k][t];
                    // a job has no time above its type's GPUs (JobTimes): those entries of the row are all NaN
                    for (int g = 1, last = Math.min(row.length - 1, type.gpus()); g <= last; g++) {
                        if (!Double.isNaN(row[g])) least = Math.min(least, row[g] * left[k] / 3600.0 * g * gpuHour);
                    }
                }
                shares[k] = least;
            }
            cheapestShare = shares; // the same values whichever thread computes them first
        }
        return shares[j];
    }

    /**
     * Whether some job would end past its due date even on its fastest configuration started at the horizon; computed
     * when moves are charged only (false otherwise).
     */
    public boolean deadlinePressure() {
        return deadlinePressure;
    }

    /** Remaining time on the fastest configuration present in the cluster. */
    public double fastestRemaining(int j) {
        return fastest[j];
    }
    /** M_j: remaining time on the slowest configuration present in the cluster. */
    public double slowestRemaining(int j) {
        return slowest[j];
    }

    /**
     * M_j as f_OBJ prices job j postponed: {@link #slowestRemaining} for a waiting job; for a running one, preempting
     * it loses its progress since the last snapshot and adds the restore ({@link JobState}).
     */
    public double postponedRemaining(int j) {
        return postponed[j];
    }
    /** Whether some node of the cluster can run as type t. */
    public boolean typeAvailable(int t) {
        return cluster.typeAvailable(t);
    }

    /** ANDREAS pressure: T_c + min t_jng - d_j; larger is more urgent. */
    public double pressure(int j) {
        return now + fastest[j] - due[j];
    }
}
