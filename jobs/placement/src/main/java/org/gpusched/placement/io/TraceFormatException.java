package org.gpusched.placement.io;

/** A bad input file or row, with the file and 1-based line (header = line 1) in the message. */
public final class TraceFormatException extends RuntimeException {
    public TraceFormatException(String file, long line, String message) {
        super(file + ":" + line + ": " + message);
    }
}
