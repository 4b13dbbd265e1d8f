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
    /** rows[t][g]: seconds on type t with g GPUs, NaN where the job has no time; null for a type it has none for. */
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
                throw new InvalidInstanceException("job " + job.id() + ": unknown node type '" + byType.getKey() + "' in its times (cluster types: " + cluster.typesByName().keySet() + ")");
            }
            NodeType type = cluster.type(t);
            double[] row = new double[cluster.maxGpus() + 1];
            Arrays.fill(row, Double.NaN);
            for (Map.Entry<Integer, Double> e : byType.getValue().entrySet()) {
                int g = e.getKey();
                if (g > type.gpus()) {
                    throw new InvalidInstanceException("job " + job.id() + ": times." + type.name() + "." + g + " asks for more GPUs than the type has (" + type.gpus() + ")");
                }
                row[g] = e.getValue();
            }
            rows[t] = row;
        }
        return new JobTimes(job, cluster.types(), rows);
    }

    public Job job() { return job; }

    /** Whether this table is laid out for the cluster's catalog (the same list instance: clusters share it). */
    public boolean fits(Cluster cluster) { return catalog == cluster.types(); }

    /** Times on type t by GPU count (NaN: no time), or null when the job has none on t; do not modify. */
    double[] row(int t) { return rows[t]; }
}
