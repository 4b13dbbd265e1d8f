package org.gpusched.streaming.placement;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedWriter;
import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import org.gpusched.placement.model.NodeSpec;

/**
 * Writes a replay run's directory as its events stream by: {@code decisions.jsonl} (one object per event: time, task,
 * action, node, gpus, gpuMilli), {@code metrics.csv} (the cluster right after every event) and, on {@link #finish},
 * {@code rejected.jsonl} (the pod-list rows the parser rejected) and {@code metrics.json} (the {@link ReplaySummary}).
 */
public final class ReplayOutput implements Closeable {
    public static final String METRICS_HEADER =
            "time,action,task,running,eopc_cpu_watts,eopc_gpu_watts,eopc_watts,allocated_gpu_fraction,fragmented_gpus";

    public static final String REJECTED_FILE = "rejected.jsonl";
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Path dir;
    private final List<NodeSpec> nodes;
    private final BufferedWriter decisions;
    private final BufferedWriter metrics;
    private final ReplaySummary summary = new ReplaySummary();

    public ReplayOutput(Path dir, List<NodeSpec> nodes) throws IOException {
        Files.createDirectories(dir);
        this.dir = dir;
        this.nodes = nodes;
        this.decisions = Files.newBufferedWriter(dir.resolve("decisions.jsonl"));
        this.metrics = Files.newBufferedWriter(dir.resolve("metrics.csv"));
        metrics.write(METRICS_HEADER);
        metrics.newLine();
    }

    public ReplaySummary summary() {
        return summary;
    }

    public void accept(ReplayEvent e) {
        summary.accept(e);
        String task = e.task;
        ObjectNode d = JSON.createObjectNode();
        d.put("time", e.time);
        d.put("task", task);
        d.put("action", e.action);
        if (e.node >= 0) d.put("node", nodes.get(e.node).name());
        else d.putNull("node");
        ArrayNode gpus = d.putArray("gpus");
        for (int g : e.gpus) gpus.add(g);
        d.put("gpuMilli", e.gpuMilli);
        try {
            decisions.write(JSON.writeValueAsString(d));
            decisions.newLine();
            metrics.write(String.format(
                    Locale.ROOT,
                    "%d,%s,%s,%d,%.1f,%.1f,%.1f,%.6f,%.4f",
                    e.time,
                    e.action,
                    task,
                    e.running,
                    e.eopcCpuWatts,
                    e.eopcGpuWatts,
                    e.eopcWatts(),
                    e.allocatedGpuFraction,
                    e.fragmentedGpus));
            metrics.newLine();
        } catch (IOException x) {
            throw new UncheckedIOException(x);
        }
    }

    /**
     * Writes rejected.jsonl ({@code rejected}, one object a line) and metrics.json with the summary and the run's
     * identity ({@code run}: policy, alpha, seed, inputs).
     */
    public void finish(ObjectNode run, int unscheduled, List<ObjectNode> rejected) throws IOException {
        close();
        try (BufferedWriter out = Files.newBufferedWriter(dir.resolve(REJECTED_FILE))) {
            for (ObjectNode r : rejected) {
                out.write(JSON.writeValueAsString(r));
                out.newLine();
            }
        }
        ObjectNode m = run.deepCopy();
        m.put("replayed", summary.placed() + summary.failed());
        m.put("unscheduledSkipped", unscheduled);
        m.put("rejected", rejected.size());
        m.put("placed", summary.placed());
        m.put("failed", summary.failed());
        m.put("released", summary.released());
        m.put("peakRunning", summary.peakRunning());
        m.put("startTime", summary.startTime());
        m.put("endTime", summary.endTime());
        m.put("durationSeconds", summary.durationSeconds());
        m.put("meanEopcWatts", summary.meanWatts());
        m.put("peakEopcWatts", summary.peakWatts());
        m.put("energyKWh", summary.energyKWh());
        m.put("cpuEnergyKWh", summary.cpuEnergyKWh());
        m.put("gpuEnergyKWh", summary.gpuEnergyKWh());
        m.put("meanAllocatedGpuFraction", summary.meanAllocatedGpuFraction());
        m.put("peakAllocatedGpuFraction", summary.peakAllocatedGpuFraction());
        m.put("meanFragmentedGpus", summary.meanFragmentedGpus());
        m.put("peakFragmentedGpus", summary.peakFragmentedGpus());
        JSON.writer()
                .with(SerializationFeature.INDENT_OUTPUT)
                .writeValue(dir.resolve("metrics.json").toFile(), m);
    }

    public static ObjectNode runInfo() {
        return JSON.createObjectNode();
    }

    @Override
    public void close() throws IOException {
        decisions.close();
        metrics.close();
    }
}
