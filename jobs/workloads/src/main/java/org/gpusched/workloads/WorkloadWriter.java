package org.gpusched.workloads;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.LongConsumer;
import org.gpusched.formats.ClusterSpec;
import org.gpusched.formats.ClusterYaml;
import org.gpusched.formats.TraceJob;
import org.gpusched.formats.TraceJson;

/** Writes {@code cluster.yaml} and streams {@code trace.jsonl} into a directory, one job at a time. */
public final class WorkloadWriter {
    public static final String TRACE = "trace.jsonl";
    public static final String CLUSTER = "cluster.yaml";

    /** What was written, for the summary table. */
    public record Summary(
            long jobs,
            int nodes,
            double lastSubmit,
            double meanFastestSeconds,
            double meanSlack,
            double meanWeight,
            Map<String, Long> perApplication) {}

    private WorkloadWriter() {}

    public static Summary write(ClusterSpec cluster, Iterator<TraceJob> jobs, Path outDir, LongConsumer progress) {
        createDirectories(outDir);
        ClusterYaml.write(outDir.resolve(CLUSTER), cluster);
        Tally tally = new Tally();
        try (BufferedWriter out = Files.newBufferedWriter(outDir.resolve(TRACE), StandardCharsets.UTF_8)) {
            while (jobs.hasNext()) {
                TraceJob tj = jobs.next();
                out.write(TraceJson.write(tj));
                out.write('\n');
                tally.add(tj, progress);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(outDir.resolve(TRACE) + ": cannot write", e);
        }
        return tally.summary(cluster.cluster().nodeCount());
    }

    static void createDirectories(Path outDir) {
        try {
            Files.createDirectories(outDir);
        } catch (IOException e) {
            throw new UncheckedIOException(outDir + ": cannot create output directory", e);
        }
    }

    /** The summary of the jobs written so far, one job at a time; reports progress every 65,536 jobs. */
    static final class Tally {
        private long n;
        private double lastSubmit, sumFastest, sumSlack, sumWeight;
        private final Map<String, Long> perApp = new TreeMap<>();

        void add(TraceJob tj, LongConsumer progress) {
            n++;
            var job = tj.job();
            double fastest = Double.POSITIVE_INFINITY;
            for (var perGpus : job.times().values()) for (double s : perGpus.values()) fastest = Math.min(fastest, s);
            lastSubmit = job.submitSeconds();
            sumFastest += fastest;
            sumSlack += job.dueSeconds() - job.submitSeconds();
            sumWeight += job.weightPerHour();
            Object app = tj.extras().get("application");
            if (app != null) perApp.merge(app.toString(), 1L, Long::sum);
            if (progress != null && (n & 0xFFFF) == 0) progress.accept(n);
        }

        Summary summary(int nodes) {
            return new Summary(
                    n,
                    nodes,
                    lastSubmit,
                    n == 0 ? 0 : sumFastest / n,
                    n == 0 ? 0 : sumSlack / n,
                    n == 0 ? 0 : sumWeight / n,
                    perApp);
        }
    }
}
