package org.gpusched.core.model;

/** An instance the optimizer cannot use; the message names the job or node and the reason. */
public final class InvalidInstanceException extends IllegalArgumentException {
    public InvalidInstanceException(String message) {
        super(message);
    }
}
