package org.gpusched.placement.io;

/**
 * A bad input file or row, with the file and 1-based line (header = line 1) in the message and, when one value is at
 * fault, its column ({@link #column()}) and the reason without the location ({@link #reason()}).
 */
public final class TraceFormatException extends RuntimeException {
    private final String column;
    private final String reason;

    public TraceFormatException(String file, long line, String message) {
        super(file + ":" + line + ": " + message);
        this.column = null;
        this.reason = message;
    }

    public TraceFormatException(String file, long line, String column, String message) {
        super(file + ":" + line + ": column '" + column + "': " + message);
        this.column = column;
        this.reason = "column '" + column + "': " + message;
    }

    /** The offending column, or null when the whole row or file is at fault. */
    public String column() {
        return column;
    }

    /** The message without "file:line: ". */
    public String reason() {
        return reason;
    }
}
