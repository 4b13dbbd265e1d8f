package org.gpusched.streaming.placement;

/** A run's counters besides its cluster (see InflationStepper.Progress) plus time spent placing. Flink POJO. */
public class RunProgress {
    public long randomState;
    public long requestedMilli;
    public int failed;
    public int arrived;
    public int nextGrid;
    public long placeNanos;

    public RunProgress() {}
}
