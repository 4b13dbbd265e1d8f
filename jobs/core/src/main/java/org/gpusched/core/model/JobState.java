package org.gpusched.core.model;

/**
 * A job as the optimizer sees it at a rescheduling point: its spec, the fraction of its work already done
 * (kept across preemption and resizing: the remaining time on any configuration is t x (1 - done)), and where
 * it runs now ({@code null} while it waits).
 */
public record JobState(Job job, double doneFraction, Placement current) {
    public JobState {
        if (job == null) throw new InvalidInstanceException("job state: job is missing");
        if (!(doneFraction >= 0 && doneFraction < 1))
            throw new InvalidInstanceException(
                    "job " + job.id() + ": done fraction must be in [0, 1), got " + doneFraction);
    }

    public static JobState waiting(Job job) {
        return new JobState(job, 0, null);
    }

    public boolean isRunning() {
        return current != null;
    }
}
