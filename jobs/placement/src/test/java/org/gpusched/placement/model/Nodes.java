package org.gpusched.placement.model;

import java.util.Set;

/** Small hand-made nodes and tasks for tests. */
public final class Nodes {
    private Nodes() {}

    public static NodeSpec node(String name, long cpuMilli, long memMiB, int gpus, String model) {
        return new NodeSpec(
                name, cpuMilli, memMiB, gpus, gpus == 0 ? null : PowerCatalog.gpu(model), PowerCatalog.XEON_E5_2682_V4);
    }

    public static Task task(long cpuMilli, long memMiB, int gpus, int milli) {
        return Task.of("t", cpuMilli, memMiB, gpus, milli);
    }

    public static Task constrained(long cpuMilli, int gpus, int milli, String... models) {
        return new Task("c", cpuMilli, 0, gpus, milli, Set.of(models), Set.of());
    }
}
