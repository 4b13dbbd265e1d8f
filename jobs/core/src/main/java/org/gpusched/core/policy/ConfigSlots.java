package org.gpusched.core.policy;

/**
 * Per-call slots of a job's figures on one type and GPU count, by [(job x types + type) x stride + GPUs], each valid
 * once priced in the call: the post-processing's figures of a job away from where it runs are the same on every such
 * node, so they are priced once per call. A call of more than {@link #MAX_SLOTS} slots keeps none ({@link #keeps}),
 * and its figures are priced each time, with the same result. One per cache, on one thread; the owner sizes its value
 * arrays to {@link #capacity} when {@link #startCall} says so.
 */
final class ConfigSlots {
    /** Largest call, in jobs x types x (GPUs + 1), whose figures are kept (tens of MB per worker at most). */
    static final int MAX_SLOTS = 1 << 20;

    private final CallStamps stamps = new CallStamps();
    private boolean keeps;
    private int types, stride;

    /**
     * Starts a call over the tables' slots, none valid. Returns whether the stamps were reallocated: the owner's value
     * arrays must then grow to {@link #capacity} (never when the call keeps nothing).
     */
    boolean startCall(ProblemTables tables) {
        types = tables.types;
        stride = tables.stride;
        long slots = (long) tables.jobs * types * stride;
        keeps = slots <= MAX_SLOTS;
        return keeps && stamps.startCall((int) slots);
    }

    /** Whether this call keeps figures at all. */
    boolean keeps() {
        return keeps;
    }

    int capacity() {
        return stamps.capacity();
    }

    int slot(int j, int t, int g) {
        return (j * types + t) * stride + g;
    }

    boolean valid(int slot) {
        return stamps.valid(slot);
    }

    void markValid(int slot) {
        stamps.markValid(slot);
    }
}
