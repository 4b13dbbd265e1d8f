package org.gpusched.streaming.placement;

/** A placed task of a replay run: its pod and where it runs (node, GPU indices). Flink POJO. */
public class RunningPod {
    public ReplayPod pod;
    public int node;
    public int[] gpus;

    public RunningPod() {}

    public RunningPod(ReplayPod pod, int node, int[] gpus) {
        this.pod = pod;
        this.node = node;
        this.gpus = gpus;
    }
}
