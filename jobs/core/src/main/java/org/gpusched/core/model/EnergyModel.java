package org.gpusched.core.model;

/** Power figures and the energy tariff behind an ANDREAS node cost. */
public record EnergyModel(double gpuIdleWatts, double gpuMaxWatts, double hostWatts, double pricePerKwh, double pue) {
    public EnergyModel {
        if (!(gpuIdleWatts >= 0)
                || !(gpuMaxWatts >= gpuIdleWatts)
                || !(hostWatts >= 0)
                || !(pricePerKwh >= 0)
                || !(pue >= 1)) {
            throw new InvalidInstanceException(
                    "energy model: need 0 <= gpuIdleWatts <= gpuMaxWatts, hostWatts >= 0, pricePerKwh >= 0, pue >= 1; got "
                            + gpuIdleWatts + "/" + gpuMaxWatts + "/" + hostWatts + "/" + pricePerKwh + "/" + pue);
        }
    }
}
