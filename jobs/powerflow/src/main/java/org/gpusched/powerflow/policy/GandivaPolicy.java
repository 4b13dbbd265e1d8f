package org.gpusched.powerflow.policy;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * A Gandiva-style baseline (OSDI'18) as the PowerFlow paper uses it: non-elastic (each job always runs on its requested
 * GPU count) and not energy aware, jobs migrated to pack them onto as few nodes as possible (Gandiva's packing and
 * migration). Gandiva's grow-shrink is not modelled: the paper calls it non-elastic.
 *
 * <p>Without time-slicing ({@link TimeSlicing#NONE}, the reproduction's default) running jobs are never suspended:
 * first come, first served, later jobs start when they fit (smaller ones may pass a blocked larger one).
 *
 * <p>With {@link TimeSlicing} on (e.g. {@link TimeSlicing#GANDIVA}), Gandiva's time-slicing of an oversubscribed
 * cluster, round-robin: between quantum boundaries running jobs keep their GPUs and waiting jobs start when they fit,
 * longest-waiting first; at a quantum boundary while jobs wait, the running jobs that have run less than a quantum
 * since their last start or resume keep their GPUs, then the waiting jobs take GPUs, longest-waiting first (a suspended
 * job goes to the back of the queue), then the other running jobs, the most recently resumed first: the jobs that have
 * run longest since their last resume are the ones suspended.
 */
public final class GandivaPolicy implements EnergyPolicy {
    private final LimitChoice limits;
    private final TimeSlicing slicing;

    /** Without time-slicing ({@link TimeSlicing#NONE}). */
    public GandivaPolicy(LimitChoice limits) {
        this(limits, TimeSlicing.NONE);
    }

    public GandivaPolicy(LimitChoice limits, TimeSlicing slicing) {
        this.limits = limits;
        this.slicing = slicing;
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
    public TimeSlicing timeSlicing() {
        return slicing;
    }

    @Override
    public Map<Long, Assignment> decide(ClusterView cluster, List<JobView> jobs) {
        List<JobView> order = new ArrayList<>(jobs);
        // without time-slicing a job waits from its submission; with it, from its ready time or last suspension
        order.sort(Comparator.comparing((JobView j) -> !j.current().running())
                .thenComparingDouble(j -> slicing.on() ? j.sinceSeconds() : j.submitTime())
                .thenComparingDouble(JobView::submitTime)
                .thenComparingLong(JobView::id));
        return NonElastic.startInOrder(cluster, order, limits);
    }

    @Override
    public Map<Long, Assignment> decideAtQuantum(ClusterView cluster, List<JobView> jobs, double nowSeconds) {
        if (!slicing.on()) return decide(cluster, jobs);
        // 0: running for less than a quantum (kept), 1: waiting, 2: running for a quantum or more (suspended first)
        Comparator<JobView> byClass = Comparator.comparingInt(j -> {
            if (!j.current().running()) return 1;
            return nowSeconds - j.sinceSeconds() < slicing.quantumSeconds() - 1e-9 ? 0 : 2;
        });
        List<JobView> order = new ArrayList<>(jobs);
        order.sort(byClass.thenComparingDouble(j -> j.current().running() ? -j.sinceSeconds() : j.sinceSeconds())
                .thenComparingDouble(JobView::submitTime)
                .thenComparingLong(JobView::id));
        return NonElastic.startInOrder(cluster, order, limits);
    }
}
