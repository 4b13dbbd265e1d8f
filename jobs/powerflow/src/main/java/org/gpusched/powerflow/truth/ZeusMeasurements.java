package org.gpusched.powerflow.truth;

import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.dataformat.csv.CsvMapper;
import com.fasterxml.jackson.dataformat.csv.CsvSchema;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The Zeus V100 single-GPU measurements (bundled as zeus/summary_power_v100.csv, Apache-2.0, from the Zeus NSDI'23
 * artifacts): one row per workload, global batch size, optimizer and power limit, with time per epoch and average power.
 */
public final class ZeusMeasurements {
    /** One measured setting, converted to per-iteration figures with the workload's samples per epoch. */
    public record Point(
            String dataset,
            String network,
            String optimizer,
            int batchSize,
            double powerLimit,
            double timePerEpoch,
            double averagePower) {
        public double stepTime(double samplesPerEpoch) {
            return timePerEpoch * batchSize / samplesPerEpoch;
        }

        public double energyPerIteration(double samplesPerEpoch) {
            return stepTime(samplesPerEpoch) * averagePower;
        }

        public String group() {
            return dataset + "/" + network + "/" + optimizer;
        }
    }

    private ZeusMeasurements() {}

    public static List<Point> v100() {
        try (InputStream in = ZeusMeasurements.class.getResourceAsStream("/zeus/summary_power_v100.csv")) {
            if (in == null) throw new IllegalStateException("bundled zeus/summary_power_v100.csv missing");
            CsvMapper mapper = new CsvMapper();
            List<Point> out = new ArrayList<>();
            int line = 1;
            try (MappingIterator<Map<String, String>> it = mapper.readerForMapOf(String.class)
                    .with(CsvSchema.emptySchema().withHeader())
                    .readValues(in)) {
                while (it.hasNext()) {
                    Map<String, String> r = it.next();
                    line++;
                    try {
                        out.add(new Point(
                                r.get("dataset"),
                                r.get("network"),
                                r.get("optimizer"),
                                Integer.parseInt(r.get("batch_size")),
                                Double.parseDouble(r.get("power_limit")),
                                Double.parseDouble(r.get("time_per_epoch")),
                                Double.parseDouble(r.get("average_power"))));
                    } catch (RuntimeException e) {
                        throw new IllegalStateException("zeus/summary_power_v100.csv:" + line + ": " + e.getMessage());
                    }
                }
            }
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
