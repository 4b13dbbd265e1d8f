package org.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The option checks of {@code run --nodes} (placement policies on Kafka) and {@code produce --pods}: wrong combinations
 * are usage errors (exit 2) naming the option, a missing pod list is exit 1 with its name; all before any Kafka client
 * is made, so no broker is needed (the Kafka path itself: KafkaPlacementIT in jobs/streaming).
 */
class RunPlacementOptionsTest {
    private static final String PODS = "src/test/resources/place-replay/pods.csv";
    private static final String NODES = "src/test/resources/place-replay/nodes.csv";

    @TempDir
    Path dir;

    private record Result(int exit, String err) {}

    private static Result gpusched(String... args) {
        PrintStream oldErr = System.err;
        ByteArrayOutputStream e = new ByteArrayOutputStream();
        StringWriter picocliErr = new StringWriter();
        System.setErr(new PrintStream(e, true));
        try {
            CommandLine cl = GpuSched.commandLine();
            cl.setErr(new PrintWriter(picocliErr, true));
            int code = cl.execute(args);
            return new Result(code, e + picocliErr.toString());
        } finally {
            System.setErr(oldErr);
        }
    }

    private static void assertUsageError(String expected, String... args) {
        Result r = gpusched(args);
        assertEquals(2, r.exit(), r.err());
        assertTrue(r.err().contains(expected), "expected '" + expected + "' in: " + r.err());
        assertFalse(r.err().contains("Exception"), r.err());
    }

    @Test
    void runPlacementNeedsItsInputsAndRefusesSchedulerOptions() {
        String[] base = {"run", "--bootstrap", "127.0.0.1:1"};
        assertUsageError("missing inputs: --cluster (scheduling policies) or --nodes and --workload", base);
        assertUsageError(
                "placement policies need both --nodes and --workload",
                concat(base, "--nodes", NODES, "--policy", "fgd"));
        assertUsageError(
                "not both",
                concat(base, "--nodes", NODES, "--workload", PODS, "--cluster", "c.yaml", "--policy", "fgd"));
        assertUsageError("--policy is required with --nodes", concat(base, "--nodes", NODES, "--workload", PODS));
        assertUsageError(
                "--iterations applies to scheduling policies",
                concat(base, "--nodes", NODES, "--workload", PODS, "--policy", "fgd", "--iterations", "5"));
        assertUsageError(
                "unknown --policy 'andreas-rg'",
                concat(base, "--nodes", NODES, "--workload", PODS, "--policy", "fgd,andreas-rg"));
        assertUsageError(
                "--alpha must be in [0, 1]",
                concat(base, "--nodes", NODES, "--workload", PODS, "--policy", "pwr-fgd", "--alpha", "2"));
        assertUsageError(
                "--workload nope.csv: no such file",
                concat(base, "--nodes", NODES, "--workload", "nope.csv", "--policy", "fgd"));
        assertUsageError(
                "--alpha applies to placement policies", concat(base, "--cluster", "c.yaml", "--alpha", "0.1"));
    }

    @Test
    void produceTakesATraceOrAPodList() throws Exception {
        assertUsageError(
                "give either --trace (a job trace) or --pods (a pod list)", "produce", "--bootstrap", "127.0.0.1:1");
        assertUsageError(
                "give either --trace (a job trace) or --pods (a pod list)",
                "produce",
                "--bootstrap",
                "127.0.0.1:1",
                "--trace",
                "t.jsonl",
                "--pods",
                PODS);
        Path missing = dir.resolve("missing.csv");
        Result r = gpusched("produce", "--bootstrap", "127.0.0.1:1", "--pods", missing.toString());
        assertEquals(ExitCode.BAD_INPUT, r.exit(), r.err());
        assertTrue(r.err().contains("--pods " + missing + ": no such file"), r.err());
        assertFalse(r.err().contains("Exception"), r.err());
    }

    private static String[] concat(String[] a, String... b) {
        String[] all = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        return all;
    }
}
