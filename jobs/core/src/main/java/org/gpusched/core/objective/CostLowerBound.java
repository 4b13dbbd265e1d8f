package org.gpusched.core.objective;

import java.util.Map;
import org.gpusched.core.model.Cluster;
import org.gpusched.core.model.Job;
import org.gpusched.core.model.NodeType;

/**
 * A lower bound on what any schedule of a set of jobs costs on a cluster under the real cost rule ({@link RealCost}):
 * the sum over the jobs of the least each must pay, in node cost and in tardiness, whatever the others do.
 *
 * <p><b>Node cost.</b> A node of type t with b busy GPUs costs costPerHour_t[b] per hour, so each of its busy GPUs
 * costs at least min over b = 1..G_t of costPerHour_t[b] / b per hour ({@link NodeType#cheapestGpuHour}); a job run on g GPUs of type t for its time on
 * them occupies g busy GPUs that long (longer when it is moved and restores), so a configuration c = (t, g) costs it
 * at least
 * <pre>  C_c = time_j(t, g) / 3600 x g x min_b costPerHour_t[b] / b</pre>
 * For a VM leased whole at price p with G GPUs that is p x g / G x hours.
 *
 * <p><b>Tardiness.</b> A job may change configuration as it runs: doing a fraction f_c of its work in configuration
 * c takes f_c x T_c and costs at least f_c x C_c, so what it takes and pays is a point of the convex hull of its
 * points (T_c, C_c), and it ends no earlier than its submission plus that time. It pays at least
 * <pre>  min over (T, C) in hull of  C + weight x max(0, submit + T - due) / 3600</pre>
 * a convex function, least at a point (T_c, C_c) or on the hull's lower edge where T = due - submit, the latest it
 * can take and be on time. With no due date in reach that is the cheapest share of node cost, as before due dates
 * counted; a job whose cheapest configuration would end late pays a dearer, faster mix or the lateness.
 *
 * <p>The least of that over the node types some node of the cluster can take and the GPU counts the job has a time
 * for, summed over the jobs, is a cost no schedule goes below. It ignores capacity and that a node's price is paid
 * whole, so it is reached only when every job runs on its cheapest share with the nodes full.
 */
public final class CostLowerBound {
    private CostLowerBound() {}

    /**
     * The least the job pays on {@code cluster} (node cost and tardiness, see the class comment), with its times
     * scaled by {@code timeFactor} (a replay's actualFactor: the job really ran that much longer or shorter than
     * predicted); NaN when the job has a time on no node type the cluster can run.
     */
    public static double ofJob(Cluster cluster, Job job, double timeFactor) {
        int n = 0;
        for (Map<Integer, Double> byGpus : job.times().values()) n += byGpus.size();
        double[] time = new double[n];
        double[] share = new double[n];
        n = 0;
        for (Map.Entry<String, Map<Integer, Double>> byType : job.times().entrySet()) {
            int t = cluster.typeIndexOrMinusOne(byType.getKey());
            if (t < 0 || !cluster.typeAvailable(t)) continue;
            NodeType type = cluster.type(t);
            double perGpuHour = type.cheapestGpuHour();
            for (Map.Entry<Integer, Double> e : byType.getValue().entrySet()) {
                int g = e.getKey();
                if (g > type.gpus()) continue;
                time[n] = e.getValue() * timeFactor;
                share[n] = time[n] / 3600.0 * g * perGpuHour;
                n++;
            }
        }
        if (n == 0) return Double.NaN;
        double onTimeWithin = job.dueSeconds() - job.submitSeconds();
        double best = Double.POSITIVE_INFINITY;
        int cheapest = 0;
        for (int c = 0; c < n; c++) {
            best = Math.min(best, share[c] + lateness(job, time[c], onTimeWithin));
            if (share[c] < share[cheapest]) cheapest = c;
        }
        // the cheapest share on time is the least of C over the hull, so no mix pays less
        if (time[cheapest] <= onTimeWithin || job.weightPerHour() == 0) return best;
        // else the least may be a mix of a configuration on time and one late that ends exactly at the due date
        for (int early = 0; early < n; early++) {
            if (time[early] > onTimeWithin) continue;
            for (int late = 0; late < n; late++) {
                if (time[late] <= onTimeWithin) continue;
                double towardsLate = (onTimeWithin - time[early]) / (time[late] - time[early]);
                best = Math.min(best, share[early] + towardsLate * (share[late] - share[early]));
            }
        }
        return best;
    }

    private static double lateness(Job job, double seconds, double onTimeWithin) {
        return RealCost.tardinessCost(job.weightPerHour(), seconds, onTimeWithin);
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
