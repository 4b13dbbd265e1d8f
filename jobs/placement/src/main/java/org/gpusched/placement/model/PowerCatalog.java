package org.gpusched.placement.model;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The power figures the PWR paper assigns to the 2023 Alibaba trace's hardware (its Table II and section V-B): GPU idle
 * watts and TDP per model (G2 taken as A10, G3 as A100) and one CPU model for every node (Xeon E5-2682 v4, 15 W idle,
 * 120 W TDP, 16 cores, 2 vCPUs per core), since the trace names no CPU model.
 */
public final class PowerCatalog {
    public static final CpuModel XEON_E5_2682_V4 = new CpuModel("Xeon-E5-2682-v4", 15, 120, 16, 2);

    private static final Map<String, GpuModel> GPUS = new LinkedHashMap<>();

    static {
        add(new GpuModel("V100M16", 30, 300));
        add(new GpuModel("V100M32", 30, 300));
        add(new GpuModel("P100", 25, 250));
        add(new GpuModel("T4", 10, 70));
        add(new GpuModel("A10", 30, 150));
        add(new GpuModel("G2", 30, 150));
        add(new GpuModel("G3", 50, 400));
    }

    private PowerCatalog() {}

    private static void add(GpuModel model) {
        GPUS.put(model.name(), model);
    }

    /** The model by its trace name, or null when the paper gives no figures for it. */
    public static GpuModel gpu(String name) {
        return GPUS.get(name);
    }

    public static Iterable<String> gpuNames() {
        return GPUS.keySet();
    }
}
