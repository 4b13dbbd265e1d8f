package org.gpusched.core.model;

import java.util.Map;

/**
 * A training job as submitted: times in seconds from the trace origin, the tardiness weight in cost per hour
 * late, and the predicted execution time (seconds, from start to end with no work done) for every
 * (node type, GPU count) it can run on. Configurations it cannot run on are simply absent.
 */
public record Job(
        String id,
        double submitSeconds,
        double dueSeconds,
        double weightPerHour,
        Map<String, Map<Integer, Double>> times) {

    public Job {
        if (id == null || id.isBlank()) throw new InvalidInstanceException("job: id is missing");
        if (!Double.isFinite(submitSeconds) || submitSeconds < 0)
            throw new InvalidInstanceException(
                    "job " + id + ": submit must be a finite time >= 0, got " + submitSeconds);
        if (!Double.isFinite(dueSeconds))
            throw new InvalidInstanceException("job " + id + ": due must be a finite time, got " + dueSeconds);
        if (dueSeconds < submitSeconds)
            throw new InvalidInstanceException(
                    "job " + id + ": due date " + dueSeconds + " is before its submission " + submitSeconds);
        if (!Double.isFinite(weightPerHour) || weightPerHour < 0)
            throw new InvalidInstanceException(
                    "job " + id + ": weight must be a finite number >= 0, got " + weightPerHour);
        if (times == null || times.isEmpty())
            throw new InvalidInstanceException("job " + id + ": no execution times (times is empty)");
        boolean someTimes = false;
        for (var byType : times.entrySet()) {
            if (byType.getValue() == null)
                throw new InvalidInstanceException("job " + id + ": times." + byType.getKey() + " is missing");
            for (var e : byType.getValue().entrySet()) {
                Integer g = e.getKey();
                Double t = e.getValue();
                if (g == null || g < 1)
                    throw new InvalidInstanceException(
                            "job " + id + ": times." + byType.getKey() + " has GPU count " + g + " (must be >= 1)");
                if (t == null || !Double.isFinite(t) || t <= 0)
                    throw new InvalidInstanceException("job " + id + ": times." + byType.getKey() + "." + g
                            + " must be a positive number of seconds, got " + t);
            }
            someTimes |= !byType.getValue().isEmpty();
        }
        if (!someTimes) throw new InvalidInstanceException("job " + id + ": no configuration to run on");
        // checked first, then copied whole into flat arrays
        times = TimesByType.of(times);
    }

    /** Predicted full execution time on {@code type} with {@code gpus} GPUs, or NaN if the job cannot run there. */
    public double timeOn(String type, int gpus) {
        // the constructor stores the times as TimesByType: read unboxed
        return ((TimesByType) times).seconds(type, gpus);
    }
}
