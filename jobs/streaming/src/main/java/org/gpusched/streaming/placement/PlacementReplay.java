package org.gpusched.streaming.placement;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.Consumer;
import org.apache.flink.api.common.eventtime.SerializableTimestampAssigner;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.FlatMapFunction;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.connector.file.src.FileSource;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.CloseableIterator;
import org.apache.flink.util.Collector;
import org.gpusched.placement.model.NodeSpec;
import org.gpusched.streaming.RawRecord;
import org.gpusched.streaming.avro.RejectedRecord;
import org.gpusched.streaming.file.JsonLinesSink;
import org.gpusched.streaming.file.NumberedLineFormat;

/**
 * The time-driven placement replay as a bounded Flink stream: the pod list's raw lines -> {@link PodRowParser} (bad rows
 * to the rejected output) -> event time = creation time -> {@link RunFanOut} (a copy of every pod per run) -> keyBy run
 * -> {@link ReplayPlacementFunction}, which places each task at its creation time with the run's policy and frees it at
 * its deletion time -> {@link ReplayEvent}s, in trace-time order within each run. The only watermark is the one at the
 * end of input, so the rows need not be sorted: every decision is taken then, in trace-time order. {@link #define}
 * builds the pipeline on a given source (tests call it); {@link #run} runs it on a local mini cluster.
 */
public final class PlacementReplay {
    private PlacementReplay() {}

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String REJECTED_PARTS = "rejected";

    /** {@code runs}: one per (policy, seed); place-replay has one, compare several. */
    public record Config(List<NodeSpec> nodes, Path pods, ReplayTrace trace, List<ReplayRun> runs) {
        public Config {
            if (nodes.isEmpty()) throw new IllegalArgumentException("no nodes");
            if (runs.isEmpty()) throw new IllegalArgumentException("no runs");
            runs = List.copyOf(runs);
        }
    }

    /** The replay's outputs: the runs' events and the rejected rows. */
    public record Pipeline(DataStream<ReplayEvent> events, DataStream<RejectedRecord> rejected) {}

    /** Key of a pod: its run. A named class, so Flink needs no lambda type extraction. */
    public static final class RunKey implements KeySelector<ReplayPod, String> {
        private static final long serialVersionUID = 1L;

        @Override
        public String getKey(ReplayPod p) {
            return p.run;
        }
    }

    /** Event time of a pod: its creation time (trace seconds). */
    public static final class CreationTime implements SerializableTimestampAssigner<ReplayPod> {
        private static final long serialVersionUID = 1L;

        @Override
        public long extractTimestamp(ReplayPod p, long previous) {
            return p.creationTime;
        }
    }

    /** Copies every pod to every run (the broadcast of the compare: all policies see exactly the same pods). Stateless. */
    public static final class RunFanOut implements FlatMapFunction<ReplayPod, ReplayPod> {
        private static final long serialVersionUID = 1L;
        private final List<String> runKeys;

        public RunFanOut(List<ReplayRun> runs) {
            this.runKeys = runs.stream().map(ReplayRun::key).toList();
        }

        @Override
        public void flatMap(ReplayPod pod, Collector<ReplayPod> out) {
            for (String key : runKeys) out.collect(pod.forRun(key));
        }
    }

    public static Pipeline define(DataStream<RawRecord> lines, Config config, int placementParallelism) {
        SingleOutputStreamOperator<ReplayPod> parsed = lines.process(
                        new PodRowParser(config.trace().format()))
                .uid("replay-pod-parser")
                .name("replay pod parser")
                .setParallelism(1);
        DataStream<ReplayEvent> events = place(
                parsed,
                WatermarkStrategy.noWatermarks(),
                config.nodes(),
                config.trace(),
                config.runs(),
                placementParallelism);
        return new Pipeline(events, parsed.getSideOutput(PodRowParser.REJECTED));
    }

    /**
     * The placement part shared by the file replay and the Kafka placement job ({@code run --nodes}): event time =
     * creation time under {@code watermarks} -> {@link RunFanOut} -> keyBy run -> {@link ReplayPlacementFunction} with the
     * target workload and end time of {@code workload}.
     */
    public static DataStream<ReplayEvent> place(
            DataStream<ReplayPod> pods,
            WatermarkStrategy<ReplayPod> watermarks,
            List<NodeSpec> nodes,
            ReplayTrace workload,
            List<ReplayRun> runs,
            int placementParallelism) {
        return pods.assignTimestampsAndWatermarks(watermarks.withTimestampAssigner(new CreationTime()))
                .uid("replay-pod-times")
                .name("replay pod times")
                .setParallelism(1)
                .flatMap(new RunFanOut(runs))
                .uid("replay-run-fan-out")
                .name("replay run fan-out")
                .setParallelism(1)
                .keyBy(new RunKey())
                .process(new ReplayPlacementFunction(nodes, workload.workloadTasks(), runs, workload.endTime()))
                .uid("replay-placement")
                .name("replay placement")
                .setParallelism(placementParallelism);
    }

    /**
     * Runs the replay on a local mini cluster; {@code each} sees every event, in trace-time order within a run (runs
     * interleave). The rejected rows pass through part files in {@code work} (created, removed after); returns them,
     * ordered by line, as the JSON objects of rejected.jsonl ({@link #rejectedLine}).
     */
    public static List<ObjectNode> run(Config config, Path work, Consumer<ReplayEvent> each) throws Exception {
        org.apache.logging.log4j.core.config.Configurator.setLevel(
                "org.apache.flink.streaming.api.operators.collect", org.apache.logging.log4j.Level.ERROR);
        Configuration conf = new Configuration();
        conf.set(PipelineOptions.GENERIC_TYPES, false);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(1);
        int placementParallelism =
                Math.max(1, Math.min(config.runs().size(), Runtime.getRuntime().availableProcessors()));
        FileSource<RawRecord> source = FileSource.forRecordStreamFormat(
                        new NumberedLineFormat(config.pods().toString()),
                        new org.apache.flink.core.fs.Path(
                                config.pods().toAbsolutePath().toUri()))
                .build();
        DataStream<RawRecord> lines = env.fromSource(source, WatermarkStrategy.noWatermarks(), "pod list")
                .uid("replay-pod-lines")
                .name("pod list");
        Pipeline p = define(lines, config, placementParallelism);
        Files.createDirectories(work);
        deleteRejectedParts(work); // the sink appends: a crashed earlier run must not add its rows
        p.rejected()
                .sinkTo(new JsonLinesSink<>(work, REJECTED_PARTS))
                .uid("replay-rejected-sink")
                .name("rejected pods file");
        try (CloseableIterator<ReplayEvent> it = p.events().executeAndCollect("gpusched place-replay")) {
            while (it.hasNext()) each.accept(it.next());
        }
        return collectRejected(work);
    }

    /** One rejected.jsonl object: source file, line, position, the original text, the reason and the column. */
    static ObjectNode rejectedLine(JsonNode record) {
        ObjectNode o = JSON.createObjectNode();
        String position = record.get("position").asText();
        o.put("source", record.get("source").asText());
        o.put("line", PodRowParser.lineOf(position));
        o.put("position", position);
        o.set("text", record.get("text"));
        o.set("reason", record.get("reason"));
        o.set("field", record.get("field"));
        return o;
    }

    private static List<Path> rejectedParts(Path work) throws IOException {
        try (var files = Files.list(work)) {
            return files.filter(f -> f.getFileName().toString().startsWith(REJECTED_PARTS + "-"))
                    .toList();
        }
    }

    private static void deleteRejectedParts(Path work) throws IOException {
        for (Path f : rejectedParts(work)) Files.delete(f);
    }

    private static List<ObjectNode> collectRejected(Path work) throws IOException {
        List<ObjectNode> rejected = new ArrayList<>();
        for (Path f : rejectedParts(work))
            for (String l : Files.readAllLines(f, StandardCharsets.UTF_8))
                if (!l.isBlank()) rejected.add(rejectedLine(JSON.readTree(l)));
        deleteRejectedParts(work);
        try (var rest = Files.list(work)) {
            if (rest.findAny().isEmpty()) Files.delete(work);
        }
        rejected.sort(Comparator.comparingLong(o -> o.get("line").asLong()));
        return rejected;
    }
}
