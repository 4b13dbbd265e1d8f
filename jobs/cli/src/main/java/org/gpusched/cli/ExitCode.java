package org.gpusched.cli;

/**
 * The one exit-code scheme of every gpusched command (documented in docs/cli.md and in each command's --help).
 * A script can tell "the run found something" (1) from "you asked for something that cannot be done" (2), from
 * "Kafka is not there, try again later" (4) and from a bug (3).
 */
public final class ExitCode {
    private ExitCode() {}

    /** Done, and nothing to report. */
    public static final int OK = 0;
    /** Done, with findings: audit violations, accepted jobs left unfinished. */
    public static final int FINDINGS = 1;
    /** Bad usage or bad input: an unknown option or policy, a value out of range, a file that is missing or cannot be read. */
    public static final int BAD_INPUT = 2;
    /** An internal failure: a bug or an unexpected error (GPUSCHED_DEBUG=1 prints its stack trace); or the heap ran out. */
    public static final int INTERNAL = 3;
    /** A service the command needs is unreachable (the Kafka broker); the same command may succeed later. */
    public static final int UNAVAILABLE = 4;

    /** The "Exit codes:" section of every command's --help, so each --help agrees with this class. */
    static final String[] HELP = {
        OK + ":done, nothing to report",
        FINDINGS + ":done with findings (audit violations, accepted jobs left unfinished)",
        BAD_INPUT + ":bad usage or input (the message names the option, or the file and line)",
        INTERNAL
                + ":internal failure (GPUSCHED_DEBUG=1 prints the stack trace), or out of memory (the message says how to raise the heap)",
        UNAVAILABLE + ":Kafka unreachable (bin/kafka-local start runs a local broker)"
    };
}
