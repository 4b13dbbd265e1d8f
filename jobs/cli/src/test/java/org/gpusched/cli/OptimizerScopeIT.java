package org.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code replay --optimizer-scope nodes-with-room}: andreas-rg asked only about the nodes with room runs a whole trace
 * on rightsizable VMs to a schedule the auditor accepts, with the same decisions on every run and whatever the thread
 * count, and not the decisions of the whole-cluster scope.
 */
class OptimizerScopeIT {
    @TempDir
    Path tmp;

    private List<String> replay(Path generated, String scope, String threads) throws Exception {
        Path out = tmp.resolve(scope + "-" + threads);
        var r = WorkloadCommandsTest.gpusched(
                "replay",
                "--trace",
                generated.resolve("trace.jsonl").toString(),
                "--cluster",
                generated.resolve("cluster.yaml").toString(),
                "--policy",
                "andreas-rg",
                "--iterations",
                "100",
                "--optimizer-scope",
                scope,
                "--optimizer-threads",
                threads,
                "--seed",
                "7",
                "--out",
                out.toString());
        assertEquals(0, r.exit(), r.err());
        assertEquals(
                scope,
                new ObjectMapper()
                        .readTree(out.resolve("run.json").toFile())
                        .get("optimizerScope")
                        .asText(),
                "run.json says how the run was made");
        var v = WorkloadCommandsTest.gpusched("validate", out.toString());
        assertEquals(0, v.exit(), v.out() + v.err());
        List<String> decisions = Files.readAllLines(out.resolve("decisions.jsonl"));
        assertEquals(
                200, decisions.stream().filter(l -> l.contains("\"COMPLETE\"")).count(), "all jobs ran");
        return decisions;
    }

    @Test
    void nodesWithRoomIsAuditedDeterministicAndItsOwnSchedule() throws Exception {
        Path generated = tmp.resolve("generated");
        WorkloadCommandsTest.generate(
                "--scenario",
                "hierarchical",
                "--nodes",
                "20",
                "--jobs",
                "200",
                "--seed",
                "5",
                "--out",
                generated.toString());
        List<String> oneThread = replay(generated, "nodes-with-room", "1");
        List<String> twoThreads = replay(generated, "nodes-with-room", "2");
        assertEquals(oneThread, twoThreads);
        List<String> whole = replay(generated, "all-nodes", "2");
        assertNotEquals(whole, oneThread, "the scope changes what the optimizer is asked");
    }
}
