package org.gpusched.streaming.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.file.src.FileSource;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.gpusched.formats.ClusterYaml;
import org.gpusched.streaming.JobSinks;
import org.gpusched.streaming.JobSources;
import org.gpusched.streaming.RawRecord;
import org.gpusched.streaming.SchedulerConfig;
import org.gpusched.streaming.SchedulerJob;
import org.gpusched.streaming.avro.JobCompleted;
import org.gpusched.streaming.avro.JobMetrics;
import org.gpusched.streaming.avro.PlacementDecision;
import org.gpusched.streaming.avro.RejectedRecord;
import org.gpusched.streaming.avro.SchedulingMetrics;
import org.gpusched.streaming.file.NumberedLineFormat;
import org.gpusched.workloads.BenchmarkWorkload;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs the scheduler on a MiniCluster with Flink's Prometheus reporter, over a trace read by a continuously monitored
 * file source (so the job keeps running once the trace is consumed), scrapes the endpoint while the job runs, and checks
 * the controller's gauges and counters against the decisions and scheduling metrics the job emitted.
 */
class OperationalMetricsIT {
    private static final ConcurrentLinkedQueue<PlacementDecision> DECISIONS = new ConcurrentLinkedQueue<>();
    private static final ConcurrentLinkedQueue<SchedulingMetrics> SCHEDULING = new ConcurrentLinkedQueue<>();
    private static final ConcurrentLinkedQueue<RejectedRecord> REJECTED = new ConcurrentLinkedQueue<>();

    @TempDir
    Path dir;

    @Test
    void prometheusScrapeMatchesTheEmittedDecisions() throws Exception {
        Path traceDir = Files.createDirectories(dir.resolve("trace"));
        BenchmarkWorkload workload = new BenchmarkWorkload(60, 8, 1.5, 7);
        Path trace = traceDir.resolve("trace.jsonl");
        workload.writeTrace(trace);
        Files.writeString(trace, "{\"id\": \"broken\"\n", java.nio.file.StandardOpenOption.APPEND);
        Path cluster = dir.resolve("cluster.yaml");
        workload.writeCluster(cluster);
        SchedulerConfig cfg = SchedulerConfig.builder()
                .cluster(ClusterYaml.read(cluster))
                .policy("andreas-rg")
                .maxIterations(20)
                .build();

        int port = freePort();
        StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironment(
                1, OperationalMetrics.prometheus(new Configuration(), Integer.toString(port), "127.0.0.1"));
        SchedulerJob.define(env, new MonitoredTrace(traceDir), new Collecting(), cfg);
        JobClient job = env.executeAsync("operational metrics IT");
        try {
            Map<String, Double> scraped = scrapeUntilSettled(port, Duration.ofSeconds(90));
            List<SchedulingMetrics> metrics = new ArrayList<>(SCHEDULING);
            SchedulingMetrics last = metrics.get(metrics.size() - 1);
            Map<String, Integer> held = new HashMap<>();
            Map<String, Integer> byAction = new HashMap<>();
            for (PlacementDecision d : DECISIONS) {
                byAction.merge(d.getAction().name(), 1, Integer::sum);
                switch (d.getAction()) {
                    case START, RESIZE, MIGRATE -> held.put(d.getJob(), d.getGpus());
                    case PREEMPT, COMPLETE -> held.remove(d.getJob());
                }
            }
            int busy = held.values().stream().mapToInt(Integer::intValue).sum();
            assertTrue(busy > 0, "the trace should leave jobs running at the last submission's time");
            assertEquals(busy, gauge(scraped, "controller_busyGpus"), "busy GPUs");
            assertEquals(held.size(), gauge(scraped, "controller_runningJobs"), "running jobs");
            assertEquals(last.getQueueLength(), gauge(scraped, "controller_queueLength"), "queue length");
            assertEquals(last.getCostRatePerHour(), gauge(scraped, "controller_costRatePerHour"), 1e-9, "cost rate");
            assertEquals(metrics.size(), gauge(scraped, "controller_reschedulings"), "reschedulings");
            for (var e : byAction.entrySet()) {
                assertEquals(
                        (double) e.getValue(),
                        gauge(scraped, "action_decisions{action=\"" + e.getKey() + "\""),
                        "decisions " + e.getKey());
            }
            assertEquals(REJECTED.size(), gauge(scraped, "source_rejectedRecords"), "rejected records");
            assertEquals(1, REJECTED.size());
            assertTrue(gauge(scraped, "controller_optimizerMicros_count") > 0, "optimizer latency histogram");
        } finally {
            job.cancel().get();
        }
    }

    /** Scrapes until two scrapes a second apart agree on the controller's figures and every decision is counted. */
    private static Map<String, Double> scrapeUntilSettled(int port, Duration timeout) throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        long end = System.nanoTime() + timeout.toNanos();
        Map<String, Double> previous = Map.of();
        while (System.nanoTime() < end) {
            Thread.sleep(1000);
            Map<String, Double> now;
            try {
                String body = http.send(
                                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
                                        .build(),
                                HttpResponse.BodyHandlers.ofString())
                        .body();
                now = parse(body);
            } catch (IOException notYet) {
                continue;
            }
            boolean counted = !DECISIONS.isEmpty() && now.keySet().stream().anyMatch(k -> k.contains("busyGpus"));
            if (counted && now.equals(previous) && gaugeOrNaN(now, "reschedulings") == SCHEDULING.size()) return now;
            previous = now;
        }
        throw new AssertionError("the metrics did not settle within " + timeout + "; last scrape: " + previous);
    }

    private static final Pattern SERIES =
            Pattern.compile("^flink_taskmanager_job_task_operator_((?:controller|source)_\\w+)\\{(.*)}\\s+(\\S+)$");
    private static final Pattern LABEL = Pattern.compile("(controller|action|source|quantile)=\"([^\"]*)\"");

    /** The product's series of a Prometheus text exposition: name{its own labels} -> value (Flink's task labels dropped). */
    private static Map<String, Double> parse(String body) {
        Map<String, Double> series = new java.util.TreeMap<>();
        for (String line : body.split("\n")) {
            Matcher m = SERIES.matcher(line.trim());
            if (!m.matches()) continue;
            StringBuilder key = new StringBuilder(m.group(1)).append('{');
            Matcher label = LABEL.matcher(m.group(2));
            List<String> labels = new ArrayList<>();
            while (label.find()) labels.add(label.group(1) + "=\"" + label.group(2) + "\"");
            java.util.Collections.sort(labels);
            key.append(String.join(",", labels)).append('}');
            series.put(key.toString(), Double.parseDouble(m.group(3)));
        }
        return series;
    }

    /** The one series whose name{labels} contains {@code part}. */
    private static double gauge(Map<String, Double> series, String part) {
        List<Double> values = new ArrayList<>();
        for (var e : series.entrySet()) if (e.getKey().contains(part)) values.add(e.getValue());
        assertEquals(1, values.size(), "series matching '" + part + "': " + series.keySet());
        return values.get(0);
    }

    private static double gaugeOrNaN(Map<String, Double> series, String part) {
        return series.entrySet().stream()
                .filter(e -> e.getKey().contains(part))
                .map(Map.Entry::getValue)
                .findFirst()
                .orElse(Double.NaN);
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    /** The trace directory as an unbounded input: read, then watched for new files, so the job does not end. */
    private record MonitoredTrace(Path traceDir) implements JobSources {
        @Override
        public DataStream<RawRecord> submissions(StreamExecutionEnvironment env) {
            FileSource<RawRecord> source = FileSource.forRecordStreamFormat(
                            new NumberedLineFormat("trace"), new org.apache.flink.core.fs.Path(traceDir.toUri()))
                    .monitorContinuously(Duration.ofSeconds(1))
                    .build();
            return env.fromSource(source, WatermarkStrategy.noWatermarks(), "trace")
                    .uid("source-trace")
                    .name("trace (monitored)");
        }

        @Override
        public Optional<DataStream<RawRecord>> nodeEvents(StreamExecutionEnvironment env) {
            return Optional.empty();
        }
    }

    /** Sinks into this test's queues (the MiniCluster runs in the test's JVM). */
    private static final class Collecting implements JobSinks {
        Collecting() {
            DECISIONS.clear();
            SCHEDULING.clear();
            REJECTED.clear();
        }

        @Override
        public void decisions(DataStream<PlacementDecision> s) {
            s.sinkTo(new QueueSink<>(0)).uid("collect-decisions").name("collect decisions");
        }

        @Override
        public void schedulingMetrics(DataStream<SchedulingMetrics> s) {
            s.sinkTo(new QueueSink<>(1)).uid("collect-scheduling").name("collect scheduling metrics");
        }

        @Override
        public void jobMetrics(DataStream<JobMetrics> s) {}

        @Override
        public void completions(DataStream<JobCompleted> s) {}

        @Override
        public void rejected(DataStream<RejectedRecord> s) {
            s.sinkTo(new QueueSink<>(2)).uid("collect-rejected").name("collect rejected");
        }
    }

    /** A sink into one of the static queues, picked by index so that the sink stays serializable. */
    private record QueueSink<T>(int queue) implements Sink<T> {
        @SuppressWarnings("unchecked")
        @Override
        public SinkWriter<T> createWriter(WriterInitContext context) {
            ConcurrentLinkedQueue<Object> target = (ConcurrentLinkedQueue<Object>) (Object)
                    switch (queue) {
                        case 0 -> DECISIONS;
                        case 1 -> SCHEDULING;
                        default -> REJECTED;
                    };
            return new SinkWriter<>() {
                @Override
                public void write(T element, Context ctx) {
                    target.add(element);
                }

                @Override
                public void flush(boolean endOfInput) {}

                @Override
                public void close() {}
            };
        }
    }
}
