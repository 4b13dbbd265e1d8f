package org.gpusched.formats;

/**
 * A bad CSV file or row ({@link AlibabaCsv}), with the file and 1-based line (header = line 1; none for the whole
 * file) in the message and, when one value is at
 * fault, its column ({@link #column()}) and the reason without the location ({@link #reason()}).
 */
public final class CsvFormatException extends RuntimeException {
    private final String column;
    private final String reason;

    public CsvFormatException(String file, long line, String message) {
        super(where(file, line) + message);
        this.column = null;
        this.reason = message;
    }

    public CsvFormatException(String file, long line, String column, String message) {
        super(where(file, line) + "column '" + column + "': " + message);
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

    /** "file:line: ", or "file: " for a fault of the whole file (line 0). */
    private static String where(String file, long line) {
        return line == 0 ? file + ": " : file + ":" + line + ": ";
    }
}
