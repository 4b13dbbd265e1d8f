package org.gpusched.audit;

import java.util.List;
import java.util.Map;

/**
 * The outcome of an audit: the violations (the first {@value RunAuditor#MAX_LISTED} listed, all counted), the totals
 * recomputed from the decisions and the ones metrics.json reports.
 */
public record AuditReport(
        List<Violation> violations,
        Map<Violation.Kind, Long> counts,
        Map<String, Double> recomputed,
        Map<String, Double> reported,
        int jobs,
        int nodes,
        long decisions) {

    public boolean ok() {
        return counts.isEmpty();
    }

    public long violationCount() {
        return counts.values().stream().mapToLong(Long::longValue).sum();
    }

    public boolean has(Violation.Kind kind) {
        return counts.containsKey(kind);
    }

    /** The text `gpusched validate` prints. */
    public String format() {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format("audited %d decisions, %d jobs, %d nodes%n%n", decisions, jobs, nodes));
        sb.append(String.format("%-16s %18s %18s%n", "metric", "reported", "recomputed"));
        for (var e : recomputed.entrySet()) {
            Double r = reported.get(e.getKey());
            sb.append(String.format(
                    "%-16s %18s %18s%n",
                    e.getKey(), r == null ? "(missing)" : value(e.getKey(), r), value(e.getKey(), e.getValue())));
        }
        sb.append('\n');
        if (ok()) {
            sb.append("OK: no violation\n");
            return sb.toString();
        }
        sb.append(String.format("FAILED: %d violation(s)%n", violationCount()));
        counts.forEach((k, n) -> sb.append(String.format("  %-18s %d%n", k, n)));
        sb.append('\n');
        for (Violation v : violations) sb.append(v).append('\n');
        if (violations.size() < violationCount())
            sb.append("... (" + (violationCount() - violations.size()) + " more not listed)\n");
        return sb.toString();
    }

    /** Counts (tardyJobs, completedJobs) as integers, unless a reported one is not whole; amounts with six decimals. */
    static String value(String metric, double v) {
        boolean count = metric.endsWith("Jobs") && v == Math.rint(v) && Math.abs(v) < 1e15;
        return count ? String.format("%d", (long) v) : String.format("%.6f", v);
    }
}
