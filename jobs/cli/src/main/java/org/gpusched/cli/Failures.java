package org.gpusched.cli;

import java.io.PrintWriter;
import java.nio.file.AccessDeniedException;
import java.nio.file.NoSuchFileException;
import org.gpusched.audit.AuditInputException;
import org.gpusched.formats.CsvFormatException;
import org.gpusched.formats.FormatException;
import org.gpusched.reports.ReportInputException;
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
        err.println(command.getCommandSpec().qualifiedName() + ": " + message(e)
                + (code == ExitCode.INTERNAL ? DEBUG_HINT : ""));
        if (System.getenv("GPUSCHED_DEBUG") != null) e.printStackTrace(err);
        err.flush();
        return code;
    }

    /** The exit code for a failure, from the first cause in its chain whose kind is known. */
    static int exitCode(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof FormatException
                    || t instanceof CsvFormatException
                    || t instanceof AuditInputException
                    || t instanceof ReportInputException
                    || t instanceof NoSuchFileException
                    || t instanceof AccessDeniedException
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
        String m = t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
        return m.strip().replaceAll("\\s*\\R\\s*", "; ");
    }
}
