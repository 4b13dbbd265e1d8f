package org.gpusched.placement.model;

/** A GPU model with the power figures of the PWR paper's power model (eq. 2): idle watts and TDP (max) watts. */
public record GpuModel(String name, double idleWatts, double maxWatts) implements java.io.Serializable {
    public GpuModel {
        if (name == null || name.isBlank()) throw new IllegalArgumentException("GPU model name is empty");
        if (!(idleWatts >= 0) || !(maxWatts >= idleWatts))
            throw new IllegalArgumentException("GPU model " + name + ": need 0 <= idle <= max watts");
    }
}
