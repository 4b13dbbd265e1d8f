package org.gpusched.powerflow.sim;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.gpusched.powerflow.truth.GroundTruth;

/**
 * PowerFlow traces as JSON Lines, one {@link TraceJob} per line:
 * {@code {"id":1,"submit":12.5,"workload":"resnet50","batch":256,"gpus":4,"iterations":52000}}.
 */
public final class TraceFiles {
    private static final ObjectMapper JSON = new ObjectMapper()
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
            .enable(DeserializationFeature.FAIL_ON_MISSING_CREATOR_PROPERTIES);

    private TraceFiles() {}

    /** Reads and checks a trace against the ground truth's workloads; errors name the file and line. */
    public static List<TraceJob> read(Path file, GroundTruth truth) throws IOException {
        if (!Files.isRegularFile(file)) throw new IllegalArgumentException(file + ": no such file");
        List<TraceJob> jobs = new ArrayList<>();
        Set<Long> ids = new HashSet<>();
        int line = 0;
        for (String text : Files.readAllLines(file)) {
            line++;
            if (text.isBlank()) continue;
            String where = file + ":" + line + ": ";
            TraceJob j;
            try {
                j = JSON.readValue(text, TraceJob.class);
            } catch (JsonProcessingException e) {
                throw new IllegalArgumentException(where + e.getOriginalMessage());
            }
            if (!ids.add(j.id())) throw new IllegalArgumentException(where + "duplicate id " + j.id());
            if (!(j.submit() >= 0) || !(j.iterations() > 0) || j.gpus() < 1 || !(j.batch() > 0))
                throw new IllegalArgumentException(
                        where + "submit >= 0, iterations > 0, gpus >= 1 and batch > 0 are required");
            try {
                if (j.batch() / j.gpus() < truth.minLocalBatch(j.workload()))
                    throw new IllegalArgumentException("batch " + j.batch() + " on " + j.gpus()
                            + " GPUs is below the smallest measured local batch " + truth.minLocalBatch(j.workload()));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(where + e.getMessage());
            }
            jobs.add(j);
        }
        if (jobs.isEmpty()) throw new IllegalArgumentException(file + ": no jobs");
        return jobs;
    }

    public static void write(Path file, List<TraceJob> jobs) throws IOException {
        if (file.getParent() != null) Files.createDirectories(file.getParent());
        try (BufferedWriter w = Files.newBufferedWriter(file)) {
            for (TraceJob j : jobs) {
                w.write(JSON.writeValueAsString(j));
                w.newLine();
            }
        }
    }
}
