package org.gpusched.streaming.placement;

/** A run of the experiment to expand into its arrivals. Flink POJO. */
public class InflationRunStart {
    public int policyIndex;
    public long seed;

    public InflationRunStart() {}

    public InflationRunStart(int policyIndex, long seed) {
        this.policyIndex = policyIndex;
        this.seed = seed;
    }
}
