package org.gpusched.streaming.placement;

/**
 * What the placement operator emits: a curve point of a run ({@code end == false}, the fields of
 * org.gpusched.placement.experiment.CurvePoint) or, once per run, its end ({@code end == true}: tasks, failed, and the
 * nanoseconds spent placing). Flink POJO.
 */
public class InflationOutput {
    public boolean end;
    public int policyIndex;
    public long seed;
    public double requestedGpuFraction;
    public int arrivedTasks;
    public double eopcCpuWatts;
    public double eopcGpuWatts;
    public double grar;
    public double fragmentedGpus;
    public int failedTasks;
    public double allocatedGpuFraction;
    public long placeNanos;

    public InflationOutput() {}
}
