package org.gpusched.powerflow.policy;

import org.gpusched.powerflow.model.JobModel;

/**
 * What a policy knows of a job at a decision: its request, progress, the GPU-seconds it has had (for LAS), the
 * largest worker count its global batch allows, the performance model fitted from its telemetry (the truth in the
 * simulator's ground-truth comparison and for AFS), its current assignment, and whether it is profiling its current
 * GPU count ({@link Profiling#POWERFLOW}: it keeps its GPUs and the limit of its profiling slice until the sweep ends),
 * and since when (s) it runs or waits: its last start or resume while it runs, its last suspension or its ready time
 * while it waits (what {@link TimeSlicing}'s round-robin reads).
 */
public record JobView(
        long id,
        double submitTime,
        String workload,
        double globalBatch,
        int requestedGpus,
        double remainingIterations,
        double attainedGpuSeconds,
        int maxGpus,
        JobModel model,
        Assignment current,
        boolean profiling,
        double sinceSeconds) {
    /** A job whose running or waiting is dated from its submission. */
    public JobView(
            long id,
            double submitTime,
            String workload,
            double globalBatch,
            int requestedGpus,
            double remainingIterations,
            double attainedGpuSeconds,
            int maxGpus,
            JobModel model,
            Assignment current,
            boolean profiling) {
        this(
                id,
                submitTime,
                workload,
                globalBatch,
                requestedGpus,
                remainingIterations,
                attainedGpuSeconds,
                maxGpus,
                model,
                current,
                profiling,
                submitTime);
    }

    /** A job that is not profiling. */
    public JobView(
            long id,
            double submitTime,
            String workload,
            double globalBatch,
            int requestedGpus,
            double remainingIterations,
            double attainedGpuSeconds,
            int maxGpus,
            JobModel model,
            Assignment current) {
        this(
                id,
                submitTime,
                workload,
                globalBatch,
                requestedGpus,
                remainingIterations,
                attainedGpuSeconds,
                maxGpus,
                model,
                current,
                false);
    }
}
