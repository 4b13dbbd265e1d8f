package org.gpusched.analytics;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.gpusched.streaming.avro.PlacementDecision;
import org.gpusched.streaming.avro.SchedulingMetrics;

/**
 * What {@code gpusched top} shows: per (policy, controller) the state after its latest rescheduling (queue, running
 * jobs, busy GPUs, cost rate, accrued cost, completed jobs) and the decisions it made, and the latest decisions
 * overall. Fed the records of the scheduling-metrics and decisions topics in any interleaving; with a time limit
 * ({@code at}) records after that trace time are ignored, so the view is the cluster as it was then.
 */
public final class LiveView {
    /** One controller's row. */
    public record ControllerRow(
            String policy,
            int controller,
            double time,
            int queue,
            int running,
            int busyGpus,
            double costRatePerHour,
            double totalCost,
            long completedJobs,
            long decisions) {}

    private final double at;
    private final int lastDecisions;
    private final Map<String, ControllerRow> rows = new TreeMap<>();
    private final Map<String, Long> decisionCounts = new TreeMap<>();
    /** The latest decisions by (time, policy, controller, seq), at most lastDecisions of them. */
    private final Deque<PlacementDecision> latest = new ArrayDeque<>();

    private static final Comparator<PlacementDecision> ORDER = Comparator.comparingDouble(PlacementDecision::getTime)
            .thenComparing(PlacementDecision::getPolicy)
            .thenComparingInt(PlacementDecision::getController)
            .thenComparingLong(PlacementDecision::getSeq);

    /**
     * @param at trace time after which records are ignored ({@link Double#POSITIVE_INFINITY}: none)
     * @param lastDecisions how many of the latest decisions to keep
     */
    public LiveView(double at, int lastDecisions) {
        this.at = at;
        this.lastDecisions = lastDecisions;
    }

    private static String key(String policy, int controller) {
        return policy + "#" + String.format(Locale.ROOT, "%06d", controller);
    }

    public void accept(SchedulingMetrics m) {
        if (m.getTime() > at) return;
        String k = key(m.getPolicy(), m.getController());
        ControllerRow old = rows.get(k);
        if (old != null && old.time() > m.getTime()) return;
        rows.put(
                k,
                new ControllerRow(
                        m.getPolicy(),
                        m.getController(),
                        m.getTime(),
                        m.getQueueLength(),
                        m.getRunning(),
                        m.getBusyGpus(),
                        m.getCostRatePerHour(),
                        m.getAccruedExecutionCost() + m.getAccruedTardinessCost(),
                        m.getCompletedJobs(),
                        decisionCounts.getOrDefault(k, 0L)));
    }

    public void accept(PlacementDecision d) {
        if (d.getTime() > at) return;
        String k = key(d.getPolicy(), d.getController());
        long n = decisionCounts.merge(k, 1L, Long::sum);
        ControllerRow r = rows.get(k);
        if (r != null)
            rows.put(
                    k,
                    new ControllerRow(
                            r.policy(),
                            r.controller(),
                            r.time(),
                            r.queue(),
                            r.running(),
                            r.busyGpus(),
                            r.costRatePerHour(),
                            r.totalCost(),
                            r.completedJobs(),
                            n));
        if (lastDecisions == 0) return;
        if (latest.size() == lastDecisions && ORDER.compare(d, latest.peekFirst()) < 0) return;
        List<PlacementDecision> all = new ArrayList<>(latest);
        all.add(d);
        all.sort(ORDER);
        latest.clear();
        latest.addAll(all.subList(Math.max(0, all.size() - lastDecisions), all.size()));
    }

    /** The controllers' rows, by policy then controller. */
    public List<ControllerRow> rows() {
        return List.copyOf(rows.values());
    }

    /** The latest decisions, oldest first. */
    public List<PlacementDecision> latestDecisions() {
        return List.copyOf(latest);
    }

    /** The view as text: a header line, the controllers' table, the latest decisions. */
    public String render(String header) {
        StringBuilder b = new StringBuilder();
        b.append(header).append('\n');
        b.append(String.format(
                Locale.ROOT,
                "%-16s %4s %12s %7s %7s %8s %10s %12s %9s %9s%n",
                "POLICY",
                "CTRL",
                "TIME_S",
                "QUEUE",
                "RUNNING",
                "GPUS",
                "COST_PER_H",
                "TOTAL_COST",
                "COMPLETED",
                "DECISIONS"));
        for (ControllerRow r : rows.values())
            b.append(String.format(
                    Locale.ROOT,
                    "%-16s %4d %12.1f %7d %7d %8d %10.2f %12.2f %9d %9d%n",
                    r.policy(),
                    r.controller(),
                    r.time(),
                    r.queue(),
                    r.running(),
                    r.busyGpus(),
                    r.costRatePerHour(),
                    r.totalCost(),
                    r.completedJobs(),
                    r.decisions()));
        if (rows.isEmpty()) b.append("(no rescheduling yet)\n");
        if (lastDecisions > 0) {
            b.append("latest decisions\n");
            b.append(String.format(
                    Locale.ROOT,
                    "%12s %-16s %4s %-20s %-8s %-16s %-10s %4s%n",
                    "TIME_S",
                    "POLICY",
                    "CTRL",
                    "JOB",
                    "ACTION",
                    "NODE",
                    "TYPE",
                    "GPUS"));
            for (PlacementDecision d : latest)
                b.append(String.format(
                        Locale.ROOT,
                        "%12.1f %-16s %4d %-20s %-8s %-16s %-10s %4d%n",
                        d.getTime(),
                        d.getPolicy(),
                        d.getController(),
                        d.getJob(),
                        d.getAction(),
                        d.getNode() == null ? "-" : d.getNode(),
                        d.getType() == null ? "-" : d.getType(),
                        d.getGpus()));
        }
        return b.toString();
    }
}
