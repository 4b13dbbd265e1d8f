package org.gpusched.core.policy;

import java.util.Arrays;

/**
 * Which slots of a per-call cache hold a value of the current call: a slot is valid when its stamp is the call's
 * number, so starting a call forgets every slot at once without touching them. The cache's own arrays are sized by
 * {@link #capacity}. One per cache, on one thread.
 */
final class CallStamps {
    private int[] stamp = new int[0];
    private int call;

    CallStamps() {}

    /** Stamps whose last call was numbered {@code lastCall} (a test starts near the wrap-around). */
    CallStamps(int lastCall) {
        this.call = lastCall;
    }

    /**
     * Starts a call over {@code slots} slots, none valid. Returns whether the stamps were reallocated: the cache's
     * arrays must then grow to {@link #capacity} too.
     */
    boolean startCall(int slots) {
        boolean grown = stamp.length < slots;
        if (grown) stamp = new int[Math.max(slots, stamp.length * 3 / 2)]; // all 0: the next call is never 0
        if (++call == 0) { // wrapped: an old stamp could match again
            Arrays.fill(stamp, 0);
            call = 1;
        }
        return grown;
    }

    int capacity() {
        return stamp.length;
    }

    boolean valid(int slot) {
        return stamp[slot] == call;
    }

    void markValid(int slot) {
        stamp[slot] = call;
    }
}
