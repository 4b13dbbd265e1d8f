package org.gpusched.powerflow.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class EnumLabelsTest {
    private enum Three {
        FIRST_ONE,
        SECOND,
        THIRD
    }

    @Test
    void aLabelIsTheNameInLowerCaseWithDashesAndReadsBackIgnoringCaseAndSpaces() {
        assertEquals("first-one", EnumLabels.of(Three.FIRST_ONE));
        assertEquals(Three.FIRST_ONE, EnumLabels.parse(Three.class, " First-One "));
        assertEquals(PowerFlowPolicy.BudgetCheck.NODE_BOUNDARY, PowerFlowPolicy.BudgetCheck.parse("node-boundary"));
    }

    @Test
    void anUnknownLabelIsRefusedWithEveryLabelNamed() {
        assertEquals(
                "'fourth' is not first-one, second or third",
                assertThrows(IllegalArgumentException.class, () -> EnumLabels.parse(Three.class, "fourth"))
                        .getMessage());
        assertEquals(
                "'fast' is not efficient or least-energy",
                assertThrows(IllegalArgumentException.class, () -> PowerFlowPolicy.StartLimit.parse("fast"))
                        .getMessage());
        assertEquals(
                "'x' is not node-boundary or strict",
                assertThrows(IllegalArgumentException.class, () -> PowerFlowPolicy.BudgetCheck.parse("x"))
                        .getMessage());
    }
}
