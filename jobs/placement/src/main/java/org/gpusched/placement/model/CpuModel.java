package org.gpusched.placement.model;

/**
 * A CPU package model for the PWR paper's eq. 1: idle and max (TDP) watts of one package, its physical cores and the
 * virtual CPUs mapped to one core (2 in the paper), so one package serves {@code physicalCores * vcpusPerCore} vCPUs.
 */
public record CpuModel(String name, double idleWatts, double maxWatts, int physicalCores, int vcpusPerCore)
        implements java.io.Serializable {
    public CpuModel {
        if (name == null || name.isBlank()) throw new IllegalArgumentException("CPU model name is empty");
        if (!(idleWatts >= 0) || !(maxWatts >= idleWatts))
            throw new IllegalArgumentException("CPU model " + name + ": need 0 <= idle <= max watts");
        if (physicalCores <= 0 || vcpusPerCore <= 0)
            throw new IllegalArgumentException("CPU model " + name + ": cores must be positive");
    }
}
