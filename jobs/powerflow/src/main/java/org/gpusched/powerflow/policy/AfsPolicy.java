package org.gpusched.powerflow.policy;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import org.gpusched.powerflow.model.Configuration;

/**
 * AFS (NSDI'21), elastic and not energy aware, at a fixed cluster-wide limit: first every job, shortest remaining
 * time first, gets one GPU while GPUs last (AFS' short-job preference); then the spare GPUs go, a doubling at a time
 * (power-of-two workers, as PowerFlow's placement), to the job whose doubling saves the most remaining time per added
 * GPU (AFS' marginal-throughput rule, weighted by job length), while a doubling saves time.
 */
public final class AfsPolicy implements EnergyPolicy {
    private final LimitChoice limits;

    public AfsPolicy(LimitChoice limits) {
        this.limits = limits;
    }

    @Override
    public String name() {
        return "afs@" + limits.label();
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
    public Map<Long, Assignment> decide(ClusterView cluster, List<JobView> jobs) {
        Map<Long, Integer> gpus = new HashMap<>();
        Map<Long, Double> limit = new HashMap<>();
        List<JobView> order = new ArrayList<>(jobs);
        for (JobView j : jobs) limit.put(j.id(), limits.limit(cluster, j, 1));
        order.sort(Comparator.comparingDouble((JobView j) -> remainingTime(cluster, j, 1, limit.get(j.id())))
                .thenComparingLong(JobView::id));
        int free = cluster.totalGpus();
        for (JobView j : order) {
            if (free == 0) break;
            gpus.put(j.id(), 1);
            free--;
        }
        record Step(JobView job, double gain) {}
        PriorityQueue<Step> queue = new PriorityQueue<>(
                Comparator.comparingDouble((Step s) -> -s.gain).thenComparingLong(s -> s.job.id()));
        for (JobView j : order) if (gpus.containsKey(j.id())) offer(cluster, j, 1, limit.get(j.id()), queue, Step::new);
        while (!queue.isEmpty() && free > 0) {
            Step s = queue.poll();
            int n = gpus.get(s.job.id());
            if (n > free) continue;
            gpus.put(s.job.id(), 2 * n);
            free -= n;
            offer(cluster, s.job, 2 * n, limit.get(s.job.id()), queue, Step::new);
        }
        Map<Long, Assignment> out = new HashMap<>();
        for (JobView j : jobs) {
            Integer n = gpus.get(j.id());
            out.put(j.id(), n == null ? Assignment.WAITING : new Assignment(n, limit.get(j.id())));
        }
        return out;
    }

    private static <S> void offer(
            ClusterView cluster,
            JobView j,
            int n,
            double limit,
            PriorityQueue<S> queue,
            java.util.function.BiFunction<JobView, Double, S> step) {
        if (2 * n > j.maxGpus() || 2 * n > cluster.totalGpus()) return;
        double saved = remainingTime(cluster, j, n, limit) - remainingTime(cluster, j, 2 * n, limit);
        if (saved > 0) queue.add(step.apply(j, saved / n));
    }

    static double remainingTime(ClusterView cluster, JobView j, int n, double limit) {
        return j.remainingIterations()
                * j.model().stepTime(Configuration.of(n, cluster.gpusPerNode(), j.globalBatch(), cluster.freq(limit)));
    }
}
