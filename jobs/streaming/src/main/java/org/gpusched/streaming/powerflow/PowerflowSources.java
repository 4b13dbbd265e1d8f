package org.gpusched.streaming.powerflow;

import java.util.Optional;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.gpusched.streaming.RawRecord;

/**
 * The powerflow scheduler's raw inputs (files, Kafka topics, or collections in tests): jobs always; telemetry and
 * completions in live mode (a replay simulates them).
 */
public interface PowerflowSources {
    /** Jobs ({@link org.gpusched.streaming.Topics#POWERFLOW_JOBS}). */
    DataStream<RawRecord> jobs(StreamExecutionEnvironment env);

    /** Telemetry ({@link org.gpusched.streaming.Topics#TELEMETRY}); live only. */
    default Optional<DataStream<RawRecord>> telemetry(StreamExecutionEnvironment env) {
        return Optional.empty();
    }

    /** Completions ({@link org.gpusched.streaming.Topics#COMPLETIONS}); live only. */
    default Optional<DataStream<RawRecord>> completions(StreamExecutionEnvironment env) {
        return Optional.empty();
    }
}
