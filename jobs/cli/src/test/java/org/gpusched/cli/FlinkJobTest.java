package org.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.flink.client.program.StreamContextEnvironment;
import org.apache.flink.configuration.GlobalConfiguration;
import org.apache.flink.core.execution.DefaultExecutorServiceLoader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The cluster entry point returns or throws, and never exits the JVM (which would end this test run); under
 * {@code flink run} it reads the cluster's {@code gpusched.*} keys.
 */
class FlinkJobTest {
    @TempDir
    Path tmp;

    @Test
    void helpReturnsAndAFailureIsThrownInsteadOfExitingTheJvm() {
        assertDoesNotThrow(() -> FlinkJob.main(new String[] {"--help"}));
        assertDoesNotThrow(() -> FlinkJob.main(new String[] {"run", "--help"}));
        var failure = assertThrows(
                IllegalStateException.class,
                () -> FlinkJob.main(new String[] {"--bootstrap", "127.0.0.1:1", "--cluster", "/no/such/cluster.yaml"}));
        assertTrue(failure.getMessage().contains("exit code"), failure.getMessage());
    }

    /**
     * As {@code flink run} calls main: Flink's client reads the cluster's config.yaml and sets the context environment
     * with it (StreamContextEnvironment.setAsContext, as ClientUtils.executeProgram does). A bad gpusched.* value there
     * stops the job before anything runs, naming the key and the cluster's configuration.
     */
    @Test
    void underFlinkRunTheClustersGpuschedKeysAreRead() throws Exception {
        Files.writeString(tmp.resolve("config.yaml"), "gpusched:\n  noise: 2\n");
        StreamContextEnvironment.setAsContext(
                new DefaultExecutorServiceLoader(),
                GlobalConfiguration.loadConfiguration(tmp.toString()),
                getClass().getClassLoader(),
                false,
                false);
        PrintStream oldErr = System.err;
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        try {
            var failure = assertThrows(
                    IllegalStateException.class,
                    () -> FlinkJob.main(new String[] {
                        "--bootstrap", "127.0.0.1:1", "--cluster", "../../examples/armida-cluster.yaml"
                    }));
            assertTrue(failure.getMessage().contains("exit code 2"), failure.getMessage());
        } finally {
            System.setErr(oldErr);
            StreamContextEnvironment.unsetAsContext();
        }
        String printed = err.toString(StandardCharsets.UTF_8);
        assertTrue(
                printed.contains("gpusched.noise in the cluster's Flink configuration must be in [0, 1), got 2"),
                printed);
    }
}
