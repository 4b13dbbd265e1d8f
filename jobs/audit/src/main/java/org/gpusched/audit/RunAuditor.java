package org.gpusched.audit;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.gpusched.audit.RunFiles.JobSpec;
import org.gpusched.audit.RunFiles.NodeChange;
import org.gpusched.audit.RunFiles.NodeSlot;
import org.gpusched.audit.RunFiles.NodeType;
import org.gpusched.audit.Violation.Kind;
import org.gpusched.rundir.JsonLines;

/**
 * Audits a run directory from its files alone. It replays {@code decisions.jsonl} in order, holding for every job
 * its placement and the fraction of work done (integrated over each placement at rate 1 / (times[type][gpus] x
 * actualFactor)), and for every node its running jobs and accrued cost; then it recomputes the real cost
 * (node: costPerHour[type][busy GPUs] while at least one job runs; job: weight x hours late) and compares it with
 * {@code metrics.json}. Decisions at the same time are applied together: capacity and node-type agreement are
 * checked once the whole instant is applied, so "preempt A, start B" listed in either order is fine. Moves cost what
 * run.json's {@code moveCost} says: a job PREEMPTed, MIGRATEd or RESIZEd falls back to its last snapshot (snapshots
 * every {@code snapshotIntervalSeconds} of progress on a placement, counted from when it began progressing there),
 * and a job placed again (after a move, or STARTed after having run before) progresses only after
 * {@code restartOverheadSeconds}, holding its GPUs meanwhile.
 *
 * <p>The cluster changes as {@code node-events.jsonl} says: an event at time t applies before the decisions at t (the
 * scheduler handles node events before it reschedules), so a node added at t may take jobs at t, and a node that
 * fails, is removed or is retyped at t must have no job left on it (or none of another type) once the decisions at t
 * are applied. An event between two decision times is checked at its own time.
 */
public final class RunAuditor {
    /**
     * @param timeSeconds   allowed gap between a COMPLETE and the moment the integrated work reaches 1
     * @param costRelative  allowed relative gap between a reported and a recomputed total
     * @param costAbsolute  allowed absolute gap, for totals near zero
     */
    public record Tolerances(double timeSeconds, double costRelative, double costAbsolute) {
        public static final Tolerances DEFAULT = new Tolerances(0.01, 1e-6, 1e-6);
    }

    /** Violations kept for the report; past this only the counts grow. */
    static final int MAX_LISTED = 1000;

    private final RunFiles run;
    private final Tolerances tol;
    /**
     * The jobs read so far from jobs.jsonl, in its order: a job is read when a decision names it (with those before it
     * in the file), and a completed one keeps no execution times, so memory follows the jobs submitted and not done.
     */
    private final Map<String, JobState> jobs = new LinkedHashMap<>();
    /** jobs.jsonl, open for the whole audit. */
    private final RunFiles.JobReader pending;

    private final Map<String, NodeState> nodes = new LinkedHashMap<>();
    private final List<Violation> violations = new ArrayList<>();
    private final Map<Kind, Long> counts = new EnumMap<>(Kind.class);
    private final Set<NodeState> touched = new LinkedHashSet<>();
    /** Nodes that an event changed in the current instant (checked once its decisions are applied). */
    private final Set<NodeState> changed = new LinkedHashSet<>();
    /** The next change of {@link RunFiles#nodeChanges} to apply. */
    private int nextChange;

    private double groupTime = Double.NEGATIVE_INFINITY;
    private long decisionCount;

    private static final class JobState {
        JobSpec spec;
        NodeState node;
        String type;
        int gpus;
        double rate; // fraction of the work per second on the current placement (NaN: unknown configuration)
        double since; // when it began (or begins, after a restart) progressing on the current placement
        double done;
        boolean started;
        double completedAt = Double.NaN;

        JobState(JobSpec spec) {
            this.spec = spec;
        }

        boolean running() {
            return node != null;
        }
    }

    private static final class NodeState {
        NodeSlot slot;
        /** Why the node is not in the cluster now ("failed at 10.000"), or null while it is. */
        String absent;

        final Map<String, JobState> running = new LinkedHashMap<>();
        int busy;
        double since;
        double cost;

        NodeState(NodeSlot slot, String absent) {
            this.slot = slot;
            this.absent = absent;
        }
    }

    private RunAuditor(RunFiles run, Tolerances tol, RunFiles.JobReader pending) {
        this.run = run;
        this.tol = tol;
        this.pending = pending;
        run.nodes.values().forEach(n -> nodes.put(n.id(), new NodeState(n, null)));
    }

    /** Audits {@code dir}; throws {@link AuditInputException} when a file is missing or unreadable. */
    public static AuditReport audit(Path dir, Tolerances tol) {
        RunFiles run = RunFiles.read(dir);
        try (RunFiles.JobReader jobs = run.openJobs()) {
            RunAuditor auditor = new RunAuditor(run, tol, jobs);
            auditor.replay(dir.resolve(RunFiles.DECISIONS));
            while (auditor.readJob() != null) {
                // the jobs no decision named: each is reported as never started
            }
            return auditor.finish();
        }
    }

    /**
     * The job named {@code id}, reading jobs.jsonl up to it when it is not read yet. jobs.jsonl is in submission order
     * and a job's first decision comes at its submission or later, so this reads the jobs submitted by then; a decision
     * of a job not in the file reads the file to its end (and is then reported as an unknown job).
     */
    private JobState job(String id) {
        JobState job = jobs.get(id);
        while (job == null) {
            JobSpec next = readJob();
            if (next == null) return null;
            if (next.id().equals(id)) job = jobs.get(id);
        }
        return job;
    }

    /** Reads the next job of jobs.jsonl into {@link #jobs}; null at the end of the file. */
    private JobSpec readJob() {
        JobSpec spec = pending.next();
        if (spec != null && jobs.putIfAbsent(spec.id(), new JobState(spec)) != null)
            throw new AuditInputException(pending.where() + ": job " + spec.id() + " appears twice");
        return spec;
    }

    public static AuditReport audit(Path dir) {
        return audit(dir, Tolerances.DEFAULT);
    }

    private void replay(Path file) {
        try {
            JsonLines.forEach(file, RunFiles.JSON, AuditInputException::new, (d, where) -> {
                decisionCount++;
                apply(d, where);
            });
        } catch (IOException e) {
            throw new AuditInputException(file + ": cannot read (" + e.getMessage() + ")", e);
        }
        closeInstant();
        applyNodeChanges(Double.POSITIVE_INFINITY);
    }

    /**
     * Applies the node changes up to t: each one before t as an instant of its own (no decision was made then, so
     * nothing may be left on a node it took away), the ones at t into the instant of t's decisions.
     */
    private void applyNodeChanges(double t) {
        while (nextChange < run.nodeChanges.size()
                && run.nodeChanges.get(nextChange).time() <= t) {
            NodeChange c = run.nodeChanges.get(nextChange++);
            if (c.time() > groupTime) {
                closeInstant();
                groupTime = c.time();
            }
            applyNodeChange(c);
        }
        if (groupTime < t) {
            closeInstant();
            groupTime = t;
        }
    }

    private void applyNodeChange(NodeChange c) {
        NodeState n = nodes.get(c.node());
        if (c.kind().equals("ADDED")) {
            if (n == null) nodes.put(c.node(), n = new NodeState(c.slot(), null));
            n.slot = c.slot();
            n.absent = null;
        } else if (n == null) {
            flag(
                    Kind.UNKNOWN_NODE,
                    c.time(),
                    null,
                    c.node(),
                    c.where() + ": " + c.kind() + " of a node not in the cluster");
            return;
        } else if (c.kind().equals("TYPE_CHANGED")) {
            n.slot = c.slot();
        } else {
            n.absent = c.kind().toLowerCase(java.util.Locale.ROOT) + String.format(" at %.3f", c.time());
        }
        changed.add(n);
    }

    /** The node's first ADDED still to come, or null. */
    private NodeChange addedLater(String node) {
        for (int i = nextChange; i < run.nodeChanges.size(); i++) {
            NodeChange c = run.nodeChanges.get(i);
            if (c.node().equals(node) && c.kind().equals("ADDED")) return c;
        }
        return null;
    }

    private void apply(JsonNode d, String where) {
        JsonNode timeNode = d.get("time");
        String jobId = d.hasNonNull("job") ? d.get("job").asText() : null;
        String action = d.hasNonNull("action") ? d.get("action").asText() : null;
        if (timeNode == null || !timeNode.isNumber() || jobId == null || action == null) {
            flag(
                    Kind.MALFORMED_DECISION,
                    Double.NaN,
                    jobId,
                    null,
                    where + ": a decision needs numeric 'time', 'job' and 'action'");
            return;
        }
        double t = timeNode.asDouble();
        if (t < groupTime) {
            flag(Kind.TIME_ORDER, t, jobId, null, where + ": time goes back from " + groupTime);
        } else if (t > groupTime) {
            applyNodeChanges(t);
        }
        JobState job = job(jobId);
        if (job == null) {
            flag(Kind.UNKNOWN_JOB, t, jobId, null, where + ": job is not in jobs.jsonl");
            return;
        }
        switch (action) {
            case "START" -> start(job, d, t, where);
            case "RESIZE", "MIGRATE" -> move(job, d, t, where, action);
            case "PREEMPT" -> preempt(job, t, where);
            case "COMPLETE" -> complete(job, d, t, where);
            default -> flag(Kind.MALFORMED_DECISION, t, jobId, null, where + ": unknown action '" + action + "'");
        }
    }

    private void start(JobState job, JsonNode d, double t, String where) {
        if (!Double.isNaN(job.completedAt)) {
            flag(
                    Kind.PLACEMENT,
                    t,
                    job.spec.id(),
                    text(d, "node"),
                    where + ": START of a job that completed at " + job.completedAt);
            return;
        }
        if (job.running()) {
            flag(
                    Kind.PLACEMENT,
                    t,
                    job.spec.id(),
                    text(d, "node"),
                    where + ": START while the job already runs on " + job.node.slot.id());
            return;
        }
        if (t < job.spec.submit() - 1e-9) {
            flag(
                    Kind.START_BEFORE_SUBMIT,
                    t,
                    job.spec.id(),
                    text(d, "node"),
                    where + ": started before its submission at " + job.spec.submit());
        }
        place(job, d, t, where);
    }

    private void move(JobState job, JsonNode d, double t, String where, String action) {
        if (!job.running()) {
            flag(
                    Kind.PLACEMENT,
                    t,
                    job.spec.id(),
                    text(d, "node"),
                    where + ": " + action + " of a job that does not run");
            return;
        }
        stop(job, t, where);
        place(job, d, t, where);
    }

    private void preempt(JobState job, double t, String where) {
        if (!job.running()) {
            flag(Kind.PLACEMENT, t, job.spec.id(), null, where + ": PREEMPT of a job that does not run");
            return;
        }
        stop(job, t, where);
    }

    private void complete(JobState job, JsonNode d, double t, String where) {
        if (!Double.isNaN(job.completedAt)) {
            flag(
                    Kind.INCOMPLETE,
                    t,
                    job.spec.id(),
                    null,
                    where + ": completed a second time (first at " + job.completedAt + ")");
            return;
        }
        if (!job.running()) {
            flag(Kind.PLACEMENT, t, job.spec.id(), text(d, "node"), where + ": COMPLETE of a job that does not run");
            return;
        }
        String node = job.node.slot.id();
        if (d.hasNonNull("node") && !d.get("node").asText().equals(node)) {
            flag(
                    Kind.PLACEMENT,
                    t,
                    job.spec.id(),
                    d.get("node").asText(),
                    where + ": COMPLETE names node " + d.get("node").asText() + " but the job runs on " + node);
        }
        double rate = job.rate;
        double doneBefore = job.done;
        double since = job.since;
        NodeState n = job.node;
        detach(job, t);
        if (!Double.isNaN(rate)) {
            double expected = since + (1 - doneBefore) / rate;
            if (Math.abs(expected - t) > tol.timeSeconds()) {
                flag(
                        Kind.COMPLETION_TIME,
                        t,
                        job.spec.id(),
                        n.slot.id(),
                        String.format(
                                "%s: COMPLETE at %.3f but the work is done at %.3f (%s by %.3f s)",
                                where, t, expected, t < expected ? "early" : "late", Math.abs(expected - t)));
            }
        }
        job.done = 1;
        job.completedAt = t;
        job.spec = job.spec.completed();
    }

    /** Ends the job's current placement at t: integrates its work and frees its GPUs. */
    private void stop(JobState job, double t, String where) {
        if (!Double.isNaN(job.rate)) {
            double progressing = Math.max(0, t - job.since);
            double done = job.done + progressing * job.rate;
            if (done > 1 && (done - 1) / job.rate > tol.timeSeconds()) {
                double finished = job.since + (1 - job.done) / job.rate;
                flag(
                        Kind.COMPLETION_TIME,
                        t,
                        job.spec.id(),
                        job.node.slot.id(),
                        String.format(
                                "%s: still running at %.3f but its work was done at %.3f without a COMPLETE",
                                where, t, finished));
            }
            // in whole milliseconds, run.json's time resolution: a double remainder of an exact multiple of the
            // interval could come out as nearly a whole interval
            long interval = Math.round(run.snapshotIntervalSeconds * 1000);
            double sinceSnapshot = interval > 0 ? Math.round(progressing * 1000) % interval / 1000.0 : 0;
            job.done = Math.max(0, Math.min(done, 1) - sinceSnapshot * job.rate);
        }
        detach(job, t);
    }

    private void detach(JobState job, double t) {
        NodeState n = job.node;
        accrue(n, t);
        n.running.remove(job.spec.id());
        n.busy -= job.gpus;
        touched.add(n);
        job.node = null;
        job.type = null;
        job.gpus = 0;
    }

    private void place(JobState job, JsonNode d, double t, String where) {
        String id = job.spec.id();
        String nodeId = text(d, "node");
        NodeState n = nodeId == null ? null : nodes.get(nodeId);
        if (n == null && nodeId != null) {
            NodeChange added = addedLater(nodeId);
            if (added != null) {
                n = new NodeState(added.slot(), String.format("added only at %.3f", added.time()));
                nodes.put(nodeId, n);
            }
        }
        if (n == null) {
            flag(
                    Kind.UNKNOWN_NODE,
                    t,
                    id,
                    nodeId,
                    where + ": "
                            + (nodeId == null ? "no node" : "node is not in run.json nor added by node-events.jsonl"));
            return;
        }
        if (n.absent != null)
            flag(Kind.NODE_ABSENT, t, id, nodeId, where + ": placed on a node not in the cluster (" + n.absent + ")");
        String type = text(d, "type");
        if (type == null) type = n.slot.fixedType();
        if (type == null) {
            flag(Kind.MALFORMED_DECISION, t, id, nodeId, where + ": no type for rightsizable node");
            return;
        }
        NodeType nt = run.types.get(type);
        if (nt == null) {
            flag(Kind.UNKNOWN_NODE, t, id, nodeId, where + ": node type '" + type + "' is not in run.json");
            return;
        }
        if (n.slot.fixedType() != null && !n.slot.fixedType().equals(type)) {
            flag(
                    Kind.NODE_TYPE,
                    t,
                    id,
                    nodeId,
                    where + ": node is of fixed type " + n.slot.fixedType() + ", decision says " + type);
        } else if (n.slot.fixedType() == null
                && n.slot.allowed() != null
                && !n.slot.allowed().contains(type)) {
            flag(
                    Kind.NODE_TYPE,
                    t,
                    id,
                    nodeId,
                    where + ": node may not take type " + type + " (allowed: " + n.slot.allowed() + ")");
        }
        JsonNode g = d.get("gpus");
        if (g == null || !g.canConvertToInt() || g.asInt() < 1) {
            flag(Kind.MALFORMED_DECISION, t, id, nodeId, where + ": gpus must be an integer >= 1");
            return;
        }
        int gpus = g.asInt();
        double seconds = job.spec.seconds(type, gpus);
        if (Double.isNaN(seconds)) {
            flag(
                    Kind.NO_CONFIGURATION,
                    t,
                    id,
                    nodeId,
                    where + ": the job has no execution time on " + type + " with " + gpus + " GPUs");
        }
        accrue(n, t);
        n.running.put(id, job);
        n.busy += gpus;
        touched.add(n);
        job.node = n;
        job.type = type;
        job.gpus = gpus;
        // a job placed again restores its snapshot first (its first start pays nothing)
        job.since = job.started ? t + run.restartOverheadSeconds : t;
        job.started = true;
        job.rate = Double.isNaN(seconds) || seconds <= 0 ? Double.NaN : 1.0 / seconds;
    }

    /** Adds the node's cost from its last change up to t at its current rate. */
    private void accrue(NodeState n, double t) {
        if (!n.running.isEmpty() && t > n.since) {
            NodeType type = run.types.get(n.running.values().iterator().next().type);
            int busy = Math.min(n.busy, type.gpus());
            n.cost += type.costPerHour()[busy] * (t - n.since) / 3600.0;
        }
        n.since = t;
    }

    /** Checks, after every decision of one instant is applied, the nodes that instant changed. */
    private void closeInstant() {
        for (NodeState n : changed) {
            for (JobState j : n.running.values()) {
                if (j.since == groupTime && touched.contains(n)) continue; // placed now: checked when placed
                if (n.absent != null) {
                    flag(
                            Kind.NODE_ABSENT,
                            groupTime,
                            j.spec.id(),
                            n.slot.id(),
                            "still runs on a node not in the cluster (" + n.absent + ")");
                } else if (n.slot.fixedType() != null && !n.slot.fixedType().equals(j.type)
                        || n.slot.fixedType() == null
                                && n.slot.allowed() != null
                                && !n.slot.allowed().contains(j.type)) {
                    flag(
                            Kind.NODE_TYPE,
                            groupTime,
                            j.spec.id(),
                            n.slot.id(),
                            "still runs as " + j.type + " on a node changed to "
                                    + (n.slot.fixedType() != null ? n.slot.fixedType() : "types " + n.slot.allowed()));
                }
            }
        }
        changed.clear();
        for (NodeState n : touched) {
            if (n.running.isEmpty()) continue;
            String type = null;
            for (JobState j : n.running.values()) {
                if (type == null) type = j.type;
                else if (!type.equals(j.type)) {
                    flag(
                            Kind.NODE_TYPE,
                            groupTime,
                            j.spec.id(),
                            n.slot.id(),
                            "jobs on the node disagree on its type: " + type + " and " + j.type);
                }
            }
            NodeType nt = run.types.get(type);
            if (n.busy > nt.gpus()) {
                flag(
                        Kind.CAPACITY,
                        groupTime,
                        String.join(",", n.running.keySet()),
                        n.slot.id(),
                        n.busy + " GPUs in use on a " + type + " with " + nt.gpus());
            }
        }
        touched.clear();
    }

    private AuditReport finish() {
        double execution = 0;
        for (NodeState n : nodes.values()) execution += n.cost;
        double tardiness = 0,
                jctSum = 0,
                lastCompletion = Double.NEGATIVE_INFINITY,
                firstSubmit = Double.POSITIVE_INFINITY;
        long completed = 0, tardy = 0;
        for (JobState j : jobs.values()) {
            firstSubmit = Math.min(firstSubmit, j.spec.submit());
            if (Double.isNaN(j.completedAt)) {
                flag(
                        Kind.INCOMPLETE,
                        Double.NaN,
                        j.spec.id(),
                        j.running() ? j.node.slot.id() : null,
                        j.running()
                                ? "never completed (still running at the end)"
                                : j.started ? "never completed (left preempted)" : "never started");
                continue;
            }
            completed++;
            double late = j.completedAt - j.spec.due();
            if (late > 1e-9) {
                tardy++;
                tardiness += j.spec.weight() * late / 3600.0;
            }
            jctSum += j.completedAt - j.spec.submit();
            lastCompletion = Math.max(lastCompletion, j.completedAt);
        }
        Map<String, Double> recomputed = new LinkedHashMap<>();
        recomputed.put("totalCost", execution + tardiness);
        recomputed.put("executionCost", execution);
        recomputed.put("tardinessCost", tardiness);
        recomputed.put("tardyJobs", (double) tardy);
        recomputed.put("completedJobs", (double) completed);
        recomputed.put("meanJctSeconds", completed == 0 ? 0 : jctSum / completed);
        recomputed.put("makespanSeconds", completed == 0 ? 0 : lastCompletion - firstSubmit);
        Map<String, Double> reported = new LinkedHashMap<>();
        for (var e : recomputed.entrySet()) {
            JsonNode v = run.metrics.get(e.getKey());
            if (v == null || !v.isNumber()) {
                flag(
                        Kind.METRICS,
                        Double.NaN,
                        null,
                        null,
                        "metrics.json: " + e.getKey() + " is missing or not a number");
                continue;
            }
            double r = v.asDouble();
            reported.put(e.getKey(), r);
            double want = e.getValue();
            boolean count = e.getKey().equals("tardyJobs") || e.getKey().equals("completedJobs");
            double allowed = count
                    ? 0.5
                    : e.getKey().endsWith("Seconds")
                            ? tol.timeSeconds() + Math.abs(want) * tol.costRelative()
                            : tol.costAbsolute() + Math.abs(want) * tol.costRelative();
            if (!(Math.abs(r - want) <= allowed)) {
                flag(
                        Kind.METRICS,
                        Double.NaN,
                        null,
                        null,
                        String.format(
                                "metrics.json: %s = %s but the decisions give %s", e.getKey(), fmt(r), fmt(want)));
            }
        }
        return new AuditReport(
                List.copyOf(violations),
                new EnumMap<>(counts),
                recomputed,
                reported,
                jobs.size(),
                nodes.size(),
                decisionCount);
    }

    private static String fmt(double v) {
        return v == Math.rint(v) && Math.abs(v) < 1e15 ? Long.toString((long) v) : String.format("%.6f", v);
    }

    private static String text(JsonNode d, String field) {
        return d.hasNonNull(field) ? d.get(field).asText() : null;
    }

    private void flag(Kind kind, double time, String job, String node, String message) {
        counts.merge(kind, 1L, Long::sum);
        if (violations.size() < MAX_LISTED) violations.add(new Violation(kind, time, job, node, message));
    }
}
