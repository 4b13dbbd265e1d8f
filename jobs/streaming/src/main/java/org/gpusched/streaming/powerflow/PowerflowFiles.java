package org.gpusched.streaming.powerflow;

import java.nio.file.Path;
import java.util.Optional;
import org.apache.avro.generic.GenericRecord;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.gpusched.streaming.RawRecord;
import org.gpusched.streaming.avro.JobModelFit;
import org.gpusched.streaming.avro.PlacementDecision;
import org.gpusched.streaming.avro.PowerflowJobEnergy;
import org.gpusched.streaming.avro.PowerflowPowerSample;
import org.gpusched.streaming.avro.RejectedRecord;
import org.gpusched.streaming.avro.Telemetry;
import org.gpusched.streaming.file.FileStreams;

/**
 * The powerflow scheduler over files: a PowerFlow trace (JSON Lines) in, and optionally telemetry and completions files
 * (live semantics over recorded inputs); JSON Lines part files out, one per output ({@link #DECISIONS}, {@link #MODELS},
 * {@link #TELEMETRY}, {@link #REJECTED}, {@link #JOB_ENERGY}, {@link #POWER}), merged by {@link PowerflowRunDirectory}.
 */
public final class PowerflowFiles {
    public static final String DECISIONS = "decisions";
    public static final String MODELS = "models";
    public static final String TELEMETRY = "telemetry";
    public static final String REJECTED = "rejected";
    public static final String JOB_ENERGY = "job-energy";
    public static final String POWER = "power";

    private PowerflowFiles() {}

    /** A trace file and, for live semantics, recorded telemetry and completions (null: none). */
    public record Sources(Path trace, Path telemetry, Path completions) implements PowerflowSources {
        @Override
        public DataStream<RawRecord> jobs(StreamExecutionEnvironment env) {
            return FileStreams.lines(env, trace, "powerflow-trace");
        }

        @Override
        public Optional<DataStream<RawRecord>> telemetry(StreamExecutionEnvironment env) {
            return Optional.ofNullable(telemetry).map(p -> FileStreams.lines(env, p, "powerflow-telemetry"));
        }

        @Override
        public Optional<DataStream<RawRecord>> completions(StreamExecutionEnvironment env) {
            return Optional.ofNullable(completions).map(p -> FileStreams.lines(env, p, "powerflow-completions"));
        }
    }

    /** JSON Lines part files in {@code dir}. */
    public record Sinks(Path dir) implements PowerflowSinks {
        @Override
        public void decisions(DataStream<PlacementDecision> s) {
            sink(s, DECISIONS);
        }

        @Override
        public void models(DataStream<JobModelFit> s) {
            sink(s, MODELS);
        }

        @Override
        public void rejected(DataStream<RejectedRecord> s) {
            sink(s, REJECTED);
        }

        @Override
        public void telemetry(DataStream<Telemetry> s) {
            sink(s, TELEMETRY);
        }

        @Override
        public void telemetryReceived(DataStream<Telemetry> s) {
            sink(s, TELEMETRY);
        }

        @Override
        public void jobEnergy(DataStream<PowerflowJobEnergy> s) {
            sink(s, JOB_ENERGY);
        }

        @Override
        public void power(DataStream<PowerflowPowerSample> s) {
            sink(s, POWER);
        }

        private <T extends GenericRecord> void sink(DataStream<T> stream, String name) {
            FileStreams.jsonLines(stream, dir, name, "powerflow-file-sink-");
        }
    }
}
