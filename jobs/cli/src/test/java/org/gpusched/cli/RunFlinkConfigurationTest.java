package org.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.apache.flink.configuration.CheckpointingOptions;
import org.gpusched.streaming.EmbeddedFlink;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * The Flink configuration {@code run} gives its job: {@code --bind-address} (127.0.0.1 unless given, checked before
 * anything runs) and, with checkpoints, unaligned checkpoints with interruptible timers.
 */
class RunFlinkConfigurationTest {
    private static final String CLUSTER = "../../examples/armida-cluster.yaml";

    @Test
    void theOptionReachesTheFlinkConfiguration() {
        RunCommand run = new RunCommand();
        new CommandLine(run).parseArgs("--bootstrap", "127.0.0.1:1", "--cluster", CLUSTER);
        assertEquals("127.0.0.1", run.flinkConfiguration().get(EmbeddedFlink.BIND_ADDRESS));
        run = new RunCommand();
        new CommandLine(run).parseArgs("--bootstrap", "127.0.0.1:1", "--cluster", CLUSTER, "--bind-address", "0.0.0.0");
        assertEquals("0.0.0.0", run.flinkConfiguration().get(EmbeddedFlink.BIND_ADDRESS));
    }

    @Test
    void checkpointsAreUnalignedWithInterruptibleTimers() {
        RunCommand run = new RunCommand();
        new CommandLine(run)
                .parseArgs("--bootstrap", "127.0.0.1:1", "--cluster", CLUSTER, "--checkpoint-interval", "5");
        assertTrue(run.flinkConfiguration().get(CheckpointingOptions.ENABLE_UNALIGNED));
        assertTrue(run.flinkConfiguration().get(CheckpointingOptions.ENABLE_UNALIGNED_INTERRUPTIBLE_TIMERS));
        run = new RunCommand();
        new CommandLine(run).parseArgs("--bootstrap", "127.0.0.1:1", "--cluster", CLUSTER);
        assertFalse(
                run.flinkConfiguration().contains(CheckpointingOptions.ENABLE_UNALIGNED),
                "no checkpoints, nothing set");
    }

    @Test
    void anAddressNotOfThisMachineIsAUsageError() {
        for (String bad : new String[] {"192.0.2.1", "example.com"}) {
            CommandLine cl = GpuSched.commandLine();
            StringWriter err = new StringWriter();
            cl.setErr(new PrintWriter(err, true));
            int exit = cl.execute("run", "--bootstrap", "127.0.0.1:1", "--cluster", CLUSTER, "--bind-address", bad);
            assertEquals(2, exit, err.toString());
            assertTrue(err.toString().contains("--bind-address: bind address"), err.toString());
            assertTrue(err.toString().contains(bad), err.toString());
            assertFalse(err.toString().contains("Exception"), err.toString());
        }
    }
}
