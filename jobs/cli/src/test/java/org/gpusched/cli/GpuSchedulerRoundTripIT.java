package org.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Their instance in, a replay, their schedule layout out: convert gpuscheduler, replay greedy, export gpuscheduler,
 * and the common rule prices the run directory and its export at the replay's own metrics.json total (the rule and
 * the product's RealCost agree on VMs leased whole). The same holds in the product's setting, where moves cost a
 * restore and the progress since the last snapshot and jobs end late.
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
        replayGreedyAndExport(in, run, csv);
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
        // the converted run's instance has the bound of their folder (GpuSchedulerFormatsTest works it by hand)
        assertEquals(6.612078, RunLowerBound.of(run), 1e-6);
        assertEquals(CostCommand.instanceLowerBound(SAMPLE), RunLowerBound.of(run), 1e-12);
    }

    /** Replays greedy with the product's defaults on the trace and cluster in {@code in}, then exports the run. */
    private static void replayGreedyAndExport(Path in, Path run, Path csv) {
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
    }

    /**
     * The ANDREAS small protocol, N = 10, seed 1, replayed by greedy with the product's defaults (moves charged:
     * 600 s snapshots, 300 s restores): jobs are moved and end late. Before the step builder charged the moves as the
     * run did, jobs showed 100% a step before their end, and `cost` priced this run at 21.10 against its 29.40.
     */
    @Test
    void aRunWithMovesChargedPricesAtItsMetricsTotalLatenessIncluded() throws Exception {
        Path in = tmp.resolve("andreas"), run = tmp.resolve("charged"), csv = tmp.resolve("charged.csv");
        WorkloadCommandsTest.generate("--scenario", "andreas", "--nodes", "10", "--seed", "1", "--out", in.toString());
        replayGreedyAndExport(in, run, csv);
        JsonNode metrics =
                new ObjectMapper().readTree(run.resolve("metrics.json").toFile());
        JsonNode moveCost =
                new ObjectMapper().readTree(run.resolve("run.json").toFile()).get("moveCost");
        assertTrue(moveCost.get("restartOverheadSeconds").asDouble() > 0, moveCost.toString());
        assertTrue(moveCost.get("snapshotIntervalSeconds").asDouble() > 0, moveCost.toString());
        assertTrue(
                Files.readString(run.resolve("decisions.jsonl")).contains("\"PREEMPT\"")
                        || Files.readString(run.resolve("decisions.jsonl")).contains("\"MIGRATE\""),
                "the run moves jobs");
        double reported = metrics.get("totalCost").asDouble();
        for (Path schedule : List.of(run, csv)) {
            var t = CommonRuleCost.of(schedule);
            assertEquals(reported, t.total(), 1e-6 * reported, schedule.toString());
            assertEquals(metrics.get("tardinessCost").asDouble(), t.tardinessCost(), 1e-6 * reported);
            assertEquals(metrics.get("tardyJobs").asLong(), t.tardyJobs(), schedule.toString());
            assertEquals(0, t.unfinishedJobs(), schedule.toString());
        }
        assertTrue(metrics.get("tardyJobs").asLong() > 0, "jobs end late");
    }
}
