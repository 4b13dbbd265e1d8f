package org.gpusched.streaming.file;

import java.nio.file.Path;
import java.util.Optional;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.connector.file.src.FileSource;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.gpusched.streaming.JobSources;
import org.gpusched.streaming.RawRecord;

/**
 * Input from JSON Lines files, each read as a bounded stream by Flink's {@link FileSource}: the trace (one job a
 * line) and optionally node events, telemetry and completions files (one JSON object a line, the fields of the
 * topic's Avro schema).
 */
public final class FileJobSources implements JobSources {
    private final Path trace;
    private final Path nodeEvents;
    private final Path telemetry;
    private final Path completions;

    public FileJobSources(Path trace, Path nodeEvents, Path telemetry, Path completions) {
        this.trace = trace;
        this.nodeEvents = nodeEvents;
        this.telemetry = telemetry;
        this.completions = completions;
    }

    public FileJobSources(Path trace) {
        this(trace, null, null, null);
    }

    @Override
    public DataStream<RawRecord> submissions(StreamExecutionEnvironment env) {
        return lines(env, trace, "trace");
    }

    @Override
    public Optional<DataStream<RawRecord>> nodeEvents(StreamExecutionEnvironment env) {
        return Optional.ofNullable(nodeEvents).map(p -> lines(env, p, "node-events"));
    }

    @Override
    public Optional<DataStream<RawRecord>> telemetry(StreamExecutionEnvironment env) {
        return Optional.ofNullable(telemetry).map(p -> lines(env, p, "telemetry"));
    }

    @Override
    public Optional<DataStream<RawRecord>> completions(StreamExecutionEnvironment env) {
        return Optional.ofNullable(completions).map(p -> lines(env, p, "completions"));
    }

    private static DataStream<RawRecord> lines(StreamExecutionEnvironment env, Path file, String what) {
        FileSource<RawRecord> source = FileSource.forRecordStreamFormat(
                        new NumberedLineFormat(file.toString()),
                        new org.apache.flink.core.fs.Path(file.toAbsolutePath().toUri()))
                .build();
        return env.fromSource(source, WatermarkStrategy.noWatermarks(), what + " file")
                .uid("source-" + what)
                .name(what + " " + file.getFileName())
                .setParallelism(1);
    }
}
