package org.gpusched.streaming;

/**
 * A restore refused because the checkpoint was made for another job ({@link RestoreGuard}): the message names each
 * difference and what to do. A usage error for the command line (exit 2).
 */
public final class RestoreMismatchException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public RestoreMismatchException(String message) {
        super(message);
    }
}
