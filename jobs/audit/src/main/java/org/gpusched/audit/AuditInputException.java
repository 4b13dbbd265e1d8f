package org.gpusched.audit;

/** A run directory the auditor cannot read at all (missing file, unparsable line); the message says file and line. */
public final class AuditInputException extends RuntimeException {
    public AuditInputException(String message) {
        super(message);
    }

    public AuditInputException(String message, Throwable cause) {
        super(message, cause);
    }
}
