package org.gpusched.powerflow.policy;

/** A job's share at one decision: its GPU count and the power limit (W) of its GPUs. Zero GPUs means it waits. */
public record Assignment(int gpus, double powerLimit) {
    public static final Assignment WAITING = new Assignment(0, 0);

    public boolean running() {
        return gpus > 0;
    }
}
