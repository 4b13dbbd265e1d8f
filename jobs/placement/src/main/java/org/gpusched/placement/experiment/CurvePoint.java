package org.gpusched.placement.experiment;

/**
 * The cluster of one (policy, seed) run when the GPU demand of arrived tasks first reaches {@code requestedGpuFraction}
 * of the cluster's GPU capacity (a grid point, so seeds line up for averaging).
 *
 * @param grar            GPU resource allocation ratio: GPU milli allocated to placed tasks / GPU milli requested by
 *                        arrived tasks (1 when nothing GPU was requested yet)
 * @param fragmentedGpus  F_datacenter (eq. 4) in GPUs against the trace's target workload
 */
public record CurvePoint(
        PolicySpec policy,
        long seed,
        double requestedGpuFraction,
        int arrivedTasks,
        double eopcCpuWatts,
        double eopcGpuWatts,
        double grar,
        double fragmentedGpus,
        int failedTasks,
        double allocatedGpuFraction) {
    public double eopcWatts() {
        return eopcCpuWatts + eopcGpuWatts;
    }
}
