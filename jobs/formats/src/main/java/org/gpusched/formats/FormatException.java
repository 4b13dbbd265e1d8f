package org.gpusched.formats;

/** Bad input in one of the documented formats; the message says where (file, line, field) and why. */
public final class FormatException extends RuntimeException {
    private final String field;

    public FormatException(String message, String field) {
        super(message);
        this.field = field;
    }

    public FormatException(String message, String field, Throwable cause) {
        super(message, cause);
        this.field = field;
    }

    /** The offending field (dotted path), or null when the whole record is unreadable. */
    public String field() { return field; }

    /** The same error located in a file: "FILE:LINE: message". */
    public FormatException at(String file, long line) {
        return new FormatException(file + ":" + line + ": " + getMessage(), field, getCause());
    }
}
