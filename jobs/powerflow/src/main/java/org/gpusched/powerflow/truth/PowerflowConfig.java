package org.gpusched.powerflow.truth;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** The typed form of conf/powerflow.yaml: hardware, multi-GPU scaling, telemetry noise and workloads. */
public record PowerflowConfig(Gpu gpu, Scaling scaling, Telemetry telemetry, List<Workload> workloads) {
    public record Gpu(String model, List<Double> powerLimits, double idleWatts, int gpusPerNode) {
        public double maxLimit() {
            return powerLimits.get(powerLimits.size() - 1);
        }

        /** The knob settings as fractions of the largest power limit, ascending. */
        public double[] freqLevels() {
            return powerLimits.stream().mapToDouble(p -> p / maxLimit()).toArray();
        }
    }

    public record Scaling(
            double intraNodeGBps,
            double interNodeGBps,
            double syncClockExponent,
            double syncOverlap,
            double syncPowerFraction) {}

    public record Telemetry(double noise, double profileSecondsPerLimit) {}

    public record Workload(
            String name, String dataset, String network, String optimizer, double samplesPerEpoch, double gradientMB) {}

    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory())
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES);

    public static PowerflowConfig defaults() {
        try (InputStream in = PowerflowConfig.class.getResourceAsStream("/org/gpusched/powerflow/powerflow.yaml")) {
            if (in == null) throw new IllegalStateException("bundled powerflow.yaml missing");
            return validated(YAML.readValue(in, PowerflowConfig.class), "bundled powerflow.yaml");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static PowerflowConfig read(Path file) throws IOException {
        if (!Files.isRegularFile(file)) throw new IllegalArgumentException(file + ": no such file");
        try {
            return validated(YAML.readValue(file.toFile(), PowerflowConfig.class), file.toString());
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            var loc = e.getLocation();
            throw new IllegalArgumentException(
                    file + (loc == null ? "" : ":" + loc.getLineNr()) + ": " + e.getOriginalMessage());
        }
    }

    private static PowerflowConfig validated(PowerflowConfig c, String where) {
        if (c.gpu == null || c.scaling == null || c.telemetry == null || c.workloads == null || c.workloads.isEmpty())
            throw new IllegalArgumentException(where + ": gpu, scaling, telemetry and workloads are required");
        if (c.gpu.powerLimits == null || c.gpu.powerLimits.isEmpty())
            throw new IllegalArgumentException(where + ": gpu.powerLimits is empty");
        for (int i = 1; i < c.gpu.powerLimits.size(); i++)
            if (c.gpu.powerLimits.get(i) <= c.gpu.powerLimits.get(i - 1))
                throw new IllegalArgumentException(where + ": gpu.powerLimits must ascend");
        if (c.gpu.gpusPerNode < 1 || Integer.bitCount(c.gpu.gpusPerNode) != 1)
            throw new IllegalArgumentException(
                    where + ": gpu.gpusPerNode must be a power of two, got " + c.gpu.gpusPerNode);
        if (c.scaling.intraNodeGBps <= 0 || c.scaling.interNodeGBps <= 0)
            throw new IllegalArgumentException(where + ": bandwidths must be > 0");
        if (c.scaling.syncOverlap < 0 || c.scaling.syncOverlap > 1)
            throw new IllegalArgumentException(where + ": scaling.syncOverlap must be in [0, 1]");
        if (c.telemetry.noise < 0 || c.telemetry.noise > 0.5)
            throw new IllegalArgumentException(where + ": telemetry.noise must be in [0, 0.5]");
        return c;
    }

    public Workload workload(String name) {
        for (Workload w : workloads) if (w.name.equals(name)) return w;
        throw new IllegalArgumentException("unknown workload '" + name + "'");
    }
}
