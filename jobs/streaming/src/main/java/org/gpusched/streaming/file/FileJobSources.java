package org.gpusched.streaming.file;

import java.nio.file.Path;
import java.util.Optional;
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
        return FileStreams.lines(env, trace, "trace");
    }

    @Override
    public Optional<DataStream<RawRecord>> nodeEvents(StreamExecutionEnvironment env) {
        return Optional.ofNullable(nodeEvents).map(p -> FileStreams.lines(env, p, "node-events"));
    }

    @Override
    public Optional<DataStream<RawRecord>> telemetry(StreamExecutionEnvironment env) {
        return Optional.ofNullable(telemetry).map(p -> FileStreams.lines(env, p, "telemetry"));
    }

    @Override
    public Optional<DataStream<RawRecord>> completions(StreamExecutionEnvironment env) {
        return Optional.ofNullable(completions).map(p -> FileStreams.lines(env, p, "completions"));
    }
}
