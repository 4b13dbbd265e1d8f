package org.gpusched.core.model;

import java.util.Arrays;
import java.util.Objects;

/**
 * A node type: a GPU model, a GPU count and the cost per hour with g = 0..G GPUs in use.
 * {@code costPerHour[0]} is what the node costs while switched on with no busy GPU; the real cost
 * rule never charges it because a node without jobs is off.
 */
public final class NodeType {
    private final String name;
    private final String gpuModel;
    private final int gpus;
    private final double[] costPerHour;
    /** The least cost per busy GPU and hour: min over b = 1..gpus of costPerHour[b] / b. */
    private final double cheapestGpuHour;

    public NodeType(String name, String gpuModel, int gpus, double[] costPerHour) {
        if (name == null || name.isBlank()) throw new InvalidInstanceException("node type: name is missing");
        if (gpus < 1) throw new InvalidInstanceException("node type " + name + ": gpus must be >= 1, got " + gpus);
        Objects.requireNonNull(costPerHour, "costPerHour");
        if (costPerHour.length != gpus + 1) {
            throw new InvalidInstanceException("node type " + name + ": costPerHour needs " + (gpus + 1) + " rates (0.."
                    + gpus + " busy GPUs), got " + costPerHour.length);
        }
        for (int g = 0; g <= gpus; g++) {
            if (!(costPerHour[g] >= 0) || Double.isInfinite(costPerHour[g])) {
                throw new InvalidInstanceException("node type " + name + ": costPerHour[" + g
                        + "] must be a finite number >= 0, got " + costPerHour[g]);
            }
        }
        this.name = name;
        this.gpuModel = gpuModel == null ? name : gpuModel;
        this.gpus = gpus;
        this.costPerHour = costPerHour.clone();
        double cheapest = Double.POSITIVE_INFINITY;
        for (int b = 1; b <= gpus; b++) cheapest = Math.min(cheapest, costPerHour[b] / b);
        this.cheapestGpuHour = cheapest;
    }

    /** A cloud VM leased whole: the same hourly price whatever the number of busy GPUs (hierarchical paper, Table II). */
    public static NodeType priced(String name, String gpuModel, int gpus, double vmPricePerHour) {
        double[] rate = new double[gpus + 1];
        Arrays.fill(rate, vmPricePerHour);
        return new NodeType(name, gpuModel, gpus, rate);
    }

    /**
     * ANDREAS energy cost: busy GPUs draw their maximum power, idle GPUs their idle power, plus the host's
     * share, times energy price per kWh, times PUE.
     */
    public static NodeType energy(String name, String gpuModel, int gpus, EnergyModel energy) {
        double[] rate = new double[gpus + 1];
        for (int g = 0; g <= gpus; g++) {
            double watts = energy.hostWatts() + g * energy.gpuMaxWatts() + (gpus - g) * energy.gpuIdleWatts();
            rate[g] = watts / 1000.0 * energy.pricePerKwh() * energy.pue();
        }
        return new NodeType(name, gpuModel, gpus, rate);
    }

    public String name() {
        return name;
    }

    public String gpuModel() {
        return gpuModel;
    }

    public int gpus() {
        return gpus;
    }

    public double costPerHour(int busyGpus) {
        return costPerHour[busyGpus];
    }

    /**
     * The least this type can charge a busy GPU for an hour, min over b = 1..gpus of costPerHour[b] / b: a node of this
     * type running b GPUs for a job costs at least b times this while it runs (the whole price of a VM leased whole
     * spread over all its GPUs; for an energy-priced node the host's power spread over all GPUs busy).
     */
    public double cheapestGpuHour() {
        return cheapestGpuHour;
    }

    public double[] costPerHour() {
        return costPerHour.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof NodeType t
                && t.name.equals(name)
                && t.gpuModel.equals(gpuModel)
                && t.gpus == gpus
                && Arrays.equals(t.costPerHour, costPerHour);
    }

    @Override
    public int hashCode() {
        return Objects.hash(name, gpus, Arrays.hashCode(costPerHour));
    }

    @Override
    public String toString() {
        return name + "(" + gpus + "x" + gpuModel + ")";
    }
}
