package org.gpusched.streaming;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.IntFunction;
import org.gpusched.core.model.Cluster;
import org.gpusched.core.model.Placement;
import org.gpusched.streaming.avro.DecisionAction;
import org.gpusched.streaming.avro.PlacementDecision;

/**
 * What a schedule changes, pure: per job handed to the policy, whether it starts, resizes (same node, other type or
 * GPU count), migrates (other node) or is preempted (running, not placed), compared with where it runs now. Jobs
 * the schedule leaves where they are make no change. Also the order decisions go out in.
 */
final class ScheduleDiff {
    private ScheduleDiff() {}

    /** One job's change: where it goes ({@code node}, {@code type}, {@code gpus}; where it was, for a PREEMPT). */
    record Change(int candidate, DecisionAction action, String node, String type, int gpus, String previousNode) {}

    /** Where each running candidate is now: its node (null: waiting), type and GPUs. */
    interface Current {
        String node(int candidate);

        String type(int candidate);

        int gpus(int candidate);
    }

    /**
     * The changes of a schedule ({@code placements}: candidate i's placement in it, null when it waits) over {@code
     * count} candidates, in candidate order.
     */
    static List<Change> of(Cluster cluster, int count, Current current, IntFunction<Placement> placements) {
        List<Change> changes = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            Placement p = placements.apply(i);
            String oldNode = current.node(i);
            if (p == null) {
                if (oldNode != null)
                    changes.add(new Change(i, DecisionAction.PREEMPT, oldNode, current.type(i), current.gpus(i), null));
                continue;
            }
            String node = cluster.node(p.node()).id();
            String type = cluster.type(p.type()).name();
            boolean sameNode = node.equals(oldNode);
            if (sameNode && type.equals(current.type(i)) && p.gpus() == current.gpus(i)) continue;
            DecisionAction action =
                    oldNode == null ? DecisionAction.START : sameNode ? DecisionAction.RESIZE : DecisionAction.MIGRATE;
            changes.add(new Change(i, action, node, type, p.gpus(), sameNode ? null : oldNode));
        }
        return changes;
    }

    /** Over the candidates' records (node, type and GPUs as they are now). */
    static List<Change> of(Cluster cluster, List<ActiveJobs.Entry> candidates, IntFunction<Placement> placements) {
        return of(
                cluster,
                candidates.size(),
                new Current() {
                    @Override
                    public String node(int c) {
                        return candidates.get(c).record.getNode();
                    }

                    @Override
                    public String type(int c) {
                        return candidates.get(c).record.getType();
                    }

                    @Override
                    public int gpus(int c) {
                        return candidates.get(c).record.getGpus();
                    }
                },
                placements);
    }

    /**
     * Decisions in the order they go out: releases first (preemptions, then resizes by GPU count, smaller first, then
     * migrations), starts last, each group in candidate order, so a reader applying them in order never sees a node
     * over capacity.
     */
    static List<PlacementDecision> inEmissionOrder(List<PlacementDecision> decisions) {
        List<PlacementDecision> preempt = new ArrayList<>();
        List<PlacementDecision> resize = new ArrayList<>();
        List<PlacementDecision> migrate = new ArrayList<>();
        List<PlacementDecision> start = new ArrayList<>();
        for (PlacementDecision d : decisions) {
            switch (d.getAction()) {
                case PREEMPT -> preempt.add(d);
                case RESIZE -> resize.add(d);
                case MIGRATE -> migrate.add(d);
                case START -> start.add(d);
                default -> throw new IllegalArgumentException("not a schedule change: " + d.getAction());
            }
        }
        resize.sort(Comparator.comparingInt(PlacementDecision::getGpus));
        List<PlacementDecision> ordered = new ArrayList<>(decisions.size());
        ordered.addAll(preempt);
        ordered.addAll(resize);
        ordered.addAll(migrate);
        ordered.addAll(start);
        return ordered;
    }
}
