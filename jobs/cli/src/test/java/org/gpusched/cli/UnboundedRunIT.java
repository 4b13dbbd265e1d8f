package org.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.gpusched.testkit.LocalKafkaBroker;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An unbounded {@code run} on a real broker as an operator meets it: with nothing new on its input it says it is
 * waiting for input (instead of printing unchanging counts), and a stop (SIGTERM, as Ctrl-C's SIGINT) prints what it
 * committed to the output topics. {@code bin/kafka-local status} without a broker is a finding (exit 1), not an
 * internal failure.
 */
class UnboundedRunIT {
    private static final String TRACE = "../../examples/armida-trace.jsonl";
    private static final String CLUSTER = "../../examples/armida-cluster.yaml";

    private static LocalKafkaBroker broker;

    @TempDir
    Path tmp;

    @BeforeAll
    static void startBroker() throws Exception {
        broker = LocalKafkaBroker.start("cli-unbounded-it");
    }

    @AfterAll
    static void stopBroker() throws Exception {
        if (broker != null) broker.close();
    }

    @Test
    void anIdleRunSaysItWaitsForInputAndAStopPrintsWhatItCommitted() throws Exception {
        String prefix = "unbounded-it.";
        assertEquals(
                0,
                WorkloadCommandsTest.gpusched(
                                "topics", "create", "--bootstrap", broker.bootstrap(), "--topic-prefix", prefix)
                        .exit());
        var produced = WorkloadCommandsTest.gpusched(
                "produce", "--trace", TRACE, "--bootstrap", broker.bootstrap(), "--topic-prefix", prefix);
        assertEquals(0, produced.exit(), produced.err());
        Path log = tmp.resolve("run.log");
        Process run = RunDirectoryIT.launchWithHeap(
                log,
                "1g",
                "run",
                "--bootstrap",
                broker.bootstrap(),
                "--topic-prefix",
                prefix,
                "--cluster",
                CLUSTER,
                "--policy",
                "fifo");
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
            while (!Files.readString(log).contains("run: waiting for input: no new record on " + prefix)) {
                assertTrue(run.isAlive(), "the run ended:\n" + Files.readString(log));
                assertTrue(System.nanoTime() < deadline, "no waiting line within 180 s:\n" + Files.readString(log));
                Thread.sleep(200);
            }
            run.destroy(); // SIGTERM
            assertTrue(run.waitFor(120, TimeUnit.SECONDS), Files.readString(log));
        } finally {
            run.destroyForcibly();
        }
        String out = Files.readString(log);
        assertTrue(out.contains("run: stopped; the records committed to the output topics:"), out);
        assertTrue(
                out.matches("(?s).*" + java.util.regex.Pattern.quote(prefix + "gpusched.decisions")
                        + "\\s+[\\d,]+\\s+\\(written\\).*"),
                out);
        assertTrue(!out.contains("internal error"), out);
    }

    @Test
    void kafkaLocalStatusWithoutABrokerIsAFindingNotAnInternalFailure() throws Exception {
        Process status = new ProcessBuilder(
                        "bash",
                        Path.of("../../bin/kafka-local").toString(),
                        "status",
                        "--dir",
                        tmp.resolve("none").toString(),
                        "--port",
                        "1")
                .redirectErrorStream(true)
                .start();
        String out = new String(status.getInputStream().readAllBytes());
        assertTrue(status.waitFor(60, TimeUnit.SECONDS));
        assertEquals(1, status.exitValue(), out);
        assertTrue(out.contains("kafka-local: not running"), out);
    }
}
