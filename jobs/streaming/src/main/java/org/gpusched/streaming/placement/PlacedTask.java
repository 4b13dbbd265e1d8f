package org.gpusched.streaming.placement;

/** One entry of a run's placement log: trace row, node and GPUs. Flink POJO. */
public class PlacedTask {
    public int traceIndex;
    public int node;
    public int[] gpus;

    public PlacedTask() {}

    public PlacedTask(int traceIndex, int node, int[] gpus) {
        this.traceIndex = traceIndex;
        this.node = node;
        this.gpus = gpus;
    }
}
