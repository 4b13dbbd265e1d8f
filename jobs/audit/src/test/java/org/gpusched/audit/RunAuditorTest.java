package org.gpusched.audit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.gpusched.audit.Violation.Kind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hand-made run directories. The correct run, worked out by hand:
 * <pre>
 * n1: fixed type A (2 GPUs, 0 / 1 / 1.5 per hour); n2: rightsizable, types A or B (B: 1 GPU, 0 / 0.8 per hour)
 * j1: A{1: 7200, 2: 3600}, due 3600, weight 2     j2: A{1: 3600}, B{1: 1800}, due 1800, weight 4
 * j3: submitted at 100, A{1: 1000}, due 100000
 * t=0     j1 START n1 A x2 (rate 1/3600)          j2 START n2 B x1 (work done at 1800)
 * t=1800  j2 COMPLETE; j1 PREEMPT (half done); j3 START n1 A x1 (done at 2800); j1 START n2 A x1 (rate 1/7200)
 * t=2800  j3 COMPLETE; j1 MIGRATE n1 A x2 (done 0.5 + 1000/7200; the rest 1300 s at 1/3600) -> done at 4100
 * t=4100  j1 COMPLETE
 * cost n1: 1.5 x 0.5 h + 1 x 1000/3600 + 1.5 x 1300/3600 = 1.569444; n2: 0.8 x 0.5 + 1 x 1000/3600 = 0.677778
 * tardiness: j1 500 s late x 2/h = 0.277778; total 2.525; JCTs 4100, 1800, 2700 -> mean 2866.667; makespan 4100
 * </pre>
 */
class RunAuditorTest {
    @TempDir
    Path dir;

    static final String RUN = """
            {"policy": "hand", "seed": 1,
             "nodes": [{"id": "n1", "type": "A", "gpus": 2}, {"id": "n2", "type": null, "gpus": null, "types": ["A", "B"]}],
             "nodeTypes": {"A": {"gpus": 2, "costPerHour": [0, 1.0, 1.5]}, "B": {"gpus": 1, "costPerHour": [0, 0.8]}}}
            """;
    static final String JOBS = """
            {"id": "j1", "submit": 0, "due": 3600, "weight": 2, "times": {"A": {"1": 7200, "2": 3600}}}
            {"id": "j2", "submit": 0, "due": 1800, "weight": 4, "times": {"A": {"1": 3600}, "B": {"1": 1800}}}
            {"id": "j3", "submit": 100, "due": 100000, "weight": 1, "times": {"A": {"1": 1000}}, "actualFactor": 1.0}
            """;
    static final List<String> DECISIONS = List.of(
            "{\"time\": 0, \"job\": \"j1\", \"action\": \"START\", \"node\": \"n1\", \"type\": \"A\", \"gpus\": 2}",
            "{\"time\": 0, \"job\": \"j2\", \"action\": \"START\", \"node\": \"n2\", \"type\": \"B\", \"gpus\": 1}",
            "{\"time\": 1800, \"job\": \"j2\", \"action\": \"COMPLETE\", \"node\": \"n2\", \"type\": \"B\", \"gpus\": 1}",
            "{\"time\": 1800, \"job\": \"j3\", \"action\": \"START\", \"node\": \"n1\", \"type\": \"A\", \"gpus\": 1}",
            "{\"time\": 1800, \"job\": \"j1\", \"action\": \"PREEMPT\", \"node\": \"n1\", \"type\": \"A\", \"gpus\": 2}",
            "{\"time\": 1800, \"job\": \"j1\", \"action\": \"START\", \"node\": \"n2\", \"type\": \"A\", \"gpus\": 1}",
            "{\"time\": 2800, \"job\": \"j3\", \"action\": \"COMPLETE\", \"node\": \"n1\", \"type\": \"A\", \"gpus\": 1}",
            "{\"time\": 2800, \"job\": \"j1\", \"action\": \"MIGRATE\", \"node\": \"n1\", \"type\": \"A\", \"gpus\": 2, \"previousNode\": \"n2\"}",
            "{\"time\": 4100, \"job\": \"j1\", \"action\": \"COMPLETE\", \"node\": \"n1\", \"type\": \"A\", \"gpus\": 2}");
    static final String METRICS = """
            {"totalCost": 2.525, "executionCost": 2.2472222222, "tardinessCost": 0.2777777778, "tardyJobs": 1,
             "completedJobs": 3, "meanJctSeconds": 2866.6666667, "makespanSeconds": 4100}
            """;

    private AuditReport audit(List<String> decisions, String metrics) throws IOException {
        Files.writeString(dir.resolve("run.json"), RUN);
        Files.writeString(dir.resolve("jobs.jsonl"), JOBS);
        Files.write(dir.resolve("decisions.jsonl"), decisions);
        Files.writeString(dir.resolve("metrics.json"), metrics);
        return RunAuditor.audit(dir);
    }

    private static List<String> replace(int index, String decision) {
        List<String> d = new ArrayList<>(DECISIONS);
        d.set(index, decision);
        return d;
    }

    private static Set<Kind> kinds(AuditReport r) {
        return r.violations().stream().map(Violation::kind).collect(Collectors.toSet());
    }

    @Test
    void correctRunPassesAndCostsAreRecomputed() throws IOException {
        AuditReport r = audit(DECISIONS, METRICS);
        assertTrue(r.ok(), r.format());
        assertEquals(2.2472222222, r.recomputed().get("executionCost"), 1e-9);
        assertEquals(0.2777777778, r.recomputed().get("tardinessCost"), 1e-9);
        assertEquals(1.0, r.recomputed().get("tardyJobs"));
        assertEquals(4100, r.recomputed().get("makespanSeconds"), 1e-9);
        assertEquals(9, r.decisions());
        assertTrue(r.format().contains("OK"));
    }

    @Test
    void aPreemptedJobRestartsFromItsLastSnapshotAfterItsRestoreTime() throws IOException {
        // snapshots every 600 s, 100 s to restore. jx (A x2: 3600 s, A x1: 7200 s) runs on n1 from 0 and is preempted
        // at 1500: its snapshot at 1200 holds 1/3 of the work; on n2 (A x1) it restores until 1600, then needs
        // 2/3 x 7200 = 4800 s: done at 6400 (5700 if moves were free).
        // cost: n1 1.5 x 1500/3600 = 0.625; n2 1.0 x 4900/3600 = 1.361111
        String run = RUN.replace(
                "\"seed\": 1,",
                "\"seed\": 1, \"moveCost\": {\"snapshotIntervalSeconds\": 600, \"restartOverheadSeconds\": 100},");
        List<String> decisions = List.of(
                "{\"time\": 0, \"job\": \"jx\", \"action\": \"START\", \"node\": \"n1\", \"type\": \"A\", \"gpus\": 2}",
                "{\"time\": 1500, \"job\": \"jx\", \"action\": \"PREEMPT\", \"node\": \"n1\", \"type\": \"A\", \"gpus\": 2}",
                "{\"time\": 1500, \"job\": \"jx\", \"action\": \"START\", \"node\": \"n2\", \"type\": \"A\", \"gpus\": 1}",
                "{\"time\": 6400, \"job\": \"jx\", \"action\": \"COMPLETE\", \"node\": \"n2\", \"type\": \"A\", \"gpus\": 1}");
        String metrics = """
                {"totalCost": 1.9861111111, "executionCost": 1.9861111111, "tardinessCost": 0, "tardyJobs": 0,
                 "completedJobs": 1, "meanJctSeconds": 6400, "makespanSeconds": 6400}
                """;
        Files.writeString(
                dir.resolve("jobs.jsonl"),
                "{\"id\": \"jx\", \"submit\": 0, \"due\": 100000, \"weight\": 1, \"times\": {\"A\": {\"1\": 7200, \"2\": 3600}}}\n");
        Files.write(dir.resolve("decisions.jsonl"), decisions);
        Files.writeString(dir.resolve("metrics.json"), metrics);
        Files.writeString(dir.resolve("run.json"), run);
        AuditReport r = RunAuditor.audit(dir);
        assertTrue(r.ok(), r.format());
        assertEquals(1.9861111111, r.recomputed().get("executionCost"), 1e-9);
        // read with free moves, the same decisions complete the job 700 s late
        Files.writeString(dir.resolve("run.json"), RUN);
        AuditReport free = RunAuditor.audit(dir);
        assertTrue(free.violations().stream().anyMatch(v -> v.message().contains("late by 700.000")), free.format());
    }

    @Test
    void decisionsOfOneInstantMayComeInAnyOrder() throws IOException {
        // DECISIONS lists j3's START on n1 before j1's PREEMPT there (transiently 3 GPUs, for no time); the
        // other order must pass too.
        List<String> d = new ArrayList<>(DECISIONS);
        d.add(3, d.remove(4));
        assertTrue(d.get(3).contains("PREEMPT"));
        AuditReport r = audit(d, METRICS);
        assertTrue(r.ok(), r.format());
    }

    @Test
    void capacityExceeded() throws IOException {
        // j3 joins n1 while j1 holds both GPUs.
        List<String> d = new ArrayList<>(DECISIONS);
        d.add(
                2,
                "{\"time\": 1000, \"job\": \"j3\", \"action\": \"START\", \"node\": \"n1\", \"type\": \"A\", \"gpus\": 1}");
        AuditReport r = audit(d, METRICS);
        assertTrue(r.has(Kind.CAPACITY), r.format());
        Violation v = r.violations().stream()
                .filter(x -> x.kind() == Kind.CAPACITY)
                .findFirst()
                .orElseThrow();
        assertEquals("n1", v.node());
        assertEquals(1000, v.time());
    }

    @Test
    void jobPlacedTwice() throws IOException {
        List<String> d = new ArrayList<>(DECISIONS);
        d.add(
                1,
                "{\"time\": 0, \"job\": \"j1\", \"action\": \"START\", \"node\": \"n2\", \"type\": \"A\", \"gpus\": 1}");
        AuditReport r = audit(d, METRICS);
        assertTrue(r.has(Kind.PLACEMENT), r.format());
        assertEquals("j1", r.violations().get(0).job());
    }

    @Test
    void startBeforeSubmission() throws IOException {
        List<String> d = new ArrayList<>(DECISIONS);
        d.add(
                2,
                "{\"time\": 50, \"job\": \"j3\", \"action\": \"START\", \"node\": \"n2\", \"type\": \"B\", \"gpus\": 1}");
        AuditReport r = audit(d, METRICS);
        assertTrue(r.has(Kind.START_BEFORE_SUBMIT), r.format());
    }

    @Test
    void completionBeforeTheWorkIsDone() throws IOException {
        AuditReport r = audit(
                replace(
                        8,
                        "{\"time\": 4000, \"job\": \"j1\", \"action\": \"COMPLETE\", \"node\": \"n1\", \"type\": \"A\", \"gpus\": 2}"),
                METRICS);
        assertTrue(r.has(Kind.COMPLETION_TIME), r.format());
        assertTrue(r.violations().stream().anyMatch(v -> v.message().contains("early by 100.000")), r.format());
    }

    @Test
    void completionIgnoresActualFactorAtItsPeril() throws IOException {
        // Under noise (actualFactor 1.5) j3's real work takes 1500 s, so a COMPLETE at the predicted 2800 is early.
        Files.writeString(dir.resolve("run.json"), RUN);
        Files.writeString(dir.resolve("jobs.jsonl"), JOBS.replace("\"actualFactor\": 1.0", "\"actualFactor\": 1.5"));
        Files.write(dir.resolve("decisions.jsonl"), DECISIONS);
        Files.writeString(dir.resolve("metrics.json"), METRICS);
        AuditReport r = RunAuditor.audit(dir);
        assertTrue(
                r.violations().stream().anyMatch(v -> v.kind() == Kind.COMPLETION_TIME && "j3".equals(v.job())),
                r.format());
    }

    @Test
    void jobRunningPastItsWork() throws IOException {
        // j2's work ends at 1800 on B but it is only preempted at 2000 and never completes.
        List<String> d = new ArrayList<>(DECISIONS);
        d.set(
                2,
                "{\"time\": 2000, \"job\": \"j2\", \"action\": \"PREEMPT\", \"node\": \"n2\", \"type\": \"B\", \"gpus\": 1}");
        d.remove(5);
        d.add(
                5,
                "{\"time\": 2000, \"job\": \"j1\", \"action\": \"START\", \"node\": \"n2\", \"type\": \"A\", \"gpus\": 1}");
        d.sort((a, b) -> Double.compare(time(a), time(b)));
        AuditReport r = audit(d, METRICS);
        assertTrue(r.has(Kind.COMPLETION_TIME), r.format());
        assertTrue(r.has(Kind.INCOMPLETE), r.format());
    }

    @Test
    void jobNeverCompletes() throws IOException {
        AuditReport r = audit(DECISIONS.subList(0, 8), METRICS);
        assertTrue(r.has(Kind.INCOMPLETE), r.format());
        assertTrue(r.violations().stream()
                .anyMatch(v -> v.kind() == Kind.INCOMPLETE && "j1".equals(v.job()) && "n1".equals(v.node())));
    }

    @Test
    void fixedNodeTypeChanged() throws IOException {
        AuditReport r = audit(
                replace(
                        3,
                        "{\"time\": 1800, \"job\": \"j3\", \"action\": \"START\", \"node\": \"n1\", \"type\": \"B\", \"gpus\": 1}"),
                METRICS);
        assertTrue(r.has(Kind.NODE_TYPE), r.format());
    }

    @Test
    void jobsOnARightsizableNodeDisagreeOnItsType() throws IOException {
        List<String> d = new ArrayList<>(DECISIONS);
        d.add(
                2,
                "{\"time\": 900, \"job\": \"j3\", \"action\": \"START\", \"node\": \"n2\", \"type\": \"A\", \"gpus\": 1}");
        AuditReport r = audit(d, METRICS);
        assertTrue(r.has(Kind.NODE_TYPE), r.format());
    }

    @Test
    void configurationTheJobCannotRunOn() throws IOException {
        List<String> d = new ArrayList<>(DECISIONS);
        d.add(
                2,
                "{\"time\": 200, \"job\": \"j3\", \"action\": \"START\", \"node\": \"n1\", \"type\": \"A\", \"gpus\": 2}");
        AuditReport r = audit(d, METRICS);
        assertTrue(r.has(Kind.NO_CONFIGURATION), r.format());
    }

    @Test
    void reportedTotalsThatDisagreeWithTheDecisions() throws IOException {
        AuditReport r = audit(
                DECISIONS,
                METRICS.replace("\"totalCost\": 2.525", "\"totalCost\": 2.4")
                        .replace("\"tardyJobs\": 1", "\"tardyJobs\": 0"));
        assertTrue(r.has(Kind.METRICS), r.format());
        assertEquals(2, r.counts().get(Kind.METRICS));
        assertTrue(r.format().contains("totalCost = 2.400000 but the decisions give 2.525000"), r.format());
    }

    @Test
    void missingMetric() throws IOException {
        AuditReport r = audit(DECISIONS, METRICS.replace("\"makespanSeconds\": 4100", "\"other\": 1"));
        assertTrue(r.has(Kind.METRICS));
    }

    @Test
    void decisionsOutOfTimeOrderAndUnknownNames() throws IOException {
        List<String> d = new ArrayList<>(DECISIONS);
        d.add(
                "{\"time\": 10, \"job\": \"ghost\", \"action\": \"START\", \"node\": \"n1\", \"type\": \"A\", \"gpus\": 1}");
        d.add(
                "{\"time\": 5000, \"job\": \"j2\", \"action\": \"RESIZE\", \"node\": \"n9\", \"type\": \"A\", \"gpus\": 1}");
        AuditReport r = audit(d, METRICS);
        assertTrue(r.has(Kind.TIME_ORDER), r.format());
        assertTrue(r.has(Kind.UNKNOWN_JOB), r.format());
        assertTrue(r.has(Kind.PLACEMENT), r.format()); // RESIZE of a completed job
        assertFalse(r.ok());
    }

    @Test
    void unknownNodesAndTypesAndMalformedDecisions() throws IOException {
        List<String> d = new ArrayList<>(DECISIONS);
        d.add(
                2,
                "{\"time\": 200, \"job\": \"j3\", \"action\": \"START\", \"node\": \"n7\", \"type\": \"A\", \"gpus\": 1}");
        d.add(
                3,
                "{\"time\": 210, \"job\": \"j3\", \"action\": \"START\", \"node\": \"n1\", \"type\": \"Z\", \"gpus\": 1}");
        d.add(4, "{\"time\": 220, \"job\": \"j3\", \"action\": \"START\", \"node\": \"n2\", \"gpus\": 1}");
        d.add(
                5,
                "{\"time\": 230, \"job\": \"j3\", \"action\": \"START\", \"node\": \"n1\", \"type\": \"A\", \"gpus\": 0}");
        d.add(
                6,
                "{\"time\": 240, \"job\": \"j3\", \"action\": \"LAUNCH\", \"node\": \"n1\", \"type\": \"A\", \"gpus\": 1}");
        d.add(7, "{\"job\": \"j3\", \"action\": \"START\"}");
        AuditReport r = audit(d, METRICS);
        assertEquals(2, r.counts().get(Kind.UNKNOWN_NODE), r.format());
        assertEquals(4, r.counts().get(Kind.MALFORMED_DECISION), r.format());
        assertTrue(r.violations().stream().anyMatch(v -> v.kind() == Kind.UNKNOWN_NODE && "n7".equals(v.node())));
        assertTrue(r.violations().stream().anyMatch(v -> v.message().contains("unknown action 'LAUNCH'")));
    }

    @Test
    void rightsizableNodeLimitedToItsAllowedTypes() throws IOException {
        Files.writeString(
                dir.resolve("run.json"),
                RUN.replace(
                        "\"B\": {\"gpus\": 1, \"costPerHour\": [0, 0.8]}",
                        "\"B\": {\"gpus\": 1, \"costPerHour\": [0, 0.8]}, \"C\": {\"gpus\": 4, \"costPerHour\": [0, 1, 1, 1, 1]}"));
        Files.writeString(
                dir.resolve("jobs.jsonl"),
                JOBS.replace(
                        "\"times\": {\"A\": {\"1\": 1000}}",
                        "\"times\": {\"A\": {\"1\": 1000}, \"C\": {\"1\": 1000}}"));
        List<String> d = new ArrayList<>(DECISIONS);
        d.add(
                2,
                "{\"time\": 200, \"job\": \"j3\", \"action\": \"START\", \"node\": \"n2\", \"type\": \"C\", \"gpus\": 1}");
        d.add(
                3,
                "{\"time\": 300, \"job\": \"j3\", \"action\": \"PREEMPT\", \"node\": \"n2\", \"type\": \"C\", \"gpus\": 1}");
        Files.write(dir.resolve("decisions.jsonl"), d);
        Files.writeString(dir.resolve("metrics.json"), METRICS);
        AuditReport r = RunAuditor.audit(dir);
        assertTrue(
                r.violations().stream()
                        .anyMatch(v -> v.kind() == Kind.NODE_TYPE && v.message().contains("may not take type C")),
                r.format());
    }

    @Test
    void unreadableDirectoryNamesFileAndLine() throws IOException {
        Files.writeString(dir.resolve("run.json"), RUN);
        Files.writeString(dir.resolve("jobs.jsonl"), JOBS + "{\"id\": \"j4\", \"submit\": \"soon\"}\n");
        Files.write(dir.resolve("decisions.jsonl"), DECISIONS);
        Files.writeString(dir.resolve("metrics.json"), METRICS);
        AuditInputException e = assertThrows(AuditInputException.class, () -> RunAuditor.audit(dir));
        assertTrue(e.getMessage().contains("jobs.jsonl:4") && e.getMessage().contains("submit"), e.getMessage());
        Files.delete(dir.resolve("metrics.json"));
        Files.writeString(dir.resolve("jobs.jsonl"), JOBS);
        e = assertThrows(AuditInputException.class, () -> RunAuditor.audit(dir));
        assertTrue(e.getMessage().contains("metrics.json: missing"), e.getMessage());
    }

    private static double time(String decision) {
        String s = decision.substring(decision.indexOf(':') + 1, decision.indexOf(','));
        return Double.parseDouble(s.trim());
    }
}
