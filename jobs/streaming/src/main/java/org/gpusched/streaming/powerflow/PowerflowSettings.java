package org.gpusched.streaming.powerflow;

import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import org.gpusched.powerflow.policy.ClusterView;
import org.gpusched.powerflow.policy.PowerFlowPolicy;
import org.gpusched.powerflow.truth.GroundTruth;
import org.gpusched.powerflow.truth.PowerflowConfig;
import org.gpusched.powerflow.truth.ZeusMeasurements;

/**
 * The typed configuration of the streaming powerflow scheduler, validated once. What the policy may know is the
 * cluster (GPU count, GPUs per node, the power limits, P_max) and, per workload, the smallest local batch a job may be
 * split to; the measurements behind the ground truth are read only by the replay's simulated cluster, from
 * {@link #hardwareFile} (null: the bundled conf/powerflow.yaml).
 *
 * @param eta the energy budget: the cluster's GPUs may draw eta x G x P_max
 * @param budgetCheck how the budget bounds a decision (Algorithm 1's node-boundary check by default)
 * @param startLimit the limit a job starts at before clocks are raised (eq. 17's most efficient by default)
 * @param replay whether the job simulates execution and telemetry (files or a bounded topic) or reads them (live)
 */
public record PowerflowSettings(
        double eta,
        PowerFlowPolicy.BudgetCheck budgetCheck,
        PowerFlowPolicy.StartLimit startLimit,
        int totalGpus,
        int gpusPerNode,
        double[] powerLimits,
        double maxPowerWatts,
        String gpuModel,
        Map<String, Double> minLocalBatch,
        boolean replay,
        long seed,
        double telemetryNoise,
        double profileSecondsPerLimit,
        String hardwareFile,
        Duration outOfOrderness,
        Duration idleTimeout,
        Duration checkpointInterval,
        Duration watermarkInterval,
        boolean unboundedInputs)
        implements Serializable {
    public static final String POLICY = "powerflow";

    public PowerflowSettings {
        if (!(eta > 0) || eta > 1.5) throw new IllegalArgumentException("--eta must be in (0, 1.5], got " + eta);
        if (gpusPerNode < 1 || totalGpus < gpusPerNode || totalGpus % gpusPerNode != 0)
            throw new IllegalArgumentException(
                    "--gpus must be a positive multiple of " + gpusPerNode + " (GPUs per node), got " + totalGpus);
        if (powerLimits.length == 0) throw new IllegalArgumentException("no power limits");
        if (budgetCheck == null) throw new IllegalArgumentException("no budget check");
        if (startLimit == null) throw new IllegalArgumentException("no start limit");
        minLocalBatch = Map.copyOf(new TreeMap<>(minLocalBatch));
        powerLimits = powerLimits.clone();
    }

    /**
     * Settings from a hardware file (null: the bundled one): the cluster's limits, P_max and each workload's smallest
     * measured batch come from it; live mode never reads anything else of it.
     */
    public static PowerflowSettings of(double eta, int totalGpus, boolean replay, long seed, Path hardwareFile) {
        PowerflowConfig config;
        try {
            config = hardwareFile == null ? PowerflowConfig.defaults() : PowerflowConfig.read(hardwareFile);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        GroundTruth truth = new GroundTruth(config, ZeusMeasurements.v100());
        Map<String, Double> minBatch = new TreeMap<>();
        for (PowerflowConfig.Workload w : config.workloads()) minBatch.put(w.name(), truth.minLocalBatch(w.name()));
        return new PowerflowSettings(
                eta,
                PowerFlowPolicy.BudgetCheck.NODE_BOUNDARY,
                PowerFlowPolicy.StartLimit.EFFICIENT,
                totalGpus,
                config.gpu().gpusPerNode(),
                config.gpu().powerLimits().stream()
                        .mapToDouble(Double::doubleValue)
                        .toArray(),
                truth.maxPower(),
                config.gpu().model(),
                minBatch,
                replay,
                seed,
                config.telemetry().noise(),
                config.telemetry().profileSecondsPerLimit(),
                hardwareFile == null ? null : hardwareFile.toAbsolutePath().toString(),
                Duration.ZERO,
                Duration.ofSeconds(5),
                Duration.ZERO,
                Duration.ofMillis(20),
                false);
    }

    /** As these, with the streaming options of a run. */
    public PowerflowSettings withStreaming(
            Duration outOfOrderness,
            Duration idleTimeout,
            Duration checkpointInterval,
            Duration watermarkInterval,
            boolean unboundedInputs) {
        return new PowerflowSettings(
                eta,
                budgetCheck,
                startLimit,
                totalGpus,
                gpusPerNode,
                powerLimits,
                maxPowerWatts,
                gpuModel,
                minLocalBatch,
                replay,
                seed,
                telemetryNoise,
                profileSecondsPerLimit,
                hardwareFile,
                outOfOrderness,
                idleTimeout,
                checkpointInterval,
                watermarkInterval,
                unboundedInputs);
    }

    /** As these, with another budget check. */
    public PowerflowSettings withBudgetCheck(PowerFlowPolicy.BudgetCheck check) {
        return new PowerflowSettings(
                eta,
                check,
                startLimit,
                totalGpus,
                gpusPerNode,
                powerLimits,
                maxPowerWatts,
                gpuModel,
                minLocalBatch,
                replay,
                seed,
                telemetryNoise,
                profileSecondsPerLimit,
                hardwareFile,
                outOfOrderness,
                idleTimeout,
                checkpointInterval,
                watermarkInterval,
                unboundedInputs);
    }

    /** As these, with another start limit. */
    public PowerflowSettings withStartLimit(PowerFlowPolicy.StartLimit start) {
        return new PowerflowSettings(
                eta,
                budgetCheck,
                start,
                totalGpus,
                gpusPerNode,
                powerLimits,
                maxPowerWatts,
                gpuModel,
                minLocalBatch,
                replay,
                seed,
                telemetryNoise,
                profileSecondsPerLimit,
                hardwareFile,
                outOfOrderness,
                idleTimeout,
                checkpointInterval,
                watermarkInterval,
                unboundedInputs);
    }

    /** The policy these settings decide with. */
    public PowerFlowPolicy policy() {
        return new PowerFlowPolicy(eta, PowerFlowPolicy.Normalizer.CLUSTER, budgetCheck, startLimit);
    }

    /** The cluster as the policy sees it. */
    public ClusterView cluster() {
        return new ClusterView(totalGpus, gpusPerNode, powerLimits.clone(), maxPowerWatts);
    }

    /** The knob settings: each limit over the largest. */
    public double[] freqLevels() {
        double max = powerLimits[powerLimits.length - 1];
        double[] f = new double[powerLimits.length];
        for (int i = 0; i < f.length; i++) f[i] = powerLimits[i] / max;
        return f;
    }

    public double freq(double powerLimitWatts) {
        return powerLimitWatts / powerLimits[powerLimits.length - 1];
    }

    /** Whether event time advances only at the end of the input (-1 ms, as the scheduler job's setting). */
    public boolean watermarkAtEndOfInputOnly() {
        return outOfOrderness.isNegative();
    }

    /** The largest power-of-two worker count the job's global batch allows (local batch >= the workload's smallest). */
    public int maxGpus(String workload, double globalBatch) {
        double min = minLocalBatch.getOrDefault(workload, 1.0);
        int m = (int) Math.floor(globalBatch / min);
        return Math.max(1, Math.min(Integer.highestOneBit(Math.max(m, 1)), totalGpus));
    }

    /**
     * The hardware file's measurements and model: the replay's ground truth (never given to the policy), and, live or
     * replayed, what the models' scale-out prior may read of it (the workloads' batch sweeps, gradient sizes and the
     * cluster's link bandwidths).
     */
    public GroundTruth groundTruth() {
        try {
            PowerflowConfig config =
                    hardwareFile == null ? PowerflowConfig.defaults() : PowerflowConfig.read(Path.of(hardwareFile));
            return new GroundTruth(config, ZeusMeasurements.v100());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
