package org.gpusched.streaming;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * An independent check of a replay run directory from its files alone: replays decisions.jsonl against run.json
 * and jobs.jsonl, asserting capacity, one placement per job, no start before submission, completion exactly when
 * the real work (predicted x actualFactor) is done, and recomputes the real costs that metrics.json reports. Moves
 * cost what run.json's moveCost says: a stopped job falls back to its last snapshot, a job placed again progresses
 * only after its restore time.
 */
final class RunDirectoryCheck {
    private static final ObjectMapper JSON = new ObjectMapper();

    record Totals(double executionCost, double tardinessCost, int completed, int decisions) {}

    private static final class Running {
        String node;
        String type;
        int gpus;
        double done;
        /** When the job (re)starts progressing on its placement. */
        double progressFrom;
    }

    private RunDirectoryCheck() {}

    /** A job leaving its placement at t loses the work since its last snapshot (snapshots counted from progressFrom). */
    private static void loseSinceSnapshot(Running r, JsonNode job, double t, long snapshotMillis) {
        if (snapshotMillis == 0 || t <= r.progressFrom) return;
        double lost = Math.round((t - r.progressFrom) * 1000) % snapshotMillis / 1000.0;
        r.done = Math.max(0, r.done - lost / (time(job, r.type, r.gpus) * factor(job)));
    }

    static Totals check(Path dir) throws Exception {
        JsonNode run = JSON.readTree(dir.resolve("run.json").toFile());
        long snapshotMillis =
                Math.round(run.path("moveCost").path("snapshotIntervalSeconds").asDouble(0) * 1000);
        double restore = run.path("moveCost").path("restartOverheadSeconds").asDouble(0);
        Map<String, double[]> rates = new HashMap<>();
        Map<String, Integer> typeGpus = new HashMap<>();
        run.get("nodeTypes").fields().forEachRemaining(e -> {
            double[] r = new double[e.getValue().get("costPerHour").size()];
            for (int i = 0; i < r.length; i++)
                r[i] = e.getValue().get("costPerHour").get(i).asDouble();
            rates.put(e.getKey(), r);
            typeGpus.put(e.getKey(), e.getValue().get("gpus").asInt());
        });
        Map<String, String> nodeType = new HashMap<>();
        for (JsonNode n : run.get("nodes"))
            nodeType.put(
                    n.get("id").asText(),
                    n.get("type").isNull() ? null : n.get("type").asText());
        Map<String, JsonNode> jobs = new HashMap<>();
        for (String line : Files.readAllLines(dir.resolve("jobs.jsonl"))) {
            JsonNode j = JSON.readTree(line);
            jobs.put(j.get("id").asText(), j);
        }
        List<JsonNode> decisions = new ArrayList<>();
        for (String line : Files.readAllLines(dir.resolve("decisions.jsonl"))) decisions.add(JSON.readTree(line));

        Map<String, Running> running = new HashMap<>();
        Map<String, Double> waitingDone = new HashMap<>();
        double execution = 0;
        double tardiness = 0;
        int completed = 0;
        double last = Double.NEGATIVE_INFINITY;
        for (int i = 0; i < decisions.size(); i++) {
            JsonNode d = decisions.get(i);
            double t = d.get("time").asDouble();
            assertTrue(t >= last, "decisions in time order at line " + (i + 1));
            if (t > last && last > Double.NEGATIVE_INFINITY) {
                double dt = t - last;
                Map<String, Integer> busy = new HashMap<>();
                Map<String, String> typeOn = new HashMap<>();
                for (Map.Entry<String, Running> e : running.entrySet()) {
                    Running r = e.getValue();
                    busy.merge(r.node, r.gpus, Integer::sum);
                    typeOn.put(r.node, r.type);
                    double progressing = Math.max(0, t - Math.max(last, r.progressFrom));
                    r.done += progressing / (time(jobs.get(e.getKey()), r.type, r.gpus) * factor(jobs.get(e.getKey())));
                }
                for (Map.Entry<String, Integer> b : busy.entrySet())
                    execution += rates.get(typeOn.get(b.getKey()))[b.getValue()] * dt / 3600;
            }
            last = t;
            String id = d.get("job").asText();
            JsonNode job = jobs.get(id);
            assertNotNull(job, "decision for a job not in jobs.jsonl: " + id);
            String action = d.get("action").asText();
            Running r = running.get(id);
            switch (action) {
                case "START" -> {
                    assertNull(r, id + " started twice at " + t);
                    assertTrue(t >= job.get("submit").asDouble(), id + " starts before its submission");
                    r = new Running();
                    r.done = waitingDone.getOrDefault(id, 0.0);
                    r.progressFrom = waitingDone.containsKey(id) ? t + restore : t;
                    place(r, d, nodeType);
                    running.put(id, r);
                }
                case "RESIZE", "MIGRATE" -> {
                    assertNotNull(r, id + " " + action + " while not running at " + t);
                    if (action.equals("RESIZE"))
                        assertEquals(r.node, d.get("node").asText());
                    loseSinceSnapshot(r, job, t, snapshotMillis);
                    r.progressFrom = t + restore;
                    place(r, d, nodeType);
                }
                case "PREEMPT" -> {
                    assertNotNull(r, id + " preempted while not running at " + t);
                    loseSinceSnapshot(r, job, t, snapshotMillis);
                    waitingDone.put(id, r.done);
                    running.remove(id);
                }
                case "COMPLETE" -> {
                    assertNotNull(r, id + " completes while not running at " + t);
                    double slack = 0.002 / (time(job, r.type, r.gpus) * factor(job)); // ms rounding of the timers
                    assertEquals(1.0, r.done, slack * 4, id + " completes at " + t + " with done fraction " + r.done);
                    tardiness += job.get("weight").asDouble()
                            * Math.max(0, t - job.get("due").asDouble())
                            / 3600;
                    running.remove(id);
                    completed++;
                }
                default -> throw new AssertionError("unknown action " + action);
            }
            if (i + 1 == decisions.size() || decisions.get(i + 1).get("time").asDouble() > t) {
                Map<String, Integer> busy = new HashMap<>();
                Map<String, String> typeOn = new HashMap<>();
                for (Running x : running.values()) {
                    busy.merge(x.node, x.gpus, Integer::sum);
                    String previous = typeOn.put(x.node, x.type);
                    assertTrue(
                            previous == null || previous.equals(x.type),
                            "node " + x.node + " runs as two types at " + t);
                }
                for (Map.Entry<String, Integer> b : busy.entrySet()) {
                    assertTrue(
                            b.getValue() <= typeGpus.get(typeOn.get(b.getKey())),
                            "node " + b.getKey() + " over capacity at " + t);
                }
            }
        }
        assertTrue(running.isEmpty(), "jobs still running at the end: " + running.keySet());
        return new Totals(execution, tardiness, completed, decisions.size());
    }

    private static void place(Running r, JsonNode d, Map<String, String> nodeType) {
        r.node = d.get("node").asText();
        r.type = d.get("type").asText();
        r.gpus = d.get("gpus").asInt();
        String fixed = nodeType.get(r.node);
        assertTrue(
                fixed == null || fixed.equals(r.type),
                "node " + r.node + " is fixed " + fixed + " but runs as " + r.type);
    }

    private static double time(JsonNode job, String type, int gpus) {
        JsonNode t = job.get("times").path(type).get(Integer.toString(gpus));
        assertNotNull(t, job.get("id").asText() + " has no time on " + type + "x" + gpus);
        return t.asDouble();
    }

    private static double factor(JsonNode job) {
        return job.path("actualFactor").asDouble(1.0);
    }
}
