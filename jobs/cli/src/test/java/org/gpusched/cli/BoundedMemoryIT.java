package org.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * validate and report read a run directory in memory that does not grow with the run's execution times: a
 * 20,000-job run (about 45 configurations a job, 13 MB of jobs.jsonl) is audited and reported with a 32 MB heap,
 * where reading every job's times into maps took more than 48 MB. The replay says when it writes the run directory.
 * docs/cli.md#memory has the measured figures of a million-job run.
 */
class BoundedMemoryIT {
    @TempDir
    static Path tmp;

    private static Path run;
    private static WorkloadCommandsTest.Run replay;

    @BeforeAll
    static void replayTwentyThousandJobs() {
        WorkloadCommandsTest.generate(
                "--scenario",
                "hierarchical",
                "--nodes",
                "100",
                "--jobs",
                "20000",
                "--out",
                tmp.resolve("h").toString());
        run = tmp.resolve("fifo");
        replay = WorkloadCommandsTest.gpusched(
                "replay",
                "--trace",
                tmp.resolve("h/trace.jsonl").toString(),
                "--cluster",
                tmp.resolve("h/cluster.yaml").toString(),
                "--policy",
                "fifo",
                "--out",
                run.toString());
        assertEquals(0, replay.exit(), replay.err());
    }

    @Test
    void theReplaySaysWhileItWritesTheRunDirectory() {
        assertTrue(
                replay.err().contains("replay: writing the run directory " + run + " from ")
                        && replay.err().contains("replay: wrote the run directory in "),
                replay.err());
    }

    @Test
    void validateAndReportFitInASmallHeap() throws Exception {
        Path log = tmp.resolve("validate.log");
        Process validate = RunDirectoryIT.launchWithHeap(log, "32m", "validate", run.toString());
        assertTrue(validate.waitFor(300, TimeUnit.SECONDS));
        assertEquals(0, validate.exitValue(), Files.readString(log));
        assertTrue(Files.readString(log).contains("OK: no violation"), Files.readString(log));

        Path reportLog = tmp.resolve("report.log");
        Process report = RunDirectoryIT.launchWithHeap(
                reportLog,
                "32m",
                "report",
                run.toString(),
                "--out",
                tmp.resolve("rep").toString());
        assertTrue(report.waitFor(300, TimeUnit.SECONDS));
        assertEquals(0, report.exitValue(), Files.readString(reportLog));
        assertTrue(Files.readString(tmp.resolve("rep/report.html")).contains("<svg"));
    }
}
