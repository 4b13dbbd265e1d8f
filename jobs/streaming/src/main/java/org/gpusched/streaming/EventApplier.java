package org.gpusched.streaming;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.TreeSet;
import org.gpusched.core.objective.RealCost;
import org.gpusched.streaming.avro.DecisionAction;
import org.gpusched.streaming.avro.JobCompleted;
import org.gpusched.streaming.avro.JobMetrics;
import org.gpusched.streaming.avro.JobSubmitted;
import org.gpusched.streaming.avro.NodeEvent;
import org.gpusched.streaming.avro.Telemetry;
import org.gpusched.streaming.avro.TelemetryKind;
import org.gpusched.streaming.state.ControllerEvent;
import org.gpusched.streaming.state.JobRecord;
import org.gpusched.streaming.state.NodeSlot;

/**
 * Applies a controller's input events to its {@link ControllerFacts}, plain Java: a submission adds a waiting job, a
 * completion (or, in replay, a job's real end) ends one with its COMPLETE decision and job metrics, telemetry
 * corrects a job's progress, a node event changes the key's nodes and preempts the jobs on a node that went away.
 * Each kind of change is a trigger of the rescheduling that follows ({@link #triggers}).
 */
final class EventApplier {
    private final ControllerFacts facts;
    private final TreeSet<String> triggers = new TreeSet<>(Comparator.comparingInt(EventApplier::triggerRank));

    EventApplier(ControllerFacts facts) {
        this.facts = facts;
    }

    /** What changed so far in the step: COMPLETION, NODE, SUBMISSION, PERIOD, in that order. */
    TreeSet<String> triggers() {
        return triggers;
    }

    private static int triggerRank(String t) {
        return switch (t) {
            case "COMPLETION" -> 0;
            case "NODE" -> 1;
            case "SUBMISSION" -> 3;
            case "PERIOD" -> 4;
            default -> 2;
        };
    }

    void apply(ControllerEvent e) {
        switch (e.getKind()) {
            case SUBMISSION -> submit(e.getSubmitted());
            case COMPLETION -> {
                ActiveJobs.Entry j = facts.jobs.get(e.getId());
                if (j != null) complete(j, false);
            }
            case TELEMETRY -> telemetry(e.getTelemetry());
            case NODE -> node(e.getNodeEvent());
        }
    }

    /** Replay: the running jobs whose real end has come complete now. */
    void completeEnded() {
        for (ActiveJobs.Entry e : facts.jobs.endingBy(facts.now)) complete(e, true);
    }

    private void submit(JobSubmitted spec) {
        if (facts.jobs.contains(spec.getId())) return;
        facts.jobs.add(waiting(spec, facts.now));
        facts.dirty.add(spec.getId());
        triggers.add("SUBMISSION");
    }

    /** The record of a job that has not run yet, its progress counted from {@code progressMillis}. */
    static JobRecord waiting(JobSubmitted spec, long progressMillis) {
        return JobRecord.newBuilder()
                .setSpec(spec)
                .setDone(0)
                .setModelDone(0)
                .setProgressMillis(progressMillis)
                .setNode(null)
                .setType(null)
                .setGpus(0)
                .setEndMillis(-1)
                .setFirstStart(null)
                .setPreemptions(0)
                .setMigrations(0)
                .setResizes(0)
                .build();
    }

    private void telemetry(Telemetry t) {
        if (t.getKind() != TelemetryKind.JOB_PROGRESS) return;
        ActiveJobs.Entry e = facts.jobs.get(t.getJob());
        if (e == null) return;
        JobRecord j = facts.writable(e);
        // Measured progress replaces both views: it is the truth the prediction drifted from.
        j.setDone(t.getProgress());
        j.setModelDone(t.getProgress());
        if (j.getNode() != null && facts.config.mode() == SchedulerConfig.Mode.REPLAY) facts.setEnd(e);
        if (j.getNode() == null) facts.jobs.refigure(e);
    }

    private void node(NodeEvent ev) {
        facts.nodesChanged();
        List<NodeSlot> nodes = facts.state.getNodes();
        NodeSlot slot = null;
        for (NodeSlot n : nodes) if (n.getId().equals(ev.getNode())) slot = n;
        switch (ev.getKind()) {
            case ADDED -> {
                if (slot == null) {
                    nodes.add(new NodeSlot(
                            ev.getNode(), ev.getType(), new ArrayList<>(ev.getAllowedTypes()), null, true));
                } else {
                    slot.setUp(true);
                    slot.setFixedType(ev.getType());
                    slot.setAllowedTypes(new ArrayList<>(ev.getAllowedTypes()));
                }
            }
            case REMOVED, FAILED, TYPE_CHANGED -> {
                if (slot == null) return;
                String reason = "node " + ev.getNode() + " "
                        + ev.getKind().name().toLowerCase().replace('_', ' ');
                List<ActiveJobs.Entry> onNode = new ArrayList<>();
                for (ActiveJobs.Entry j : facts.jobs.inOrder())
                    if (ev.getNode().equals(j.record.getNode())) onNode.add(j);
                for (ActiveJobs.Entry j : onNode) preempt(j, reason);
                slot.setCurrentType(null);
                switch (ev.getKind()) {
                    case REMOVED -> nodes.remove(slot);
                    case FAILED -> slot.setUp(false);
                    default -> {
                        slot.setFixedType(ev.getType());
                        slot.setAllowedTypes(new ArrayList<>());
                    }
                }
            }
        }
        triggers.add("NODE");
    }

    private void preempt(ActiveJobs.Entry e, String reason) {
        JobRecord j = facts.writable(e);
        facts.emit(facts.decision(j, DecisionAction.PREEMPT, j.getNode(), j.getType(), j.getGpus(), null, null, null)
                .setReason(reason)
                .build());
        facts.stop(e);
    }

    /** A job ends now: COMPLETE decision, its tardiness cost, job metrics and (replay) the completion record. */
    private void complete(ActiveJobs.Entry e, boolean simulated) {
        JobRecord j = e.record;
        JobSubmitted spec = j.getSpec();
        double t = facts.nowSeconds();
        if (j.getNode() != null) {
            facts.emit(facts.decision(j, DecisionAction.COMPLETE, j.getNode(), j.getType(), j.getGpus(), null, t, null)
                    .build());
            facts.moved(j.getNode(), j.getType(), -j.getGpus());
        }
        double tardiness = RealCost.tardinessCost(spec.getWeight(), t, spec.getDue());
        facts.state.setAccruedTardinessCost(facts.state.getAccruedTardinessCost() + tardiness);
        facts.state.setCompletedJobs(facts.state.getCompletedJobs() + 1);
        facts.output.jobMetrics(JobMetrics.newBuilder()
                .setTime(t)
                .setJob(spec.getId())
                .setPolicy(facts.policy)
                .setController(facts.controller)
                .setSubmit(spec.getSubmit())
                .setDue(spec.getDue())
                .setWeight(spec.getWeight())
                .setFirstStart(j.getFirstStart())
                .setJctSeconds(t - spec.getSubmit())
                .setTardinessSeconds(Math.max(0, t - spec.getDue()))
                .setTardinessCost(tardiness)
                .setPreemptions(j.getPreemptions())
                .setMigrations(j.getMigrations())
                .setResizes(j.getResizes())
                .setActualFactor(e.actualFactor())
                .build());
        if (simulated) {
            facts.output.completion(JobCompleted.newBuilder()
                    .setTime(t)
                    .setJob(spec.getId())
                    .setNode(j.getNode())
                    .setType(j.getType())
                    .setGpus(j.getNode() == null ? null : j.getGpus())
                    .setPolicy(facts.policy)
                    .setController(facts.controller)
                    .build());
        }
        facts.jobs.remove(spec.getId());
        facts.removed.add(spec.getId());
        triggers.add("COMPLETION");
    }
}
