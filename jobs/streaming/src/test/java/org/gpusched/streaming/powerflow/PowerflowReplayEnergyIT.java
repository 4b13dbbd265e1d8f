package org.gpusched.streaming.powerflow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.gpusched.audit.AuditReport;
import org.gpusched.audit.PowerflowEnergyAudit;
import org.gpusched.audit.Violation;
import org.gpusched.powerflow.sim.RandomTraceSampler;
import org.gpusched.powerflow.sim.TraceFiles;
import org.gpusched.powerflow.sim.TraceJob;
import org.gpusched.powerflow.truth.GroundTruth;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * End to end: the streaming powerflow replay ({@link PowerflowPipeline} with the simulated cluster, on a Flink mini
 * cluster over files) writes its energy and JCT accounting ({@link PowerflowRunDirectory}), and the independent audit
 * of {@code gpusched validate} recomputes it from the decisions and the ground truth: clean as written, and a tampered
 * job energy, total, finish time or decision is caught, naming the job or the field.
 */
class PowerflowReplayEnergyIT {
    private static final PowerflowEnergyAudit.Tolerances TOL = new PowerflowEnergyAudit.Tolerances(0.01, 1e-6);
    private static final String RUN = "powerflow@eta0.50";

    @TempDir
    static Path tmp;

    static Path run;
    static PowerflowRunDirectory.Written written;
    static TraceJob shortJob;

    @BeforeAll
    static void replay() throws Exception {
        GroundTruth truth = GroundTruth.defaults();
        List<TraceJob> jobs =
                new ArrayList<>(RandomTraceSampler.sample(10, 900, RandomTraceSampler.JobSize.MEDIUM, 5, truth));
        String workload = truth.config().workloads().get(0).name();
        double[] batches = truth.measuredBatches(workload);
        // shorter than its profiling pre-run: the pre-run makes no progress, so its 3 iterations run on the cluster
        // after
        shortJob = new TraceJob(99, 300.5, workload, batches[batches.length - 1], 1, 3);
        jobs.add(shortJob);
        Path trace = tmp.resolve("trace.jsonl");
        TraceFiles.write(trace, jobs);
        Files.writeString(trace, "{\"id\": 7, \"submit\": \n", java.nio.file.StandardOpenOption.APPEND);
        run = tmp.resolve("run");
        written = PowerflowTestData.replay(trace, PowerflowTestData.replaySettings(0.5, 16, 5), run);
    }

    @Test
    void theReplayWritesItsAccountingAndItAuditsClean() throws Exception {
        assertNotNull(written.run(), written.noAccounting());
        assertEquals(1, written.lines().get(PowerflowFiles.REJECTED));
        assertEquals(11, written.run().jobs());
        assertEquals(11, written.lines().get(PowerflowFiles.JOB_ENERGY));
        assertTrue(written.run().energyKWh() > written.run().idleKWh()
                && written.run().idleKWh() >= 0);
        for (String f : List.of(
                "results.csv",
                "summary.txt",
                "jobs-" + RUN + ".csv",
                "power-" + RUN + ".csv",
                "decisions-" + RUN + ".csv",
                "setup.json",
                "powerflow.yaml",
                "trace.jsonl",
                "power.jsonl")) assertTrue(Files.isRegularFile(run.resolve(f)), f);
        List<String> jobsCsv = Files.readAllLines(run.resolve("jobs-" + RUN + ".csv"));
        String shortRow =
                jobsCsv.stream().filter(l -> l.startsWith("99,")).findFirst().orElseThrow();
        double finish = Double.parseDouble(shortRow.split(",")[3]);
        List<String> starts = Files.readAllLines(run.resolve("decisions-" + RUN + ".csv")).stream()
                .filter(l -> l.contains(",99,"))
                .toList();
        assertFalse(starts.isEmpty(), "the short job runs on the cluster after its pre-run");
        assertEquals(300.5 + 7 * 30, Double.parseDouble(starts.get(0).split(",")[0]), 0.002, "it starts when ready");
        assertTrue(finish > 300.5 + 7 * 30, "its pre-run did none of its work: " + finish);

        Map<String, AuditReport> reports = PowerflowEnergyAudit.audit(run, TOL);
        assertEquals(List.of(RUN), List.copyOf(reports.keySet()));
        AuditReport r = reports.get(RUN);
        assertTrue(r.ok(), r.format());
        assertEquals(11.0, r.recomputed().get("completedJobs"));
        assertEquals(
                written.run().energyKWh(),
                r.recomputed().get("energyKWh"),
                1e-6 * written.run().energyKWh());
        assertEquals(
                written.run().idleKWh(),
                r.recomputed().get("idleKWh"),
                1e-6 + 1e-6 * written.run().idleKWh());
    }

    @Test
    void aTamperedJobEnergyIsCaughtNamingTheJob() throws Exception {
        Path copy = copyOf("job-energy");
        String job =
                edit(copy.resolve("jobs-" + RUN + ".csv"), 2, 5, e -> String.valueOf(Double.parseDouble(e) * 0.99));
        AuditReport r = PowerflowEnergyAudit.audit(copy, TOL).get(RUN);
        assertFalse(r.ok());
        Violation v = r.violations().stream()
                .filter(x -> x.kind() == Violation.Kind.METRICS)
                .findFirst()
                .orElseThrow(() -> new AssertionError(r.format()));
        assertEquals(job, v.job(), r.format());
        assertTrue(v.message().contains("reported energy"), v.message());
    }

    @Test
    void aTamperedTotalOrFinishIsCaughtNamingTheField() throws Exception {
        Path copy = copyOf("total");
        edit(copy.resolve("results.csv"), 1, 5, e -> String.valueOf(Double.parseDouble(e) * 0.98));
        String job = edit(copy.resolve("jobs-" + RUN + ".csv"), 1, 3, t -> String.valueOf(Double.parseDouble(t) - 60));
        AuditReport r = PowerflowEnergyAudit.audit(copy, TOL).get(RUN);
        assertTrue(r.violations().stream().anyMatch(v -> v.message().startsWith("energyKWh: reported")), r.format());
        assertTrue(
                r.violations().stream()
                        .anyMatch(v -> v.kind() == Violation.Kind.COMPLETION_TIME && job.equals(v.job())),
                r.format());
    }

    @Test
    void aDecisionMovedToAnotherPowerLimitIsCaughtInTheEnergy() throws Exception {
        Path copy = copyOf("limit");
        edit(copy.resolve("decisions-" + RUN + ".csv"), 1, 3, w -> Double.parseDouble(w) == 100.0 ? "250.0" : "100.0");
        AuditReport r = PowerflowEnergyAudit.audit(copy, TOL).get(RUN);
        assertTrue(r.has(Violation.Kind.METRICS), r.format());
    }

    /** Replaces one CSV cell (line {@code line}, 0 = header) by {@code change} of it; the line's first cell. */
    private static String edit(Path csv, int line, int column, UnaryOperator<String> change) throws Exception {
        List<String> lines = new ArrayList<>(Files.readAllLines(csv));
        String[] cells = lines.get(line).split(",", -1);
        cells[column] = change.apply(cells[column]);
        lines.set(line, String.join(",", cells));
        Files.write(csv, lines);
        return cells[0];
    }

    /** A copy of the replay's run directory to tamper with. */
    private static Path copyOf(String name) throws Exception {
        Path copy = Files.createDirectories(tmp.resolve(name));
        try (var files = Files.list(run)) {
            for (Path p : files.toList()) Files.copy(p, copy.resolve(p.getFileName()));
        }
        return copy;
    }
}
