package org.gpusched.core.model;

import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * A job's predicted execution times laid out by the type indices of one node-type catalog: built and validated once
 * per job, then shared by every {@link SchedulingProblem} over a cluster with that same catalog (a controller builds
 * a problem per event, and reading the job's nested maps each time was a fifth of a baseline replay's time).
 */
public final class JobTimes {
    private final Job job;
    private final List<NodeType> catalog;
    /**
     * rows[t][g]: seconds on type t with g GPUs, NaN where the job has no time; the types it has none for share one
     * all-NaN row. Problems use this very array as the job's times, without a copy.
     */
    private final double[][] rows;

    private JobTimes(Job job, List<NodeType> catalog, double[][] rows) {
        this.job = job;
        this.catalog = catalog;
        this.rows = rows;
    }

    /** @throws InvalidInstanceException naming the job when its times name an unknown type or too many GPUs */
    public static JobTimes of(Job job, Cluster cluster) {
        double[][] rows = new double[cluster.typeCount()][];
        for (Map.Entry<String, Map<Integer, Double>> byType : job.times().entrySet()) {
            int t = cluster.typeIndexOrMinusOne(byType.getKey());
            if (t < 0) {
                throw new InvalidInstanceException("job " + job.id() + ": unknown node type '" + byType.getKey()
                        + "' in its times (cluster types: "
                        + cluster.typesByName().keySet() + ")");
            }
            NodeType type = cluster.type(t);
            double[] row = new double[cluster.maxGpus() + 1];
            Arrays.fill(row, Double.NaN);
            for (Map.Entry<Integer, Double> e : byType.getValue().entrySet()) {
                int g = e.getKey();
                if (g > type.gpus()) {
                    throw new InvalidInstanceException("job " + job.id() + ": times." + type.name() + "." + g
                            + " asks for more GPUs than the type has (" + type.gpus() + ")");
                }
                row[g] = e.getValue();
            }
            rows[t] = row;
        }
        double[] cannotRun = null;
        for (int t = 0; t < rows.length; t++) {
            if (rows[t] != null) continue;
            if (cannotRun == null) {
                cannotRun = new double[cluster.maxGpus() + 1];
                Arrays.fill(cannotRun, Double.NaN);
            }
            rows[t] = cannotRun;
        }
        return new JobTimes(job, cluster.types(), rows);
    }

    /**
     * The type availability ({@link Cluster#typeAvailability}) {@link #fastest}/{@link #slowest} were last computed
     * for, and their values: they depend on nothing else of a cluster, and a call's scope and its whole cluster share it.
     */
    private boolean[] extremesOf;

    private double fastest, slowest;

    public Job job() {
        return job;
    }

    /** Whether some node of the cluster, as some type it can run as, can run the job. */
    public boolean runsOn(Cluster cluster) {
        return fastest(cluster) < Double.POSITIVE_INFINITY;
    }

    /**
     * The job's shortest and longest full time over the types some node of the cluster can run as (+inf and 0 when
     * none), remembered for the last type availability asked about. Scaling them by the work left gives exactly the
     * extremes of the scaled times: multiplying by a positive factor keeps the order of doubles.
     */
    public double fastest(Cluster cluster) {
        extremes(cluster);
        return fastest;
    }

    public double slowest(Cluster cluster) {
        extremes(cluster);
        return slowest;
    }

    private void extremes(Cluster cluster) {
        if (extremesOf == cluster.typeAvailability()) return;
        double min = Double.POSITIVE_INFINITY, max = 0;
        for (int t = 0; t < rows.length; t++) {
            if (!cluster.typeAvailable(t)) continue;
            for (int g = 1; g < rows[t].length; g++) {
                double r = rows[t][g];
                if (Double.isNaN(r)) continue;
                min = Math.min(min, r);
                max = Math.max(max, r);
            }
        }
        fastest = min;
        slowest = max;
        extremesOf = cluster.typeAvailability();
    }

    /** The fewest GPUs the job has a time for on type t (0 when it has none there). */
    public int fewestGpus(int t) {
        double[] row = rows[t];
        for (int g = 1; g < row.length; g++) if (!Double.isNaN(row[g])) return g;
        return 0;
    }

    /** Whether this table is laid out for the cluster's catalog (the same list instance: clusters share it). */
    public boolean fits(Cluster cluster) {
        return catalog == cluster.types();
    }

    /** Full time on catalog type t with g GPUs, NaN when the job has none (as {@link Job#timeOn}). */
    public double seconds(int t, int g) {
        if (t < 0 || t >= rows.length || g < 0 || g >= rows[t].length) return Double.NaN;
        return rows[t][g];
    }

    /** Times by type and GPU count (NaN: no time), as {@link #rows} holds them; do not modify. */
    double[][] rows() {
        return rows;
    }
}
