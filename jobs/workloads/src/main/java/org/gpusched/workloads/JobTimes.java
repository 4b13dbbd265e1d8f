package org.gpusched.workloads;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.gpusched.formats.FormatException;
import org.gpusched.workloads.ApplicationCatalog.Application;

/**
 * Builds a job's {@code times} table (node type -> GPU count -> seconds) from the application model, for node types
 * given as (name, GPU model, GPUs). A job may use 1..G GPUs of a type with G GPUs; a configuration the model gives no
 * time for (the job does not fit in its GPUs' memory) is left out, and so is a type with none.
 */
final class JobTimes {
    record TypeShape(String name, String gpuModel, int gpus) {}

    final Map<String, Map<Integer, Double>> times = new LinkedHashMap<>();
    double min = Double.POSITIVE_INFINITY;
    double max = 0;

    static JobTimes of(ApplicationCatalog catalog, List<TypeShape> shapes, Application app, int epochs, int batchSize) {
        JobTimes t = new JobTimes();
        for (TypeShape shape : shapes) {
            var gpu = catalog.gpu(shape.gpuModel());
            Map<Integer, Double> perGpus = new LinkedHashMap<>();
            for (int g = 1; g <= shape.gpus(); g++) {
                double exact = catalog.executionSeconds(app, gpu, g, epochs, batchSize);
                if (Double.isNaN(exact)) continue;
                double s = round3(exact);
                perGpus.put(g, s);
                t.min = Math.min(t.min, s);
                t.max = Math.max(t.max, s);
            }
            if (!perGpus.isEmpty()) t.times.put(shape.name(), perGpus);
        }
        if (t.times.isEmpty())
            throw new FormatException(
                    app.name() + " (batch " + batchSize + ") fits in the memory of no node type of the scenario",
                    "applications." + app.name());
        return t;
    }

    /** Millisecond precision keeps the trace small and its numbers exact in JSON. */
    static double round3(double seconds) {
        return Math.round(seconds * 1000.0) / 1000.0;
    }
}
