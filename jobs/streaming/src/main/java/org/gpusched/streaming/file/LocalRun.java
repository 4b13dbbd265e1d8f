package org.gpusched.streaming.file;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.gpusched.streaming.EmbeddedFlink;
import org.gpusched.streaming.JobSources;
import org.gpusched.streaming.SchedulerConfig;
import org.gpusched.streaming.SchedulerJob;

/**
 * Runs the scheduler job on a local Flink MiniCluster over files: {@link SchedulerJob#define} with the given sources
 * and {@link FileJobSinks} into a parts directory, reporting progress (finished jobs, counted from the job-metrics
 * part files as they grow) while it runs.
 */
public final class LocalRun {
    private LocalRun() {}

    /** How far a run is: (job, policy) pairs finished, and records rejected (bad trace lines, jobs no controller can run). */
    public record Progress(long finished, long rejected) {}

    /**
     * @param progress called about once a second with the finished pairs and the rejected records so far
     */
    public static JobExecutionResult run(
            SchedulerConfig cfg,
            JobSources sources,
            Path parts,
            int parallelism,
            String jobName,
            Consumer<Progress> progress)
            throws Exception {
        return run(cfg, sources, parts, parallelism, jobName, new Configuration(), progress);
    }

    /** As above, on a mini cluster configured with {@code flink} (a metric reporter, for instance). */
    public static JobExecutionResult run(
            SchedulerConfig cfg,
            JobSources sources,
            Path parts,
            int parallelism,
            String jobName,
            Configuration flink,
            Consumer<Progress> progress)
            throws Exception {
        Files.createDirectories(parts);
        try (DirectoryStream<Path> old = Files.newDirectoryStream(parts, "*.jsonl")) {
            for (Path p : old) Files.delete(p);
        }
        StreamExecutionEnvironment env = EmbeddedFlink.local(parallelism, flink);
        SchedulerJob.define(env, sources, new FileJobSinks(parts), cfg);
        JobClient client = env.executeAsync(jobName);
        LineCounter finished = new LineCounter(parts, FileJobSinks.JOB_METRICS);
        LineCounter rejected = new LineCounter(parts, FileJobSinks.REJECTED);
        var result = client.getJobExecutionResult();
        while (!result.isDone()) {
            try {
                result.get(1, java.util.concurrent.TimeUnit.SECONDS);
            } catch (java.util.concurrent.TimeoutException e) {
                progress.accept(new Progress(finished.count(), rejected.count()));
            }
        }
        JobExecutionResult r = result.get();
        progress.accept(new Progress(finished.count(), rejected.count()));
        return r;
    }

    /** Counts lines of growing part files incrementally (reads only what was appended since the last call). */
    static final class LineCounter {
        private final Path dir;
        private final String name;
        private final Map<Path, Long> offsets = new HashMap<>();
        private final byte[] buffer = new byte[1 << 16];
        private long lines;

        LineCounter(Path dir, String name) {
            this.dir = dir;
            this.name = name;
        }

        long count() {
            try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, name + "-*.jsonl")) {
                for (Path f : ds) {
                    long from = offsets.getOrDefault(f, 0L);
                    try (RandomAccessFile raf = new RandomAccessFile(f.toFile(), "r")) {
                        long len = raf.length();
                        if (len <= from) continue;
                        raf.seek(from);
                        long at = from;
                        while (at < len) {
                            int n = raf.read(buffer, 0, (int) Math.min(buffer.length, len - at));
                            if (n < 0) break;
                            for (int i = 0; i < n; i++) if (buffer[i] == '\n') lines++;
                            at += n;
                        }
                        offsets.put(f, at);
                    }
                }
            } catch (IOException e) {
                // progress is best effort; the final result does not depend on it
            }
            return lines;
        }
    }
}
