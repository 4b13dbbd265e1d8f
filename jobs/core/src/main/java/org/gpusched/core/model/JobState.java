package org.gpusched.core.model;

/**
 * A job as the optimizer sees it at a rescheduling point: its spec, the fraction of its work already done (the
 * remaining time on its current configuration is t x (1 - done)), and where it runs now ({@code null} while it
 * waits). Moving it costs what {@link MoveCost} says: on any configuration other than its current one its remaining
 * time is t x (1 - {@code doneIfRestarted}) + {@code restartSeconds} (a running job loses its progress since the last
 * snapshot and restores it; a waiting job preempted earlier restores its snapshot; a job never started pays nothing).
 */
public record JobState(Job job, double doneFraction, Placement current, double doneIfRestarted, double restartSeconds) {
    public JobState {
        if (job == null) throw new InvalidInstanceException("job state: job is missing");
        if (!(doneFraction >= 0 && doneFraction < 1))
            throw new InvalidInstanceException(
                    "job " + job.id() + ": done fraction must be in [0, 1), got " + doneFraction);
        if (!(doneIfRestarted >= 0 && doneIfRestarted <= doneFraction))
            throw new InvalidInstanceException("job " + job.id() + ": done fraction after a restart must be in [0, "
                    + doneFraction + "], got " + doneIfRestarted);
        if (!(restartSeconds >= 0) || Double.isInfinite(restartSeconds))
            throw new InvalidInstanceException(
                    "job " + job.id() + ": restart time must be >= 0 seconds, got " + restartSeconds);
    }

    /** A job whose moves are free: it keeps all its progress and restarts at once. */
    public JobState(Job job, double doneFraction, Placement current) {
        this(job, doneFraction, current, doneFraction, 0);
    }

    public static JobState waiting(Job job) {
        return new JobState(job, 0, null);
    }

    public boolean isRunning() {
        return current != null;
    }
}
