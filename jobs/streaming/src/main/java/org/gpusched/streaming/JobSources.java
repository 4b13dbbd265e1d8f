package org.gpusched.streaming;

import java.util.Optional;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * Where the scheduler's input comes from: raw records of each input topic (files, Kafka, or finite collections in
 * tests). Records are unparsed ({@link RawRecord}); {@link SchedulerJob} parses and validates them in an operator.
 * Text records are JSON (a trace line for submissions; the Avro schema's fields as JSON for the others), byte records
 * are Avro binary of the topic's schema, plain or single-object encoded ({@link Topics}).
 *
 * <p>Sources do not need to assign timestamps or watermarks: the job derives event time from the parsed records.
 */
public interface JobSources {
    /** Job submissions ({@link Topics#SUBMISSIONS}). Required. */
    DataStream<RawRecord> submissions(StreamExecutionEnvironment env);

    /** Job completions ({@link Topics#COMPLETIONS}); live mode only (replay simulates them). */
    default Optional<DataStream<RawRecord>> completions(StreamExecutionEnvironment env) {
        return Optional.empty();
    }

    /** Node events ({@link Topics#NODE_EVENTS}). */
    default Optional<DataStream<RawRecord>> nodeEvents(StreamExecutionEnvironment env) {
        return Optional.empty();
    }

    /** Telemetry ({@link Topics#TELEMETRY}). */
    default Optional<DataStream<RawRecord>> telemetry(StreamExecutionEnvironment env) {
        return Optional.empty();
    }
}
