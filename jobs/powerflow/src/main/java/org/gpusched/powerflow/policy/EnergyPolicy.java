package org.gpusched.powerflow.policy;

import java.util.List;
import java.util.Map;

/**
 * A scheduling policy of the PowerFlow experiments: at each event, every active job's GPU count and power limit.
 * Implementations are deterministic functions of their inputs.
 */
public interface EnergyPolicy {
    String name();

    /**
     * Whether the policy reads the jobs' models: fitted from telemetry under {@link Profiling#POWERFLOW}, the ground
     * truth's otherwise.
     */
    boolean usesModels();

    /** How the policy's jobs are profiled (and charged for it). */
    default Profiling profiling() {
        return Profiling.NONE;
    }

    /** Whether the cluster may migrate jobs to pack them (buddy allocation) rather than keep them where they started. */
    boolean migrates();

    /** Every job of {@code jobs} mapped to its assignment; the GPU counts sum to at most the cluster's. */
    Map<Long, Assignment> decide(ClusterView cluster, List<JobView> jobs);

    /**
     * Whether and how the policy time-slices an oversubscribed cluster: the run then has an event at every quantum
     * boundary while a job waits ({@link #decideAtQuantum}), and charges the resume overhead.
     */
    default TimeSlicing timeSlicing() {
        return TimeSlicing.NONE;
    }

    /**
     * The decision at a quantum boundary at {@code nowSeconds} while a job waits (only when {@link #timeSlicing()} is
     * on): the policy may suspend running jobs for waiting ones.
     */
    default Map<Long, Assignment> decideAtQuantum(ClusterView cluster, List<JobView> jobs, double nowSeconds) {
        return decide(cluster, jobs);
    }
}
