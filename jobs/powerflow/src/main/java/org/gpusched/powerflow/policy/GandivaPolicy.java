package org.gpusched.powerflow.policy;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * A Gandiva-style baseline (OSDI'18) as the PowerFlow paper uses it: non-elastic (the requested GPU count) and not
 * energy aware. This reading keeps what Gandiva's introspection does to a cluster's shape: running jobs are never
 * suspended (first come, first served, later jobs start when they fit, smaller ones may pass a blocked larger one),
 * and jobs are migrated to pack them onto as few nodes as possible. Gandiva's time-slicing of oversubscribed GPUs and
 * its grow-shrink are not modelled: the paper calls it non-elastic.
 */
public final class GandivaPolicy implements EnergyPolicy {
    private final LimitChoice limits;

    public GandivaPolicy(LimitChoice limits) {
        this.limits = limits;
    }

    @Override
    public String name() {
        return limits.jobControlled() ? "gandiva+zeus" : "gandiva@" + limits.label();
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
        return true;
    }

    @Override
    public Map<Long, Assignment> decide(ClusterView cluster, List<JobView> jobs) {
        List<JobView> order = new ArrayList<>(jobs);
        order.sort(Comparator.comparing((JobView j) -> !j.current().running())
                .thenComparingDouble(JobView::submitTime)
                .thenComparingLong(JobView::id));
        return NonElastic.startInOrder(cluster, order, limits);
    }
}
