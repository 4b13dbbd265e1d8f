package org.gpusched.core.policy;

import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;

/** Waiting for the tasks an optimizer handed to helper threads, with the first failure kept. */
final class HelperTasks {
    private HelperTasks() {}

    /**
     * Waits for every task, also after one failed (they share the caller's tables), and throws the first failure:
     * {@code failure} (the caller's own, or null) else the first task's.
     *
     * @param doing what the tasks do, for the message when the wait is interrupted
     */
    static void awaitAll(List<Future<?>> tasks, RuntimeException failure, String doing) {
        for (Future<?> task : tasks) {
            try {
                task.get();
            } catch (ExecutionException e) {
                if (failure == null)
                    failure = e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                if (failure == null) failure = new IllegalStateException("interrupted while " + doing, e);
            }
        }
        if (failure != null) throw failure;
    }
}
