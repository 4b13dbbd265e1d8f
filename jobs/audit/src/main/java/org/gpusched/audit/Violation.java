package org.gpusched.audit;

/** One broken rule of a run: what, when (simulated seconds, NaN when timeless), which job and node (null if none). */
public record Violation(Kind kind, double time, String job, String node, String message) {
    public enum Kind {
        /** decisions.jsonl is not in time order. */
        TIME_ORDER,
        /** A decision names a job that jobs.jsonl does not have. */
        UNKNOWN_JOB,
        /** A decision names a node or node type that run.json does not have. */
        UNKNOWN_NODE,
        /**
         * A job placed on, or left running on, a node that is not in the cluster at that time: not yet added, failed
         * or removed (node-events.jsonl).
         */
        NODE_ABSENT,
        /** A decision's field is missing or impossible (no action, gpus < 1, ...). */
        MALFORMED_DECISION,
        /** More GPUs in use on a node than its type has. */
        CAPACITY,
        /** A job started while it already runs, or a change to a job that does not run. */
        PLACEMENT,
        /** A job started before it was submitted. */
        START_BEFORE_SUBMIT,
        /** A node runs as a type it may not take, or jobs on one node disagree on its type. */
        NODE_TYPE,
        /** The job has no execution time for the (type, GPUs) it was placed on. */
        NO_CONFIGURATION,
        /** COMPLETE earlier or later than the work integrated over the job's placements, or a job running past its work. */
        COMPLETION_TIME,
        /** A job that never completed, or completed twice. */
        INCOMPLETE,
        /** metrics.json disagrees with the costs recomputed from the decisions. */
        METRICS
    }

    @Override
    public String toString() {
        String when = Double.isNaN(time) ? "-" : String.format("t=%.3f", time);
        return String.format(
                "%-18s %-14s job=%-10s node=%-12s %s",
                kind, when, job == null ? "-" : job, node == null ? "-" : node, message);
    }
}
