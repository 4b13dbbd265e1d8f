package org.gpusched.audit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.gpusched.powerflow.policy.PowerFlowPolicy;
import org.gpusched.powerflow.policy.TimeSlicing;
import org.gpusched.powerflow.sim.Experiment;
import org.gpusched.powerflow.sim.PolicySet;
import org.gpusched.powerflow.sim.RandomTraceSampler;
import org.gpusched.powerflow.sim.TraceJob;
import org.gpusched.powerflow.truth.GroundTruth;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PowerflowEnergyAuditTest {
    private static final PowerflowEnergyAudit.Tolerances TOL = new PowerflowEnergyAudit.Tolerances(0.01, 1e-6);

    @TempDir
    static Path tmp;

    static Path run;

    @BeforeAll
    static void simulate() throws Exception {
        GroundTruth truth = GroundTruth.defaults();
        List<TraceJob> trace = RandomTraceSampler.sample(12, 900, RandomTraceSampler.JobSize.MEDIUM, 3, truth);
        run = tmp.resolve("run");
        Experiment.run(
                truth,
                trace,
                16,
                3,
                PolicySet.expand(List.of("powerflow", "tiresias", "gandiva+zeus"), List.of(0.3, 1.0), List.of(150.0)),
                run,
                null);
    }

    @Test
    void aSimulatedRunAuditsCleanAndItsEnergyIsRecomputed() {
        Map<String, AuditReport> reports = PowerflowEnergyAudit.audit(run, TOL);
        assertEquals(
                List.of("powerflow@eta0.30", "powerflow@eta1.00", "tiresias@150", "gandiva+zeus"),
                List.copyOf(reports.keySet()));
        for (var e : reports.entrySet()) {
            assertTrue(e.getValue().ok(), e.getKey() + "\n" + e.getValue().format());
            assertEquals(12.0, e.getValue().recomputed().get("completedJobs"));
            assertTrue(e.getValue().recomputed().get("energyKWh") > 0);
        }
    }

    /**
     * The simulated cluster runs on a millisecond grid: a job whose work ends 0.4 ms after another job's completion
     * completes one millisecond later, and until then it still draws power. The audit must not end it early at the
     * other job's event (its remaining work, 0.4 ms of 1,000 s, is within a relative 1e-6 of the job).
     */
    @Test
    void aJobEndingWithinAMillisecondAfterAnotherEventStillDrawsPowerThere() throws Exception {
        GroundTruth truth = GroundTruth.defaults();
        double step = truth.at("resnet50", 1, 256, 250).stepTime();
        List<TraceJob> trace = List.of(
                new TraceJob(1, 0, "resnet50", 256, 1, 100 / step),
                new TraceJob(2, 0, "resnet50", 256, 1, 1000 / step),
                new TraceJob(3, 0, "resnet50", 256, 1, 1000.0004 / step));
        Path dir = tmp.resolve("millisecond");
        Experiment.run(truth, trace, 8, 1, PolicySet.expand(List.of("tiresias"), List.of(), List.of(250.0)), dir, null);
        AuditReport r = PowerflowEnergyAudit.audit(dir, TOL).get("tiresias@250");
        assertTrue(r.ok(), r.format());
    }

    /**
     * Gandiva time-sliced: each resume after a suspension holds the job's GPUs for the overhead without progress. The
     * run audits clean with its setup.json, and a setup.json without the time-slicing (no overhead charged) is caught:
     * the resumed jobs' work would have been done before they completed.
     */
    @Test
    void aTimeSlicedRunAuditsCleanAndItsResumeOverheadIsChecked() throws Exception {
        GroundTruth truth = GroundTruth.defaults();
        double step = truth.at("resnet50", 8, 256, 250).stepTime();
        List<TraceJob> trace = List.of(
                new TraceJob(1, 0, "resnet50", 256, 8, 150 / step),
                new TraceJob(2, 0, "resnet50", 256, 8, 150 / step),
                new TraceJob(3, 30, "resnet50", 256, 8, 100 / step));
        Path dir = tmp.resolve("sliced");
        Experiment.run(
                truth,
                trace,
                8,
                1,
                PolicySet.expand(
                        List.of("gandiva", "gandiva+zeus"),
                        List.of(),
                        List.of(250.0),
                        PowerFlowPolicy.Normalizer.CLUSTER,
                        PowerFlowPolicy.BudgetCheck.NODE_BOUNDARY,
                        PowerFlowPolicy.StartLimit.EFFICIENT,
                        new TimeSlicing(60, 5)),
                dir,
                null);
        assertTrue(Files.readString(dir.resolve("setup.json")).contains("\"resumeSeconds\":5.0"));
        for (var e : PowerflowEnergyAudit.audit(dir, TOL).entrySet())
            assertTrue(e.getValue().ok(), e.getKey() + "\n" + e.getValue().format());
        Path setup = dir.resolve("setup.json");
        Files.writeString(setup, Files.readString(setup).replaceAll(",\"timeSlicing\":\\{.*\\}\\}", "}"));
        assertFalse(Files.readString(setup).contains("timeSlicing"), Files.readString(setup));
        AuditReport r = PowerflowEnergyAudit.audit(dir, TOL).get("gandiva@250");
        assertTrue(r.has(Violation.Kind.COMPLETION_TIME), r.format());
    }

    @Test
    void aDecisionAtAnotherPowerLimitIsCaughtInTheEnergy() throws Exception {
        Path copy = copyOf("limit");
        Path decisions = copy.resolve("decisions-tiresias@150.csv");
        List<String> lines = new ArrayList<>(Files.readAllLines(decisions));
        for (int i = 1; i < lines.size(); i++)
            if (lines.get(i).endsWith(",150.0")) {
                lines.set(i, lines.get(i).replace(",150.0", ",250.0"));
                break;
            }
        Files.write(decisions, lines);
        AuditReport r = PowerflowEnergyAudit.audit(copy, TOL).get("tiresias@150");
        assertFalse(r.ok());
        assertTrue(r.has(Violation.Kind.METRICS), r.format());
        assertTrue(
                PowerflowEnergyAudit.audit(copy, TOL).get("powerflow@eta0.30").ok());
    }

    @Test
    void aReportedTotalThatDisagreesIsAViolation() throws Exception {
        Path copy = copyOf("total");
        Path results = copy.resolve("results.csv");
        List<String> lines = new ArrayList<>(Files.readAllLines(results));
        String[] f = lines.get(1).split(",", -1);
        f[5] = String.valueOf(Double.parseDouble(f[5]) * 1.01);
        lines.set(1, String.join(",", f));
        Files.write(results, lines);
        AuditReport r = PowerflowEnergyAudit.audit(copy, TOL).get("powerflow@eta0.30");
        assertTrue(r.has(Violation.Kind.METRICS), r.format());
    }

    @Test
    void aMissingDecisionFileIsAnInputErrorNamingIt() throws Exception {
        Path copy = copyOf("missing");
        Files.delete(copy.resolve("decisions-tiresias@150.csv"));
        AuditInputException e = assertThrows(AuditInputException.class, () -> PowerflowEnergyAudit.audit(copy, TOL));
        assertTrue(e.getMessage().contains("decisions-tiresias@150.csv"), e.getMessage());
    }

    private static Path copyOf(String name) throws Exception {
        Path copy = tmp.resolve(name);
        Files.createDirectories(copy);
        try (var files = Files.list(run)) {
            for (Path p : files.toList()) Files.copy(p, copy.resolve(p.getFileName()));
        }
        return copy;
    }
}
