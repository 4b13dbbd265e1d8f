package org.gpusched.streaming.placement;

/**
 * One task of a time-driven placement replay: its trace row and its life in trace seconds. {@code deletionTime} is
 * {@link #CUT_OFF} when the trace ends before the task does (it then leaves at the end of the replay). Flink POJO.
 */
public class ReplayPod {
    public static final long CUT_OFF = -1;

    public int traceIndex;
    public long creationTime;
    public long deletionTime;

    public ReplayPod() {}

    public ReplayPod(int traceIndex, long creationTime, long deletionTime) {
        this.traceIndex = traceIndex;
        this.creationTime = creationTime;
        this.deletionTime = deletionTime;
    }
}
