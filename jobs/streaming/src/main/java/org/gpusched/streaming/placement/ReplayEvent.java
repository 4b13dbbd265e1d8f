package org.gpusched.streaming.placement;

/**
 * One decision of the placement replay (PLACE, FAIL or RELEASE of a task at a trace time) with the cluster's metrics
 * right after it. {@code gpus} lists the node's GPU indices used ({@code gpuMilli} each); node -1 and no GPUs for FAIL.
 * Flink POJO.
 */
public class ReplayEvent {
    public long time;
    public int traceIndex;
    public String action;
    public int node;
    public int[] gpus;
    public int gpuMilli;
    public double eopcCpuWatts;
    public double eopcGpuWatts;
    public double allocatedGpuFraction;
    public double fragmentedGpus;
    public int running;

    public ReplayEvent() {}

    public double eopcWatts() { return eopcCpuWatts + eopcGpuWatts; }
}
