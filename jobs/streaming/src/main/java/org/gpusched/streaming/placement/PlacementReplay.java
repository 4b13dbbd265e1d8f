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
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.file.src.FileSource;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.CloseableIterator;
import org.gpusched.streaming.RawRecord;
import org.gpusched.streaming.avro.RejectedRecord;
import org.gpusched.streaming.file.JsonLinesSink;
import org.gpusched.streaming.file.NumberedLineFormat;

/**
 * The placement job ({@link PlacementJob}) over a pod-list file on a local mini cluster, for place-replay and compare:
 * the file's raw lines are the source ({@link FilePods}), the events are collected by the client (which writes the run
 * directories) and the rejected rows pass through part files.
 */
public final class PlacementReplay {
    private PlacementReplay() {}

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String REJECTED_PARTS = "rejected";

    /** The pod list's numbered lines, header included (the parser skips it). */
    public record FilePods(Path pods) implements PlacementSources {
        @Override
        public DataStream<RawRecord> pods(StreamExecutionEnvironment env) {
            FileSource<RawRecord> source = FileSource.forRecordStreamFormat(
                            new NumberedLineFormat(pods.toString()),
                            new org.apache.flink.core.fs.Path(
                                    pods.toAbsolutePath().toUri()))
                    .build();
            return env.fromSource(source, WatermarkStrategy.noWatermarks(), "pod list")
                    .uid("source-file-pods")
                    .name("pod list")
                    .setParallelism(1);
        }
    }

    /** The events to the client ({@link #events}, once the job runs), the rejected rows to part files in a directory. */
    static final class CollectedPlacements implements PlacementSinks {
        private final Path work;
        CloseableIterator<ReplayEvent> events;

        CollectedPlacements(Path work) {
            this.work = work;
        }

        @Override
        public void placements(DataStream<ReplayEvent> placements) {
            events = placements.collectAsync();
        }

        @Override
        public void rejected(DataStream<RejectedRecord> rejected) {
            rejected.sinkTo(new JsonLinesSink<>(work, REJECTED_PARTS))
                    .uid("sink-file-rejected")
                    .name("rejected pods file");
        }
    }

    /**
     * Runs the replay on a local mini cluster; {@code each} sees every event, in trace-time order within a run (runs
     * interleave). The rejected rows pass through part files in {@code work} (created, removed after); returns them,
     * ordered by line, as the JSON objects of rejected.jsonl ({@link #rejectedLine}).
     */
    public static List<ObjectNode> run(PlacementConfig config, Path pods, Path work, Consumer<ReplayEvent> each)
            throws Exception {
        org.apache.logging.log4j.core.config.Configurator.setLevel(
                "org.apache.flink.streaming.api.operators.collect", org.apache.logging.log4j.Level.ERROR);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(new Configuration());
        env.setParallelism(1);
        Files.createDirectories(work);
        deleteRejectedParts(work); // the sink appends: a crashed earlier run must not add its rows
        CollectedPlacements sinks = new CollectedPlacements(work);
        PlacementJob.define(env, new FilePods(pods), sinks, config);
        JobClient job = env.executeAsync("gpusched place-replay");
        try (CloseableIterator<ReplayEvent> it = sinks.events) {
            while (it.hasNext()) each.accept(it.next());
        }
        job.getJobExecutionResult().get();
        return collectRejected(work);
    }

    /** One rejected.jsonl object: source file, line, position, the original text, the reason and the column. */
    static ObjectNode rejectedLine(JsonNode record) {
        ObjectNode o = JSON.createObjectNode();
        String position = record.get("position").asText();
        o.put("source", record.get("source").asText());
        o.put("line", PodParser.lineOf(position));
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
