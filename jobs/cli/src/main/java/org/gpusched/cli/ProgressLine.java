package org.gpusched.cli;

import java.io.PrintWriter;

/**
 * A progress line on stderr: rewritten in place (carriage return) on a terminal; on a file or pipe, plain lines, at
 * most one every {@link #FILE_INTERVAL_NANOS} and the last one always, so a log holds readable lines. The launcher
 * tells whether stderr is a terminal (-Dgpusched.stderr.terminal=true; Java cannot ask for stderr alone).
 */
final class ProgressLine {
    static final String TERMINAL_PROPERTY = "gpusched.stderr.terminal";
    static final long FILE_INTERVAL_NANOS = 5_000_000_000L;

    private final PrintWriter err;
    private final boolean terminal;
    private long printedAt = Long.MIN_VALUE;
    private String pending;

    ProgressLine(PrintWriter err, boolean terminal) {
        this.err = err;
        this.terminal = terminal;
    }

    /** For the process's stderr, as the launcher described it. */
    static ProgressLine forStderr(PrintWriter err) {
        return new ProgressLine(err, Boolean.getBoolean(TERMINAL_PROPERTY));
    }

    void update(String line) {
        if (terminal) {
            err.print("\r" + line);
            err.flush();
            return;
        }
        long now = System.nanoTime();
        if (printedAt != Long.MIN_VALUE && now - printedAt < FILE_INTERVAL_NANOS) {
            pending = line;
            return;
        }
        err.println(line);
        err.flush();
        printedAt = now;
        pending = null;
    }

    /** Ends the progress: the last state is shown, and what follows starts on a line of its own. */
    void finish() {
        if (terminal) err.println();
        else if (pending != null) err.println(pending);
        pending = null;
        err.flush();
    }
}
