package org.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The experiment path end to end on the real replay (Flink mini cluster): generate the ARMIDA prototype, replay it
 * with the ANDREAS randomized greedy (with 10% noise, as on the prototype) and FIFO, audit both run directories
 * independently, and compare them in a report.
 */
class ExperimentPipelineIT {
    @TempDir
    Path tmp;

    @Test
    void generateReplayValidateReport() throws Exception {
        WorkloadCommandsTest.generate(
                "--scenario", "armida", "--out", tmp.resolve("armida").toString());
        String trace = tmp.resolve("armida/trace.jsonl").toString(),
                cluster = tmp.resolve("armida/cluster.yaml").toString();
        for (String[] run : new String[][] {{"andreas-rg", "0.1"}, {"fifo", "0"}}) {
            Path out = tmp.resolve(run[0]);
            var r = WorkloadCommandsTest.gpusched(
                    "replay",
                    "--trace",
                    trace,
                    "--cluster",
                    cluster,
                    "--policy",
                    run[0],
                    "--noise",
                    run[1],
                    "--seed",
                    "7",
                    "--out",
                    out.toString());
            assertEquals(0, r.exit(), r.err());
            var v = WorkloadCommandsTest.gpusched("validate", out.toString());
            assertEquals(0, v.exit(), run[0] + ":\n" + v.out());
            assertTrue(v.out().contains("audited") && v.out().contains("OK"));
        }
        var rep = WorkloadCommandsTest.gpusched(
                "report",
                tmp.resolve("andreas-rg").toString(),
                tmp.resolve("fifo").toString(),
                "--out",
                tmp.resolve("report").toString());
        assertEquals(0, rep.exit(), rep.err());
        String html = Files.readString(tmp.resolve("report/report.html"));
        assertEquals(
                2 + 2 + 4 + 2,
                html.split("<svg", -1).length - 1,
                "cost bars, cumulative cost, GPUs busy per run, waiting, completion time, tardiness, moves and two Gantt charts");
        assertTrue(html.contains("armida-06 GPU1"));
        assertEquals(3, Files.readAllLines(tmp.resolve("report/comparison.csv")).size());
    }
}
