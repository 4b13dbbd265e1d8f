package org.gpusched.formats;

/** Bad input in one of the documented formats; the message says where (file, line, field) and why. */
public final class FormatException extends RuntimeException {
    /** The field of an error about the whole record: unreadable bytes, not JSON, too long, more than one value. */
    public static final String WHOLE_RECORD = "record";

    private final String field;

    public FormatException(String message, String field) {
        super(message);
        this.field = field == null ? WHOLE_RECORD : field;
    }

    public FormatException(String message, String field, Throwable cause) {
        super(message, cause);
        this.field = field == null ? WHOLE_RECORD : field;
    }

    /** The offending field (dotted path), or {@value #WHOLE_RECORD} when the whole record is unreadable. */
    public String field() {
        return field;
    }

    /** The same error located in a file: "FILE:LINE: message". */
    public FormatException at(String file, long line) {
        return new FormatException(file + ":" + line + ": " + getMessage(), field, getCause());
    }
}
