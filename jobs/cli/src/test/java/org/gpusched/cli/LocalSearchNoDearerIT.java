package org.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * rg-ls against andreas-rg over a whole replay, in the papers' setting (free moves), on the hierarchical instance
 * N = 10, seed 11, amdahl times: the one of the comparison with the authors' code where rg-ls once ended dearer
 * (458.40 against 457.99 $). There an alternative start beat andreas-rg's own by 1e-16 of f_OBJ, rounding alone, and
 * the run followed another plan from decision 2,898 on. Rounding ties now keep andreas-rg's start.
 */
class LocalSearchNoDearerIT {
    @TempDir
    Path tmp;

    @Test
    void rgLsIsNoDearerThanAndreasRgOnTheInstanceWhereRoundingOnceMadeItSo() throws Exception {
        Path instance = tmp.resolve("instance");
        WorkloadCommandsTest.generate(
                "--scenario",
                "hierarchical",
                "--nodes",
                "10",
                "--seed",
                "11",
                "--time-model",
                "amdahl",
                "--out",
                instance.toString());
        double andreas = replay(instance, "andreas-rg");
        double localSearch = replay(instance, "rg-ls");
        assertTrue(localSearch <= andreas + 1e-9 * andreas, "rg-ls " + localSearch + " > andreas-rg " + andreas);
    }

    private double replay(Path instance, String policy) throws Exception {
        Path run = tmp.resolve(policy);
        var r = WorkloadCommandsTest.gpusched(
                "replay",
                "--trace",
                instance.resolve("trace.jsonl").toString(),
                "--cluster",
                instance.resolve("cluster.yaml").toString(),
                "--policy",
                policy,
                "--seed",
                "11",
                "--iterations",
                "1000",
                "--stability",
                "paper",
                "--move-overhead",
                "0",
                "--snapshot-interval",
                "0",
                "--out",
                run.toString());
        assertEquals(0, r.exit(), r.err());
        return new ObjectMapper()
                .readTree(run.resolve("metrics.json").toFile())
                .get("totalCost")
                .asDouble();
    }
}
