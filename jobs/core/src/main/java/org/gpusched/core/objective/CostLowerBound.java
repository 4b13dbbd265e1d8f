package org.gpusched.core.objective;

import java.util.Map;
import org.gpusched.core.model.Cluster;
import org.gpusched.core.model.Job;
import org.gpusched.core.model.NodeType;

/**
 * A lower bound on what any schedule of a set of jobs costs on a cluster under the real cost rule ({@link RealCost}):
 * the sum over the jobs of the cheapest share of node cost any of their configurations can pay. A node of type t
 * with b busy GPUs costs costPerHour_t[b] per hour, so each of its busy GPUs costs at least min over b = 1..G_t of
 * costPerHour_t[b] / b per hour; a job run on g GPUs of type t for its time on them occupies g busy GPUs that long
 * (longer when it is moved and restores), so it is charged at least
 * <pre>  time_j(t, g) / 3600 x g x min_b costPerHour_t[b] / b</pre>
 * and no schedule pays less than the least of that over the node types some node of the cluster can take and the
 * GPU counts the job has a time for. For a VM leased whole at price p with G GPUs that is p x g / G x hours.
 * Tardiness is bounded below by 0. The bound ignores due dates and capacity, so it is reached only when every job
 * runs on its cheapest share with the nodes full.
 */
public final class CostLowerBound {
    private CostLowerBound() {}

    /** The least a busy GPU of this type costs per hour: min over b = 1..G of costPerHour[b] / b. */
    public static double cheapestGpuHour(NodeType type) {
        double best = Double.POSITIVE_INFINITY;
        for (int b = 1; b <= type.gpus(); b++) best = Math.min(best, type.costPerHour(b) / b);
        return best;
    }

    /**
     * The job's cheapest share of node cost on {@code cluster}, with its times scaled by {@code timeFactor} (a
     * replay's actualFactor: the job really ran that much longer or shorter than predicted); NaN when the job has
     * a time on no node type the cluster can run.
     */
    public static double ofJob(Cluster cluster, Job job, double timeFactor) {
        double best = Double.POSITIVE_INFINITY;
        for (Map.Entry<String, Map<Integer, Double>> byType : job.times().entrySet()) {
            int t = cluster.typeIndexOrMinusOne(byType.getKey());
            if (t < 0 || !cluster.typeAvailable(t)) continue;
            NodeType type = cluster.type(t);
            double perGpuHour = cheapestGpuHour(type);
            for (Map.Entry<Integer, Double> e : byType.getValue().entrySet()) {
                int g = e.getKey();
                if (g > type.gpus()) continue;
                best = Math.min(best, e.getValue() * timeFactor / 3600.0 * g * perGpuHour);
            }
        }
        return Double.isInfinite(best) ? Double.NaN : best;
    }

    /** {@link #ofJob} at the predicted times. */
    public static double ofJob(Cluster cluster, Job job) {
        return ofJob(cluster, job, 1);
    }

    /** The sum of {@link #ofJob} over the jobs; NaN when some job can run nowhere on the cluster. */
    public static double of(Cluster cluster, Iterable<Job> jobs) {
        double sum = 0;
        for (Job j : jobs) sum += ofJob(cluster, j);
        return sum;
    }
}
