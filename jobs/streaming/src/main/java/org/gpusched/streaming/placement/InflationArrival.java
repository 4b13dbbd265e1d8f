package org.gpusched.streaming.placement;

/** One task arriving in one inflation run (policy index, seed): the trace row and its position in the run. Flink POJO. */
public class InflationArrival {
    public int policyIndex;
    public long seed;
    public int seq;
    public int traceIndex;
    /** True on the run's last task: the operator emits the run's end and clears its state. */
    public boolean last;

    public InflationArrival() {}

    public InflationArrival(int policyIndex, long seed, int seq, int traceIndex, boolean last) {
        this.policyIndex = policyIndex;
        this.seed = seed;
        this.seq = seq;
        this.traceIndex = traceIndex;
        this.last = last;
    }

    /** Key of the run: one keyed state (one cluster) per policy and seed. */
    public String runKey() {
        return policyIndex + "#" + seed;
    }
}
