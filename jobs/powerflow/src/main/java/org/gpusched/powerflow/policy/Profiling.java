package org.gpusched.powerflow.policy;

/**
 * How a policy's jobs learn their performance, and what that costs them (the simulator and the streaming replay charge
 * it alike).
 */
public enum Profiling {
    /** Nothing is measured before or while a job runs: the policy needs no model, or is handed the true one. */
    NONE,
    /**
     * PowerFlow (sections 5.1, 5.2, 6.1): each job is pre-run offline on one GPU at every power limit before it is
     * scheduled (its JCT and energy, no progress), and each time it first runs at a GPU count it sweeps every limit
     * on those GPUs (a slice each, progress at the slice's speed) before its model is refitted and the policy decides
     * again; meanwhile its GPU count is held.
     */
    POWERFLOW,
    /**
     * Zeus' own procedure (GlobalPowerLimitOptimizer, JIT profiling): when the job first runs, it trains a window of
     * iterations at every limit from the largest down (progress counts), then keeps the limit of least
     * {@code 0.5 x E + 0.5 x n x max limit x T}; the job, not the scheduler, sets its limit.
     */
    ZEUS
}
