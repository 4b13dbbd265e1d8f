package org.gpusched.powerflow.policy;

import org.gpusched.powerflow.model.JobModel;

/**
 * What a policy knows of a job at a decision: its request, progress, the GPU-seconds it has had (for LAS), the
 * largest worker count its global batch allows, and the performance model fitted from its telemetry (the truth only in the simulator's ground-truth comparison).
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
        Assignment current) {}
