package org.gpusched.workloads;

import java.util.Iterator;
import java.util.Locale;
import org.gpusched.core.model.Job;
import org.gpusched.core.random.RandomState;
import org.gpusched.formats.ClusterSpec;
import org.gpusched.formats.FormatException;
import org.gpusched.formats.TraceJob;
import org.gpusched.workloads.HierarchicalScenario.VmCatalog;

/**
 * The hierarchical protocol ({@link HierarchicalScenario}: N rightsizable nodes, J = 10N jobs, its applications,
 * execution-time model and Poisson arrivals) on a chosen VM catalog, meant to be written as an instance folder of the
 * GPUScheduler C++ code ({@link GpuSchedulerInstanceWriter}). Due dates and weights follow {@link DueRule}: the
 * protocol's, or their generator's rule (script/py/generate_data_new.py): due = submission + U[min t, 3 min t] over the
 * job's configurations, weight = 2 x U[0.0015, 0.0075] per second late. Their rule draws from its own seeded stream,
 * so the jobs, times and arrivals are the protocol's under both rules.
 */
public final class GpuSchedulerScenario implements Scenario {
    /** Their generator's tardiness weight: 2 x U[0.0015, 0.0075] per second late. */
    static final double THEIR_WEIGHT_MIN = 0.0015, THEIR_WEIGHT_MAX = 0.0075;
    /** Their generator's due date: submission + U[min t, 3 min t]. */
    static final double THEIR_DUE_FACTOR = 3;

    private static final long THEIR_RULE_STREAM = 0x7E1D0E5L;

    public enum DueRule {
        HIERARCHICAL,
        THEIR;

        public static DueRule parse(String name) {
            if (name == null) return HIERARCHICAL;
            return switch (name.toLowerCase(Locale.ROOT)) {
                case "hierarchical" -> HIERARCHICAL;
                case "their" -> THEIR;
                default ->
                    throw new FormatException(
                            "--due-rule must be hierarchical or their, got '" + name + "'", "dueRule");
            };
        }
    }

    private final HierarchicalScenario protocol;
    private final VmCatalog vms;
    private final DueRule dueRule;

    public GpuSchedulerScenario(
            int nodes, Double meanGap, VmCatalog vms, DueRule dueRule, ApplicationCatalog applications) {
        this.protocol = new HierarchicalScenario(nodes, meanGap, vms, applications);
        this.vms = vms;
        this.dueRule = dueRule;
    }

    @Override
    public String name() {
        return "gpuscheduler";
    }

    @Override
    public ClusterSpec cluster() {
        return protocol.cluster();
    }

    @Override
    public int defaultJobs() {
        return protocol.defaultJobs();
    }

    @Override
    public Iterator<TraceJob> jobs(long count, long seed) {
        Iterator<TraceJob> jobs = protocol.jobs(count, seed);
        if (dueRule == DueRule.HIERARCHICAL) return jobs;
        RandomState rng = RandomState.derive(seed, THEIR_RULE_STREAM);
        return new Iterator<>() {
            @Override
            public boolean hasNext() {
                return jobs.hasNext();
            }

            @Override
            public TraceJob next() {
                return withTheirDueDate(jobs.next(), rng);
            }
        };
    }

    /** The job with their generator's due date and weight, drawn in that order from {@code rng}. */
    static TraceJob withTheirDueDate(TraceJob tj, RandomState rng) {
        Job j = tj.job();
        double min = Double.POSITIVE_INFINITY;
        for (var byGpus : j.times().values()) for (double s : byGpus.values()) min = Math.min(min, s);
        double due = JobTimes.round3(j.submitSeconds() + min + rng.nextDouble() * (THEIR_DUE_FACTOR - 1) * min);
        double perSecond = 2 * (THEIR_WEIGHT_MIN + rng.nextDouble() * (THEIR_WEIGHT_MAX - THEIR_WEIGHT_MIN));
        return new TraceJob(new Job(j.id(), j.submitSeconds(), due, perSecond * 3600, j.times()), tj.extras());
    }

    @Override
    public String describe() {
        return String.format(
                Locale.ROOT,
                "gpuscheduler: the hierarchical protocol on %d rightsizable nodes over %s; Poisson arrivals, mean gap"
                        + " %.0f s; %s; written as a GPUScheduler instance folder",
                protocol.cluster().cluster().nodeCount(),
                vms.label(),
                protocol.meanGapSeconds(),
                dueRule == DueRule.THEIR
                        ? "due U[min t, 3 min t], weight 2 x U[0.0015, 0.0075] per second (their generator's rule)"
                        : "due U[min t, 2 max t], weight U[0.36, 1.08] $/h (the protocol's)");
    }
}
