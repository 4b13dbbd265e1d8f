package org.gpusched.cli;

import java.io.PrintWriter;
import org.gpusched.audit.AuditInputException;
import org.gpusched.formats.CsvFormatException;
import org.gpusched.formats.FormatException;
import org.gpusched.reports.ReportInputException;
import org.gpusched.rundir.FileErrors;
import picocli.CommandLine;

/**
 * A command that fails with an exception prints one line, "gpusched CMD: message", and exits with the {@link ExitCode}
 * of the failure's kind: bad input (2), Kafka unreachable (4), anything else internal (3).
 */
final class Failures {
    static final String DEBUG_HINT = " (internal error; GPUSCHED_DEBUG=1 prints the stack trace)";

    private Failures() {}

    static int handle(Exception e, CommandLine command, CommandLine.ParseResult parseResult) {
        PrintWriter err = command.getErr();
        int code = exitCode(e);
        String name = command.getCommandSpec().qualifiedName();
        OutOfMemoryError oom = outOfMemory(e);
        err.println(name + ": "
                + (oom != null
                        ? outOfMemoryMessage(name, oom)
                        : message(e) + (code == ExitCode.INTERNAL ? DEBUG_HINT : "")));
        if (System.getenv("GPUSCHED_DEBUG") != null) e.printStackTrace(err);
        err.flush();
        return code;
    }

    /**
     * The line for a failure that picocli hands through (an Error: the heap ran out in the command's own thread), with
     * the subcommand when the first argument names one. It builds little, as the heap may be nearly full still.
     */
    static String uncaught(String[] args, Throwable e) {
        String command = args.length > 0 && args[0].matches("[a-z][a-z-]*") ? "gpusched " + args[0] : "gpusched";
        OutOfMemoryError oom = outOfMemory(e);
        return command + ": " + (oom != null ? outOfMemoryMessage(command, oom) : message(e) + DEBUG_HINT);
    }

    /** The heap ran out somewhere in this failure's chain (also in a Flink task, whose failure wraps it): or null. */
    static OutOfMemoryError outOfMemory(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof OutOfMemoryError oom) return oom;
        }
        return null;
    }

    /**
     * What to do when the heap runs out: the heap the JVM had and how to give it more (the launcher's
     * GPUSCHED_JAVA_OPTS), bounded by the machine's memory. Not an internal error: the run is larger than the heap.
     */
    static String outOfMemoryMessage(String command, OutOfMemoryError oom) {
        long heap = Runtime.getRuntime().maxMemory();
        long mib = 1L << 20;
        long machine = 0;
        if (java.lang.management.ManagementFactory.getOperatingSystemMXBean()
                instanceof com.sun.management.OperatingSystemMXBean os) machine = os.getTotalMemorySize();
        long gib = 1L << 30;
        long suggested = Math.max(2 * heap / gib + 1, 4);
        if (machine > 0) suggested = Math.max(1, Math.min(suggested, machine * 3 / 4 / gib));
        return String.format(
                java.util.Locale.ROOT,
                "out of memory (%s): the run needs more than this JVM's heap of %s; run the command again with a"
                        + " larger heap, e.g. GPUSCHED_JAVA_OPTS=-Xmx%dg %s ...%s (docs/cli.md#memory)",
                oom.getMessage() == null ? "OutOfMemoryError" : oom.getMessage(),
                heap >= gib
                        ? String.format(java.util.Locale.ROOT, "%.1f GB", heap / (double) gib)
                        : (heap / mib) + " MB",
                suggested,
                "bin/" + command,
                machine > 0
                        ? String.format(java.util.Locale.ROOT, "; this machine has %.1f GB", machine / (double) gib)
                        : "");
    }

    /** The exit code for a failure, from the first cause in its chain whose kind is known. */
    static int exitCode(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof FormatException
                    || t instanceof CsvFormatException
                    || t instanceof AuditInputException
                    || t instanceof ReportInputException
                    || t instanceof java.nio.file.FileSystemException // a path that cannot be read or written
                    || t instanceof java.nio.charset.CharacterCodingException
                    || t instanceof org.gpusched.streaming.RestoreMismatchException
                    || t instanceof org.apache.flink.util.SerializedThrowable s
                            && s.getOriginalErrorClassName()
                                    .equals(org.gpusched.streaming.RestoreMismatchException.class.getName())) {
                return ExitCode.BAD_INPUT;
            }
            if (t instanceof org.apache.kafka.common.errors.TimeoutException
                    || t instanceof org.apache.kafka.common.errors.NetworkException) {
                return ExitCode.UNAVAILABLE;
            }
        }
        return ExitCode.INTERNAL;
    }

    /** The most useful message of a failure: the root cause's, which names the file, line or field. */
    static String message(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null
                && t.getCause() != t
                && (t.getMessage() == null
                        || t instanceof java.util.concurrent.ExecutionException
                        || t instanceof java.util.concurrent.CompletionException
                        || t.getMessage().equals(t.getCause().toString())
                        || t.getClass().getName().startsWith("org.apache.flink"))) {
            t = t.getCause();
        }
        String m = t instanceof java.nio.file.FileSystemException fs
                ? FileErrors.describe(fs)
                : t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
        // "DIR: cannot create output directory" says what failed; the file system's cause says why
        for (Throwable c = t.getCause(); c != null && c != c.getCause(); c = c.getCause()) {
            if (c instanceof java.nio.file.FileSystemException fs) {
                String why = FileErrors.describe(fs);
                if (!m.contains(why)) m += " (" + why + ")";
                break;
            }
        }
        return m.strip().replaceAll("\\s*\\R\\s*", "; ");
    }
}
