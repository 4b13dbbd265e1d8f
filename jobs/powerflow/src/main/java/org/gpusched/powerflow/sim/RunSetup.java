package org.gpusched.powerflow.sim;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.gpusched.powerflow.policy.TimeSlicing;
import org.gpusched.powerflow.truth.PowerflowConfig;

/**
 * How a PowerFlow run directory was simulated, written beside its results so that the audit can replay it from the
 * directory alone: {@code setup.json} (cluster GPUs, seed, whether policies saw the ground truth and the {@link
 * ModelSource}'s label; directories written before the label have {@code truthModels} alone; PowerFlow's start limit
 * where a PowerFlow run is in the directory, absent in directories written before it; the time-slicing of each
 * run that time-slices, by run name, absent in directories written before it), {@code powerflow.yaml}
 * (the ground-truth configuration used) and {@code trace.jsonl} (the jobs).
 */
public record RunSetup(
        int gpus,
        long seed,
        boolean truthModels,
        String models,
        @JsonInclude(JsonInclude.Include.NON_NULL) String startLimit,
        @JsonInclude(JsonInclude.Include.NON_EMPTY) Map<String, TimeSlicing> timeSlicing) {
    public static final String SETUP = "setup.json", CONFIG = "powerflow.yaml", TRACE = "trace.jsonl";

    private static final ObjectMapper JSON =
            new ObjectMapper().enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    public RunSetup {
        timeSlicing = timeSlicing == null ? Map.of() : Collections.unmodifiableMap(new TreeMap<>(timeSlicing));
    }

    public static RunSetup of(int gpus, long seed, ModelSource models) {
        return of(gpus, seed, models, null, Map.of());
    }

    /** {@code startLimit}: the label of PowerFlow's {@code StartLimit}, null when no PowerFlow run is in it. */
    public static RunSetup of(
            int gpus, long seed, ModelSource models, String startLimit, Map<String, TimeSlicing> timeSlicing) {
        return new RunSetup(gpus, seed, models.truth(), models.label(), startLimit, timeSlicing);
    }

    /** The run's time-slicing, {@link TimeSlicing#NONE} when it does not time-slice. */
    public TimeSlicing timeSlicing(String run) {
        return timeSlicing.getOrDefault(run, TimeSlicing.NONE);
    }

    public static void write(Path dir, RunSetup setup, PowerflowConfig config, List<TraceJob> trace)
            throws IOException {
        Files.createDirectories(dir);
        JSON.writeValue(dir.resolve(SETUP).toFile(), setup);
        YAML.writeValue(dir.resolve(CONFIG).toFile(), config);
        TraceFiles.write(dir.resolve(TRACE), trace);
    }

    /** Whether {@code dir} is a PowerFlow run directory (written by {@code gpusched powerflow}). */
    public static boolean isRunDirectory(Path dir) {
        return Files.isRegularFile(dir.resolve(SETUP)) && Files.isRegularFile(dir.resolve("results.csv"));
    }

    public static RunSetup read(Path dir) throws IOException {
        Path file = dir.resolve(SETUP);
        if (!Files.isRegularFile(file)) throw new IllegalArgumentException(file + ": no such file");
        try {
            return JSON.readValue(file.toFile(), RunSetup.class);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalArgumentException(file + ": " + e.getOriginalMessage());
        }
    }
}
