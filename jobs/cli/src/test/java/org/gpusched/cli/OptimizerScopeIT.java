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
 * {@code replay --optimizer-scope nodes-with-room} and {@code auto} (the default): andreas-rg asked only about the nodes with room runs a whole trace
 * on rightsizable VMs to a schedule the auditor accepts, with the same decisions on every run and whatever the thread
 * count, and not the decisions of the whole-cluster scope; {@code auto} is the whole cluster up to 128 nodes and the scope
 * above.
 */
class OptimizerScopeIT {
    @TempDir
    Path tmp;

    private List<String> replay(Path generated, String scope, String threads) throws Exception {
        Path out = tmp.resolve(generated.getFileName() + "-" + scope + "-" + threads);
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
        long jobs = Files.readAllLines(generated.resolve("trace.jsonl")).size();
        assertEquals(
                jobs, decisions.stream().filter(l -> l.contains("\"COMPLETE\"")).count(), "all jobs ran");
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
        assertEquals(whole, replay(generated, "auto", "2"), "auto asks a controller of 20 nodes about all of them");
    }

    @Test
    void autoAsksAControllerOfMoreThan128NodesAboutTheNodesWithRoom() throws Exception {
        Path generated = tmp.resolve("large");
        WorkloadCommandsTest.generate(
                "--scenario",
                "hierarchical",
                "--nodes",
                "130",
                "--jobs",
                "60",
                "--seed",
                "5",
                "--out",
                generated.toString());
        List<String> auto = replay(generated, "auto", "2");
        assertEquals(replay(generated, "nodes-with-room", "2"), auto);
        assertNotEquals(replay(generated, "all-nodes", "2"), auto, "the scope changes what the optimizer is asked");
    }
}
