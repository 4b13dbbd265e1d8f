package org.gpusched.powerflow.policy;

/**
 * Gandiva's time-slicing of an oversubscribed cluster (OSDI'18, section 4.1): while jobs wait for GPUs, at every
 * quantum boundary (multiples of {@code quantumSeconds} from the start of the run) the running jobs that have run
 * longest since they were last resumed are suspended and the jobs that have waited longest take their GPUs,
 * round-robin. A resumed job holds its GPUs for {@code resumeSeconds} without progress (the suspend at a minibatch
 * boundary and the resume: state copied out of and back into GPU memory), its GPUs drawing the power of its
 * configuration. A quantum of 0 is no time-slicing.
 */
public record TimeSlicing(double quantumSeconds, double resumeSeconds) {
    /** No time-slicing: jobs keep their GPUs until they complete. */
    public static final TimeSlicing NONE = new TimeSlicing(0, 0);

    /**
     * Gandiva's time-slicing as read here ({@code --gandiva-quantum 60}): one-minute quanta, Gandiva's time slice
     * (section 4.1), and one second lost per resume, a reading rather than a figure taken from the paper: Gandiva
     * suspends at a minibatch boundary, where GPU memory use is lowest, and its suspend/resume cost is small against
     * the quantum.
     */
    public static final TimeSlicing GANDIVA = new TimeSlicing(60, 1);

    public TimeSlicing {
        if (!(quantumSeconds >= 0) || !(resumeSeconds >= 0))
            throw new IllegalArgumentException("time-slicing: quantum and resume overhead must be >= 0 s ("
                    + quantumSeconds + ", " + resumeSeconds + ")");
        if (quantumSeconds > 0 && resumeSeconds >= quantumSeconds)
            throw new IllegalArgumentException("time-slicing: the resume overhead (" + resumeSeconds
                    + " s) must be shorter than the quantum (" + quantumSeconds + " s)");
    }

    /**
     * The time-slicing of the command line's {@code --gandiva-quantum} and {@code --gandiva-resume}: {@link #NONE} for a
     * quantum of 0, whatever the resume overhead (it is never charged then).
     */
    public static TimeSlicing of(double quantumSeconds, double resumeSeconds) {
        return quantumSeconds == 0 ? NONE : new TimeSlicing(quantumSeconds, resumeSeconds);
    }

    public boolean on() {
        return quantumSeconds > 0;
    }
}
