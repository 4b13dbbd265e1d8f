package org.gpusched.powerflow.truth;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.gpusched.powerflow.model.BatchSweep;

/**
 * What a job really does at a configuration, for the simulator only (policies never see it).
 *
 * <p>One GPU: the Zeus V100 measurement at the local batch size and power limit, interpolated linearly in the batch
 * size between measured sizes and in the limit between measured limits (step time and average power separately).
 * Several GPUs (the model of conf/powerflow.yaml, documented in docs/powerflow.md): each GPU computes its local batch
 * as one GPU would, then the gradients are all-reduced over a ring, {@code 2(n-1)/n x gradientMB} over the node's
 * link ({@code n <= gpusPerNode}) or the network, slower at lower limits by {@code (max/limit)^syncClockExponent}; a
 * share {@code syncOverlap} of it is hidden behind the backward pass and the GPUs draw {@code syncPowerFraction} of
 * their compute power while they wait on the rest.
 */
public final class GroundTruth {
    /** Step time (s) and energy per iteration over all GPUs (J). */
    public record Outcome(double stepTime, double energyPerIteration) {
        public double power() {
            return energyPerIteration / stepTime;
        }
    }

    private final PowerflowConfig config;
    private final Map<String, BatchSweep> tables = new HashMap<>();
    private final double maxPower;

    public GroundTruth(PowerflowConfig config, List<ZeusMeasurements.Point> points) {
        this.config = config;
        double sum = 0;
        int count = 0;
        for (PowerflowConfig.Workload w : config.workloads()) {
            TreeMap<Integer, TreeMap<Double, ZeusMeasurements.Point>> byBatch = new TreeMap<>();
            for (ZeusMeasurements.Point p : points)
                if (p.dataset().equals(w.dataset())
                        && p.network().equals(w.network())
                        && p.optimizer().equals(w.optimizer()))
                    byBatch.computeIfAbsent(p.batchSize(), b -> new TreeMap<>()).put(p.powerLimit(), p);
            if (byBatch.isEmpty())
                throw new IllegalArgumentException("workload " + w.name() + ": no Zeus measurement for " + w.dataset()
                        + "/" + w.network() + "/" + w.optimizer());
            double[] limits = config.gpu().powerLimits().stream()
                    .mapToDouble(Double::doubleValue)
                    .toArray();
            List<Integer> batches = new ArrayList<>();
            for (var e : byBatch.entrySet())
                if (e.getValue().keySet().containsAll(config.gpu().powerLimits())) batches.add(e.getKey());
            double[][] t = new double[batches.size()][limits.length], pw = new double[batches.size()][limits.length];
            for (int b = 0; b < batches.size(); b++)
                for (int l = 0; l < limits.length; l++) {
                    ZeusMeasurements.Point p = byBatch.get(batches.get(b)).get(limits[l]);
                    t[b][l] = p.stepTime(w.samplesPerEpoch());
                    pw[b][l] = p.averagePower();
                    if (l == limits.length - 1) {
                        sum += pw[b][l];
                        count++;
                    }
                }
            tables.put(
                    w.name(),
                    new BatchSweep(
                            batches.stream().mapToDouble(Integer::doubleValue).toArray(), limits, t, pw));
        }
        this.maxPower = sum / count;
    }

    public static GroundTruth defaults() {
        return new GroundTruth(PowerflowConfig.defaults(), ZeusMeasurements.v100());
    }

    public PowerflowConfig config() {
        return config;
    }

    /** P_max of the paper: the mean GPU power of the workloads' measured batch sizes at the largest limit. */
    public double maxPower() {
        return maxPower;
    }

    public double minLocalBatch(String workload) {
        return table(workload).smallestBatch();
    }

    public double[] measuredBatches(String workload) {
        return table(workload).batches();
    }

    /** The workload's measured single-GPU sweep (what one GPU really does). */
    public BatchSweep sweep(String workload) {
        return table(workload);
    }

    /** A job of {@code workload} at global batch {@code globalBatch} on {@code gpus} GPUs at {@code powerLimit} W. */
    public Outcome at(String workload, int gpus, double globalBatch, double powerLimit) {
        BatchSweep tb = table(workload);
        double bs = globalBatch / gpus;
        double t1 = tb.stepTime(bs, powerLimit);
        double p1 = tb.power(bs, powerLimit);
        if (gpus == 1) return new Outcome(t1, p1 * t1);
        PowerflowConfig.Scaling s = config.scaling();
        double gbps = gpus <= config.gpu().gpusPerNode() ? s.intraNodeGBps() : s.interNodeGBps();
        double sync = 2.0
                * (gpus - 1)
                / gpus
                * config.workload(workload).gradientMB()
                / 1000
                / gbps
                * Math.pow(config.gpu().maxLimit() / powerLimit, s.syncClockExponent());
        double waited = (1 - s.syncOverlap()) * sync;
        double step = t1 + waited;
        return new Outcome(step, gpus * (p1 * t1 + s.syncPowerFraction() * p1 * waited));
    }

    private BatchSweep table(String workload) {
        BatchSweep t = tables.get(workload);
        if (t == null) throw new IllegalArgumentException("unknown workload '" + workload + "'");
        return t;
    }
}
