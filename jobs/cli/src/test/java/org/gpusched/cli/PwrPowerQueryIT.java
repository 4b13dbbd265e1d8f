package org.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.types.Row;
import org.gpusched.analytics.SqlCatalog;
import org.gpusched.analytics.SqlRunner;
import org.gpusched.streaming.Topics;
import org.gpusched.streaming.avro.PodPlacement;
import org.gpusched.streaming.kafka.KafkaSettings;
import org.gpusched.streaming.kafka.TopicAdmin;
import org.gpusched.streaming.kafka.TopicReader;
import org.gpusched.testkit.LocalKafkaBroker;
import org.junit.jupiter.api.Test;

/**
 * The shipped {@code pwr_power} query on a real broker: a pod list spanning three trace hours (CPU-only and GPU pods)
 * is published with {@code produce --pods}, a bounded {@code run --nodes} with pwr and pwr-fgd places it; the pwr-fgd
 * run's placements on the topic are place-replay's (decisions.jsonl, metrics.csv of its run directory), and every row
 * of the query (run, hour, decisions, mean and peak CPU + GPU watts, peak running tasks, mean fragmented GPUs) equals
 * a recomputation from the placements topic in plain Java.
 */
class PwrPowerQueryIT {
    private static final String PREFIX = "pwr.";
    private static final String NODES = "sn,cpu_milli,memory_mib,gpu,model\nnode-a,32000,131072,2,T4\n"
            + "node-b,32000,131072,2,T4\nnode-c,64000,262144,4,T4\nnode-d,16000,65536,0,\n";
    private static final String PODS =
            "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n"
                    + "p0,4000,8192,1,1000,,LS,Succeeded,0,5000,0\n"
                    + "p1,2000,4096,1,500,,LS,Succeeded,600,2000,600\n"
                    + "p2,8000,16384,0,0,,BE,Succeeded,1200,9000,1200\n"
                    + "p3,2000,4096,2,1000,,LS,Succeeded,3700,8000,3700\n"
                    + "p4,1000,2048,1,300,,LS,Succeeded,4000,4100,4000\n"
                    + "p5,16000,32768,0,0,,BE,Running,7300,,7300\n"
                    + "p6,2000,4096,1,700,,LS,Succeeded,7400,7600,7400\n"
                    + "p7,4000,8192,4,1000,,LS,Running,9500,,9500\n";

    /** One row of pwr_power, recomputed. */
    private static final class Hour {
        long decisions;
        double watts;
        double peakWatts = Double.NEGATIVE_INFINITY;
        double cpuWatts;
        int peakRunning = Integer.MIN_VALUE;
        double fragmented;

        void add(PodPlacement p) {
            double w = p.getEopcCpuWatts() + p.getEopcGpuWatts();
            decisions++;
            watts += w;
            cpuWatts += p.getEopcCpuWatts();
            peakWatts = Math.max(peakWatts, w);
            peakRunning = Math.max(peakRunning, p.getRunning());
            fragmented += p.getFragmentedGpus();
        }
    }

    private static long epochSeconds(Object windowStart) {
        if (windowStart instanceof Instant i) return i.getEpochSecond();
        if (windowStart instanceof LocalDateTime t) return t.toEpochSecond(ZoneOffset.UTC);
        throw new AssertionError("window_start of type " + windowStart.getClass());
    }

    private static double num(SqlRunner.Result r, Row row, String column) {
        return ((Number) row.getField(r.columns().indexOf(column))).doubleValue();
    }

    @Test
    void pwrPowerAgreesWithTheRunsPlacementsPerRunAndHour() throws Exception {
        try (LocalKafkaBroker broker = LocalKafkaBroker.start("pwr-power-it")) {
            Path tmp = Files.createTempDirectory(Path.of("target"), "pwr-power-it");
            Path pods = Files.writeString(tmp.resolve("pods.csv"), PODS);
            Path nodes = Files.writeString(tmp.resolve("nodes.csv"), NODES);
            KafkaSettings kafka = KafkaSettings.of(broker.bootstrap()).withTopicPrefix(PREFIX);
            TopicAdmin.createAll(kafka.clientConfig(), PREFIX, 1, (short) 1);
            var produced = WorkloadCommandsTest.gpusched(
                    "produce", "--pods", pods.toString(), "--bootstrap", broker.bootstrap(), "--topic-prefix", PREFIX);
            assertEquals(0, produced.exit(), produced.err());
            var run = WorkloadCommandsTest.gpusched(
                    "run",
                    "--bootstrap",
                    broker.bootstrap(),
                    "--topic-prefix",
                    PREFIX,
                    "--nodes",
                    nodes.toString(),
                    "--workload",
                    pods.toString(),
                    "--policy",
                    "pwr,pwr-fgd",
                    "--alpha",
                    "0.2",
                    "--seed",
                    "7",
                    "--bounded");
            assertEquals(0, run.exit(), run.err());
            Path runDir = tmp.resolve("place-replay");
            var replay = WorkloadCommandsTest.gpusched(
                    "place-replay",
                    "--pods",
                    pods.toString(),
                    "--nodes",
                    nodes.toString(),
                    "--policy",
                    "pwr-fgd",
                    "--alpha",
                    "0.2",
                    "--seed",
                    "7",
                    "--out",
                    runDir.toString());
            assertEquals(0, replay.exit(), replay.err());

            List<PodPlacement> placements = new ArrayList<>();
            try (TopicReader reader = new TopicReader(KafkaSettings.of(broker.bootstrap()))) {
                reader.read(
                        Topics.POD_PLACEMENTS.topic(PREFIX),
                        PodPlacement.class,
                        null,
                        Long.MAX_VALUE,
                        r -> placements.add((PodPlacement) r.value()));
            }
            Map<String, Map<Long, Hour>> expected = new TreeMap<>();
            for (PodPlacement p : placements)
                expected.computeIfAbsent(p.getRun(), k -> new TreeMap<>())
                        .computeIfAbsent(Math.floorDiv(p.getTime(), 3600L) * 3600, k -> new Hour())
                        .add(p);
            assertEquals(2, expected.size(), "two runs: " + expected.keySet());

            // the pwr-fgd run's placements are place-replay's run directory, decision by decision
            String pwrFgd = expected.keySet().stream()
                    .filter(k -> k.startsWith("pwr-fgd"))
                    .findFirst()
                    .orElseThrow();
            List<String> metricsCsv = Files.readAllLines(runDir.resolve("metrics.csv"));
            List<PodPlacement> ofRun =
                    placements.stream().filter(p -> p.getRun().equals(pwrFgd)).toList();
            assertEquals(metricsCsv.size() - 1, ofRun.size(), pwrFgd);
            for (int i = 0; i < ofRun.size(); i++) {
                String[] f = metricsCsv.get(i + 1).split(",");
                PodPlacement p = ofRun.get(i);
                String where = pwrFgd + " decision " + i + ": " + metricsCsv.get(i + 1);
                assertEquals(Long.parseLong(f[0]), p.getTime(), where);
                assertEquals(f[1], p.getAction().name(), where);
                assertEquals(f[2], p.getTask(), where);
                assertEquals(Integer.parseInt(f[3]), p.getRunning(), where);
                assertEquals(Double.parseDouble(f[6]), p.getEopcCpuWatts() + p.getEopcGpuWatts(), 0.051, where);
                assertEquals(Double.parseDouble(f[8]), p.getFragmentedGpus(), 0.00051, where);
            }

            try (SqlRunner sql = new SqlRunner(new SqlCatalog.Target(broker.bootstrap(), PREFIX, false))) {
                SqlRunner.Result power = sql.query(SqlCatalog.query("pwr_power"));
                Map<String, Map<Long, Row>> actual = new TreeMap<>();
                for (Row row : power.rows())
                    actual.computeIfAbsent(
                                    String.valueOf(row.getField(power.columns().indexOf("run"))), k -> new TreeMap<>())
                            .put(epochSeconds(row.getField(power.columns().indexOf("window_start"))), row);
                assertEquals(expected.keySet(), actual.keySet());
                for (var runHours : expected.entrySet()) {
                    String key = runHours.getKey();
                    assertEquals(runHours.getValue().keySet(), actual.get(key).keySet(), key);
                    assertTrue(runHours.getValue().size() >= 3, key + " spans three hours");
                    for (var hour : runHours.getValue().entrySet()) {
                        Hour h = hour.getValue();
                        Row row = actual.get(key).get(hour.getKey());
                        String where = key + " hour " + hour.getKey() + ": " + row;
                        assertTrue(h.cpuWatts / h.decisions > 1, "CPU power counts: " + where);
                        assertEquals(h.decisions, num(power, row, "decisions"), where);
                        assertEquals(h.watts / h.decisions, num(power, row, "mean_watts"), 1e-6, where);
                        assertEquals(h.peakWatts, num(power, row, "peak_watts"), 1e-6, where);
                        assertEquals(h.peakRunning, num(power, row, "peak_running_tasks"), where);
                        assertEquals(h.fragmented / h.decisions, num(power, row, "mean_fragmented_gpus"), 1e-6, where);
                    }
                }
            }
        }
    }
}
