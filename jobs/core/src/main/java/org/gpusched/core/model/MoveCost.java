package org.gpusched.core.model;

/**
 * What stopping a running job costs it (ANDREAS: a preempted job "restarts from the last snapshot", a snapshot
 * being taken every few epochs). A running job snapshots its state every {@code snapshotIntervalSeconds} of progress
 * on its placement, counted from when it began progressing there. When it is preempted, migrated or resized it
 * loses the progress made since its last snapshot, and when it next runs (on the new placement, or when it starts
 * again after a preemption) it first spends {@code restartOverheadSeconds} restoring that snapshot on the GPUs it is
 * given, which are busy (and charged) meanwhile. A job's first start pays nothing. An interval of 0 means
 * continuous snapshots (nothing lost); both 0 is the papers' free preemption.
 */
public record MoveCost(double snapshotIntervalSeconds, double restartOverheadSeconds) {
    /** The papers' model: a move keeps all progress and costs no time. */
    public static final MoveCost FREE = new MoveCost(0, 0);

    public MoveCost {
        if (!(snapshotIntervalSeconds >= 0) || Double.isInfinite(snapshotIntervalSeconds))
            throw new IllegalArgumentException(
                    "snapshot interval must be >= 0 seconds, got " + snapshotIntervalSeconds);
        if (!(restartOverheadSeconds >= 0) || Double.isInfinite(restartOverheadSeconds))
            throw new IllegalArgumentException("restart overhead must be >= 0 seconds, got " + restartOverheadSeconds);
    }

    public boolean isFree() {
        return snapshotIntervalSeconds == 0 && restartOverheadSeconds == 0;
    }

    /**
     * Seconds of progress lost when a job that has progressed {@code progressingSeconds} on its placement stops: those
     * since its last snapshot, {@code progressingSeconds mod interval}.
     */
    public double lostSeconds(double progressingSeconds) {
        if (snapshotIntervalSeconds == 0 || !(progressingSeconds > 0)) return 0;
        return progressingSeconds % snapshotIntervalSeconds;
    }

    /** As {@link #lostSeconds(double)} in whole milliseconds, the controller's clock. */
    public long lostMillis(long progressingMillis) {
        long interval = Math.round(snapshotIntervalSeconds * 1000);
        if (interval == 0 || progressingMillis <= 0) return 0;
        return progressingMillis % interval;
    }

    public long restartOverheadMillis() {
        return Math.round(restartOverheadSeconds * 1000);
    }
}
