package org.gpusched.audit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The live PowerFlow run's energies recomputed from the telemetry received and the decisions, by hand: a job profiles
 * (100 W over 0-30 s), starts at 30 s, runs (400 W over 30-70 s), is preempted at 70 s, reports while it waits (not
 * counted), starts again at 100 s, runs (300 W over 100-130 s; two samples of that time count as their mean) and
 * completes at 130 s: 3,000 + 16,000 + 9,000 J.
 */
class PowerflowTelemetryAuditTest {
    @TempDir
    Path dir;

    private static String sample(double time, double watts) {
        return "{\"time\":" + time + ",\"kind\":\"JOB_PROGRESS\",\"job\":\"j\",\"iterationsDone\":0.0,"
                + "\"stepSeconds\":0.5,\"gpuPowerWatts\":" + watts + ",\"gpus\":2,\"powerLimitWatts\":250.0,"
                + "\"localBatch\":64.0}";
    }

    private static String decision(double time, String action, int gpus) {
        return "{\"time\":" + time + ",\"job\":\"j\",\"action\":\"" + action + "\",\"gpus\":" + gpus + ",\"seq\":0}";
    }

    private void write(double reported) throws Exception {
        Files.writeString(dir.resolve("live.json"), "{\"eta\":0.5}");
        Files.write(
                dir.resolve("telemetry.jsonl"),
                List.of(sample(30, 100), sample(70, 400), sample(90, 999), sample(130, 200), sample(130, 400)));
        Files.write(
                dir.resolve("decisions.jsonl"),
                List.of(
                        decision(30, "START", 2),
                        decision(70, "PREEMPT", 2),
                        decision(100, "START", 2),
                        decision(130, "COMPLETE", 2)));
        Files.writeString(
                dir.resolve("job-energy.jsonl"),
                "{\"time\":130.0,\"job\":\"j\",\"workload\":\"resnet50\",\"submit\":0.0,\"jctSeconds\":130.0,"
                        + "\"energyJoules\":" + reported + ",\"seq\":4,\"fromTelemetry\":true}\n");
    }

    @Test
    void theReportedEnergyIsRecomputedFromTheTelemetryAndTheDecisions() throws Exception {
        write(3000 + 16000 + 9000);
        assertTrue(PowerflowTelemetryAudit.isRunDirectory(dir));
        AuditReport r = PowerflowTelemetryAudit.audit(dir, 1e-6, 0.01);
        assertTrue(r.ok(), r.format());
        assertEquals(28000 / 3.6e6, r.recomputed().get("energyKWh"), 1e-12);
    }

    @Test
    void anEnergyOneInAThousandOffIsAFindingNamingTheJob() throws Exception {
        write(28000 * 1.001);
        AuditReport r = PowerflowTelemetryAudit.audit(dir, 1e-6, 0.01);
        assertFalse(r.ok());
        assertTrue(r.has(Violation.Kind.METRICS));
        assertTrue(r.format().contains("recomputed 28000.0"), r.format());
        assertEquals("j", r.violations().get(0).job());
    }

    @Test
    void aMissingFieldIsAnInputErrorWithItsLine() throws Exception {
        write(28000);
        Files.write(
                dir.resolve("telemetry.jsonl"),
                List.of(sample(30, 100), "{\"job\":\"j\",\"gpuPowerWatts\":1,\"stepSeconds\":1}"));
        AuditInputException e =
                assertThrows(AuditInputException.class, () -> PowerflowTelemetryAudit.audit(dir, 1e-6, 0.01));
        assertTrue(e.getMessage().contains("telemetry.jsonl:2: field 'time'"), e.getMessage());
    }
}
