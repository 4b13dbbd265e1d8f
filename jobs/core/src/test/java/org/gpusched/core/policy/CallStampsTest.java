package org.gpusched.core.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class CallStampsTest {

    @Test
    void aSlotMarkedInOneCallIsForgottenByTheNext() {
        CallStamps stamps = new CallStamps();
        assertTrue(stamps.startCall(10), "the first call sizes the stamps");
        assertTrue(stamps.capacity() >= 10);
        assertFalse(stamps.valid(3));
        stamps.markValid(3);
        assertTrue(stamps.valid(3));
        assertFalse(stamps.valid(4));
        assertFalse(stamps.startCall(5), "a smaller call reuses the stamps");
        assertFalse(stamps.valid(3), "forgotten with the call");
        assertTrue(stamps.startCall(stamps.capacity() + 1), "a larger call grows them");
        assertFalse(stamps.valid(3));
    }

    @Test
    void noSlotOfAnEarlierCallIsValidAcrossTheWrapAround() {
        CallStamps stamps = new CallStamps(-3);
        stamps.startCall(4); // call -2
        stamps.markValid(0);
        stamps.startCall(4); // call -1
        stamps.markValid(1);
        stamps.startCall(4); // would be 0, the stamp of a slot never marked: every stamp is cleared, call 1
        for (int slot = 0; slot < 4; slot++) assertFalse(stamps.valid(slot), "slot " + slot);
        stamps.markValid(2);
        assertTrue(stamps.valid(2));
        assertEquals(4, stamps.capacity());
    }
}
