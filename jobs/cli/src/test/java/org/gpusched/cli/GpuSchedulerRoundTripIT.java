package org.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Their instance in, a replay, their schedule layout out: convert gpuscheduler, replay greedy, export gpuscheduler,
 * and the common rule prices the run directory and its export at the replay's own metrics.json total (the rule and
 * the product's RealCost agree on VMs leased whole).
 */
class GpuSchedulerRoundTripIT {
    static final Path SAMPLE = Path.of("../workloads/src/test/resources/gpuscheduler/instance-3-nodes")
            .toAbsolutePath()
            .normalize();

    @TempDir
    Path tmp;

    @Test
    void convertReplayExportAndPrice() throws Exception {
        Path in = tmp.resolve("in"), run = tmp.resolve("run"), csv = tmp.resolve("greedy_schedule.csv");
        var c = WorkloadCommandsTest.gpusched(
                "convert", "gpuscheduler", "--instance", SAMPLE.toString(), "--out", in.toString());
        assertEquals(0, c.exit(), c.err());
        var r = WorkloadCommandsTest.gpusched(
                "replay",
                "--trace",
                in.resolve("trace.jsonl").toString(),
                "--cluster",
                in.resolve("cluster.yaml").toString(),
                "--policy",
                "greedy",
                "--out",
                run.toString());
        assertEquals(0, r.exit(), r.err());
        var e = WorkloadCommandsTest.gpusched(
                "export", "gpuscheduler", "--run", run.toString(), "--out", csv.toString());
        assertEquals(0, e.exit(), e.err());
        double reported = new ObjectMapper()
                .readTree(run.resolve("metrics.json").toFile())
                .get("totalCost")
                .asDouble();
        var fromRun = CommonRuleCost.of(run);
        var fromCsv = CommonRuleCost.of(csv);
        assertEquals(reported, fromRun.total(), 1e-6 * reported);
        assertEquals(fromRun.total(), fromCsv.total(), 1e-9);
        assertEquals(4, fromCsv.jobs());
        assertEquals(0, fromCsv.unfinishedJobs());
        assertTrue(reported > 0);
    }
}
