package org.gpusched.powerflow.policy;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * Tiresias' discretized two-dimensional LAS (NSDI'19), non-elastic: a job's service is its attained GPU-seconds
 * (GPUs x time); jobs fall into queues at 1 and 10 GPU-hours, lower queues first and first-come first-served within a
 * queue. Preemptive: at each event jobs start in that order on their requested GPU count while GPUs are free, and a job
 * that does not fit is skipped (later, smaller ones may start). Jobs keep the nodes they started on (no migration).
 */
public final class TiresiasPolicy implements EnergyPolicy {
    static final double[] QUEUE_THRESHOLDS_GPU_SECONDS = {3600, 36000};

    private final LimitChoice limits;

    public TiresiasPolicy(LimitChoice limits) {
        this.limits = limits;
    }

    @Override
    public String name() {
        return limits.jobControlled() ? "tiresias+zeus" : "tiresias@" + limits.label();
    }

    @Override
    public boolean usesModels() {
        return false;
    }

    @Override
    public Profiling profiling() {
        return limits.jobControlled() ? Profiling.ZEUS : Profiling.NONE;
    }

    @Override
    public boolean migrates() {
        return false;
    }

    static int queue(JobView j) {
        int q = 0;
        while (q < QUEUE_THRESHOLDS_GPU_SECONDS.length && j.attainedGpuSeconds() >= QUEUE_THRESHOLDS_GPU_SECONDS[q])
            q++;
        return q;
    }

    @Override
    public Map<Long, Assignment> decide(ClusterView cluster, List<JobView> jobs) {
        List<JobView> order = new ArrayList<>(jobs);
        order.sort(Comparator.comparingInt(TiresiasPolicy::queue)
                .thenComparingDouble(JobView::submitTime)
                .thenComparingLong(JobView::id));
        return NonElastic.startInOrder(cluster, order, limits);
    }
}
