package org.gpusched.streaming.placement;

/**
 * One decision of a placement replay run (PLACE, FAIL or RELEASE of a task at a trace time) with the cluster's metrics
 * right after it. {@code run} is the {@link ReplayRun#key()}, {@code line} the task's pod-list line. {@code gpus} lists
 * the node's GPU indices used ({@code gpuMilli} each); node -1 and no GPUs for FAIL. Flink POJO.
 */
public class ReplayEvent {
    public String run;
    public long time;
    public long line;
    public String task;
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

    public double eopcWatts() {
        return eopcCpuWatts + eopcGpuWatts;
    }
}
