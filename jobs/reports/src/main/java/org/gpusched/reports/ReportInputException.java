package org.gpusched.reports;

/** A run directory the report cannot use; the message names the file (and line). */
public final class ReportInputException extends RuntimeException {
    public ReportInputException(String message) {
        super(message);
    }
}
