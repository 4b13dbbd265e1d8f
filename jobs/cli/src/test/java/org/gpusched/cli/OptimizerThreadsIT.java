package org.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code replay --optimizer-threads}: andreas-rg spreads its randomized iterations over threads with the same
 * decisions whatever their number, on a burst large enough that every call hands iterations to the other threads.
 */
class OptimizerThreadsIT {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path tmp;

    @Test
    void oneAndTwoThreadsGiveTheSameDecisions() throws Exception {
        Path generated = tmp.resolve("generated");
        WorkloadCommandsTest.generate(
                "--scenario", "andreas", "--nodes", "8", "--jobs", "150", "--seed", "5", "--out", generated.toString());
        // every job submitted at the first one's time: the optimizer sees about 150 jobs per call
        List<String> burst = new ArrayList<>();
        Double first = null;
        for (String line : Files.readAllLines(generated.resolve("trace.jsonl"))) {
            ObjectNode job = (ObjectNode) JSON.readTree(line);
            if (first == null) first = job.get("submit").asDouble();
            job.put("submit", first);
            burst.add(JSON.writeValueAsString(job));
        }
        Path trace = tmp.resolve("burst.jsonl");
        Files.write(trace, burst);
        List<List<String>> outputs = new ArrayList<>();
        for (String threads : List.of("1", "2")) {
            Path out = tmp.resolve("threads-" + threads);
            var r = WorkloadCommandsTest.gpusched(
                    "replay",
                    "--trace",
                    trace.toString(),
                    "--cluster",
                    generated.resolve("cluster.yaml").toString(),
                    "--policy",
                    "andreas-rg",
                    "--iterations",
                    "100",
                    "--optimizer-threads",
                    threads,
                    "--seed",
                    "7",
                    "--out",
                    out.toString());
            assertEquals(0, r.exit(), r.err());
            List<String> decisions = Files.readAllLines(out.resolve("decisions.jsonl"));
            assertTrue(
                    decisions.stream().filter(l -> l.contains("\"COMPLETE\"")).count() == 150, "all jobs ran");
            outputs.add(decisions);
            outputs.add(Files.readAllLines(out.resolve("jobs.jsonl")));
        }
        assertEquals(outputs.get(0), outputs.get(2), "decisions.jsonl");
        assertEquals(outputs.get(1), outputs.get(3), "jobs.jsonl");
    }

    @Test
    void aThreadCountBelowOneIsAUsageError() throws Exception {
        var r = WorkloadCommandsTest.gpusched(
                "replay",
                "--trace",
                "../../examples/armida-trace.jsonl",
                "--cluster",
                "../../examples/armida-cluster.yaml",
                "--policy",
                "andreas-rg",
                "--optimizer-threads",
                "0",
                "--out",
                tmp.resolve("x").toString());
        assertEquals(2, r.exit(), r.err());
        assertTrue(r.err().contains("--optimizer-threads must be >= 1, got 0"), r.err());
    }
}
