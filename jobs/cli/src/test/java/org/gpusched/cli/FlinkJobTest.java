package org.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The cluster entry point returns or throws, and never exits the JVM (which would end this test run). */
class FlinkJobTest {
    @Test
    void helpReturnsAndAFailureIsThrownInsteadOfExitingTheJvm() {
        assertDoesNotThrow(() -> FlinkJob.main(new String[] {"--help"}));
        assertDoesNotThrow(() -> FlinkJob.main(new String[] {"run", "--help"}));
        var failure = assertThrows(
                IllegalStateException.class,
                () -> FlinkJob.main(new String[] {"--bootstrap", "127.0.0.1:1", "--cluster", "/no/such/cluster.yaml"}));
        assertTrue(failure.getMessage().contains("exit code"), failure.getMessage());
    }
}
