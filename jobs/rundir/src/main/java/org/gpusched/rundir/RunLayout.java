package org.gpusched.rundir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The files of a scheduling run directory (docs/streaming.md, "Run directory") and the markers of one still being
 * written: the names the writer, the auditor, the reports and the command line all use.
 */
public final class RunLayout {
    /** The run's settings, cluster and node owners. */
    public static final String RUN = "run.json";
    /** The accepted jobs, in submission order, as trace lines. */
    public static final String JOBS = "jobs.jsonl";
    /** The decisions in (time, controller, seq) order. */
    public static final String DECISIONS = "decisions.jsonl";
    /** The run's summary. */
    public static final String METRICS = "metrics.json";
    /** Rejected input records, with the reason. */
    public static final String REJECTED = "rejected.jsonl";
    /** The node timeline: every node event the run applied, at the time it applied it. */
    public static final String NODE_EVENTS = "node-events.jsonl";

    /** Present in a directory still being written (or abandoned by a killed run). */
    public static final String INCOMPLETE = ".incomplete";
    /** The part files of a run in progress, merged into the run directory at its end. */
    public static final String PARTS = ".parts";
    /** The markers of a directory being written. */
    public static final List<String> IN_PROGRESS = List.of(INCOMPLETE, PARTS);

    private RunLayout() {}

    /** Whether {@code dir} is being written, or was left by an interrupted run: a staging name or a marker in it. */
    public static boolean inProgress(Path dir) {
        Path name = dir.toAbsolutePath().normalize().getFileName();
        boolean staging = name != null && name.toString().matches("\\..*\\.(partial|old)-\\d+");
        return staging || IN_PROGRESS.stream().anyMatch(marker -> Files.exists(dir.resolve(marker)));
    }
}
