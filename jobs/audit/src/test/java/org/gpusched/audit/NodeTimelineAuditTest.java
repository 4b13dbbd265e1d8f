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
import org.gpusched.audit.Violation.Kind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A run whose cluster changes (node-events.jsonl), worked out by hand:
 * <pre>
 * run.json: n1 fixed A (2 GPUs, 0 / 1 / 1.5 per hour); types B (1 GPU, 0 / 0.8 per hour)
 * node events: 0 ADDED n9 as B; 1000 FAILED n1; 1500 TYPE_CHANGED n9 to A; 2000 ADDED n1 as A (back)
 * ja: A{1: 3600}, B{1: 1800}      jb: A{1: 2000}      both submitted at 0, due 100000
 * t=0     ja START n9 B x1 (rate 1/1800)     jb START n1 A x1 (rate 1/2000)
 * t=1000  jb PREEMPT (n1 failed; half done)
 * t=1500  ja PREEMPT (n9 retyped; 1500/1800 done), ja START n9 A x1: the last 600 s at 1/3600 -> done at 2100
 * t=2000  jb START n1 A x1: 1000 s left -> done at 3000
 * cost n9: 0.8 x 1500/3600 + 1 x 600/3600 = 0.5; n1: 1 x 1000/3600 x 2 = 0.555556; no tardiness
 * </pre>
 */
class NodeTimelineAuditTest {
    @TempDir
    Path dir;

    static final String RUN = """
            {"nodes": [{"id": "n1", "type": "A", "gpus": 2}],
             "nodeTypes": {"A": {"gpus": 2, "costPerHour": [0, 1.0, 1.5]}, "B": {"gpus": 1, "costPerHour": [0, 0.8]}}}
            """;
    static final String JOBS = """
            {"id": "ja", "submit": 0, "due": 100000, "weight": 1, "times": {"A": {"1": 3600}, "B": {"1": 1800}}}
            {"id": "jb", "submit": 0, "due": 100000, "weight": 1, "times": {"A": {"1": 2000}}}
            """;
    static final List<String> EVENTS = List.of(
            "{\"time\": 0, \"node\": \"n9\", \"kind\": \"ADDED\", \"type\": \"B\", \"allowedTypes\": []}",
            "{\"time\": 1000, \"node\": \"n1\", \"kind\": \"FAILED\", \"type\": null, \"allowedTypes\": []}",
            "{\"time\": 1500, \"node\": \"n9\", \"kind\": \"TYPE_CHANGED\", \"type\": \"A\", \"allowedTypes\": []}",
            "{\"time\": 2000, \"node\": \"n1\", \"kind\": \"ADDED\", \"type\": \"A\", \"allowedTypes\": []}");
    static final List<String> DECISIONS = List.of(
            "{\"time\": 0, \"job\": \"ja\", \"action\": \"START\", \"node\": \"n9\", \"type\": \"B\", \"gpus\": 1}",
            "{\"time\": 0, \"job\": \"jb\", \"action\": \"START\", \"node\": \"n1\", \"type\": \"A\", \"gpus\": 1}",
            "{\"time\": 1000, \"job\": \"jb\", \"action\": \"PREEMPT\", \"node\": \"n1\", \"type\": \"A\", \"gpus\": 1}",
            "{\"time\": 1500, \"job\": \"ja\", \"action\": \"PREEMPT\", \"node\": \"n9\", \"type\": \"B\", \"gpus\": 1}",
            "{\"time\": 1500, \"job\": \"ja\", \"action\": \"START\", \"node\": \"n9\", \"type\": \"A\", \"gpus\": 1}",
            "{\"time\": 2000, \"job\": \"jb\", \"action\": \"START\", \"node\": \"n1\", \"type\": \"A\", \"gpus\": 1}",
            "{\"time\": 2100, \"job\": \"ja\", \"action\": \"COMPLETE\", \"node\": \"n9\", \"type\": \"A\", \"gpus\": 1}",
            "{\"time\": 3000, \"job\": \"jb\", \"action\": \"COMPLETE\", \"node\": \"n1\", \"type\": \"A\", \"gpus\": 1}");
    static final String METRICS = """
            {"totalCost": 1.0555555556, "executionCost": 1.0555555556, "tardinessCost": 0, "tardyJobs": 0,
             "completedJobs": 2, "meanJctSeconds": 2550, "makespanSeconds": 3000}
            """;

    private AuditReport audit(List<String> events, List<String> decisions) throws IOException {
        Files.writeString(dir.resolve("run.json"), RUN);
        Files.writeString(dir.resolve("jobs.jsonl"), JOBS);
        if (events != null) Files.write(dir.resolve("node-events.jsonl"), events);
        Files.write(dir.resolve("decisions.jsonl"), decisions);
        Files.writeString(dir.resolve("metrics.json"), METRICS);
        return RunAuditor.audit(dir);
    }

    private static List<String> with(List<String> lines, int index, String line) {
        List<String> l = new ArrayList<>(lines);
        if (line == null) l.remove(index);
        else l.set(index, line);
        return l;
    }

    @Test
    void nodesAddedRetypedFailedAndBackAtTheirTimesPass() throws IOException {
        AuditReport r = audit(EVENTS, DECISIONS);
        assertTrue(r.ok(), r.format());
        assertEquals(1.0555555556, r.recomputed().get("executionCost"), 1e-9);
        assertEquals(2, r.nodes());
    }

    @Test
    void withoutTheTimelineTheAddedNodeIsUnknown() throws IOException {
        AuditReport r = audit(null, DECISIONS);
        assertTrue(r.has(Kind.UNKNOWN_NODE), r.format());
    }

    @Test
    void aDecisionOnANodeBeforeItIsAddedFails() throws IOException {
        AuditReport r = audit(
                with(EVENTS, 0, "{\"time\": 500, \"node\": \"n9\", \"kind\": \"ADDED\", \"type\": \"B\"}"), DECISIONS);
        assertFalse(r.ok());
        Violation v = r.violations().stream()
                .filter(x -> x.kind() == Kind.NODE_ABSENT)
                .findFirst()
                .orElseThrow(() -> new AssertionError(r.format()));
        assertEquals("ja", v.job());
        assertEquals(0, v.time());
        assertTrue(v.message().contains("added only at 500.000"), v.message());
        assertEquals(1, r.counts().get(Kind.NODE_ABSENT), r.format());
    }

    @Test
    void aJobLeftOnAFailedNodeFails() throws IOException {
        // jb keeps running on n1 after it failed at 1000 (and "starts" again at 2000)
        AuditReport r = audit(EVENTS, with(DECISIONS, 2, null));
        Violation v = r.violations().stream()
                .filter(x -> x.kind() == Kind.NODE_ABSENT)
                .findFirst()
                .orElseThrow(() -> new AssertionError(r.format()));
        assertEquals("jb", v.job());
        assertEquals(1000, v.time());
        assertTrue(v.message().contains("failed at 1000.000"), v.message());
    }

    @Test
    void aStartOnAFailedNodeFails() throws IOException {
        List<String> d = with(
                DECISIONS,
                5,
                "{\"time\": 1600, \"job\": \"jb\", \"action\": \"START\", \"node\": \"n1\", \"type\": \"A\", \"gpus\": 1}");
        AuditReport r = audit(EVENTS, d);
        assertTrue(
                r.violations().stream()
                        .anyMatch(v -> v.kind() == Kind.NODE_ABSENT && v.time() == 1600 && "jb".equals(v.job())),
                r.format());
    }

    @Test
    void aJobLeftAsTheOldTypeOnARetypedNodeFails() throws IOException {
        // ja stays on n9 as B after n9 became an A at 1500 (and is then completed when its B work is done)
        List<String> d = new ArrayList<>(DECISIONS);
        d.remove(4);
        d.remove(3);
        d.set(
                d.size() - 2,
                "{\"time\": 1800, \"job\": \"ja\", \"action\": \"COMPLETE\", \"node\": \"n9\", \"type\": \"B\", \"gpus\": 1}");
        d.sort(java.util.Comparator.comparingDouble(NodeTimelineAuditTest::time));
        AuditReport r = audit(EVENTS, d);
        Violation v = r.violations().stream()
                .filter(x -> x.kind() == Kind.NODE_TYPE)
                .findFirst()
                .orElseThrow(() -> new AssertionError(r.format()));
        assertEquals("ja", v.job());
        assertEquals(1500, v.time());
    }

    @Test
    void aRemovedNodeTakesNoJobs() throws IOException {
        List<String> events = new ArrayList<>(EVENTS);
        events.add(3, "{\"time\": 1700, \"node\": \"n9\", \"kind\": \"REMOVED\"}");
        AuditReport r = audit(events, DECISIONS); // ja still runs on n9 from 1700 to 2100
        assertTrue(
                r.violations().stream()
                        .anyMatch(v -> v.kind() == Kind.NODE_ABSENT
                                && v.time() == 1700
                                && v.message().contains("removed at 1700.000")),
                r.format());
    }

    @Test
    void anUnreadableTimelineNamesFileAndLine() throws IOException {
        AuditInputException e = assertThrows(
                AuditInputException.class,
                () -> audit(
                        with(
                                EVENTS,
                                2,
                                "{\"time\": 1500, \"node\": \"n9\", \"kind\": \"TYPE_CHANGED\", \"type\": \"Z\"}"),
                        DECISIONS));
        assertTrue(
                e.getMessage().contains("node-events.jsonl:3") && e.getMessage().contains("'Z'"), e.getMessage());
        e = assertThrows(
                AuditInputException.class,
                () -> audit(
                        with(EVENTS, 3, "{\"time\": 10, \"node\": \"n1\", \"kind\": \"ADDED\", \"type\": \"A\"}"),
                        DECISIONS));
        assertTrue(e.getMessage().contains("node-events.jsonl:4: time goes back"), e.getMessage());
    }

    private static double time(String decision) {
        String s = decision.substring(decision.indexOf(':') + 1, decision.indexOf(','));
        return Double.parseDouble(s.trim());
    }
}
