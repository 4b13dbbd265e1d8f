package org.gpusched.streaming.powerflow;

import java.time.Duration;
import java.util.Optional;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.gpusched.streaming.RawRecord;
import org.gpusched.streaming.Topics;
import org.gpusched.streaming.avro.JobCompleted;
import org.gpusched.streaming.avro.JobModelFit;
import org.gpusched.streaming.avro.PlacementDecision;
import org.gpusched.streaming.avro.PowerflowJobEnergy;
import org.gpusched.streaming.avro.RejectedRecord;
import org.gpusched.streaming.avro.Telemetry;
import org.gpusched.streaming.kafka.AvroRecordSerializer;
import org.gpusched.streaming.kafka.KafkaJobSinks;
import org.gpusched.streaming.kafka.KafkaJobSources;
import org.gpusched.streaming.kafka.KafkaSettings;

/**
 * The powerflow scheduler on Kafka topics: jobs from {@link Topics#POWERFLOW_JOBS}, in live mode telemetry and
 * completions from theirs; decisions, fitted models and rejected records to theirs (a replay also writes its simulated
 * telemetry and completions). Sources and sinks are the scheduler job's ({@link KafkaJobSources},
 * {@link KafkaJobSinks}): the same offsets, exactly-once and idleness rules.
 */
public final class PowerflowKafka {
    private PowerflowKafka() {}

    public static PowerflowPipeline.Pipeline define(
            StreamExecutionEnvironment env, KafkaSettings kafka, PowerflowSettings cfg) {
        return define(env, kafka, cfg, null);
    }

    /** As {@link #define(StreamExecutionEnvironment, KafkaSettings, PowerflowSettings)}, also writing to {@code files}. */
    public static PowerflowPipeline.Pipeline define(
            StreamExecutionEnvironment env, KafkaSettings kafka, PowerflowSettings cfg, PowerflowSinks files) {
        PowerflowSettings job = cfg.withStreaming(
                cfg.outOfOrderness(),
                cfg.idleTimeout(),
                cfg.checkpointInterval(),
                cfg.watermarkInterval(),
                !kafka.bounded());
        PowerflowSinks sinks = files == null ? new Sinks(kafka) : PowerflowSinks.both(new Sinks(kafka), files);
        return PowerflowPipeline.define(env, new Sources(kafka, cfg.idleTimeout()), sinks, job);
    }

    /** The input topics, read as the scheduler job reads its own. */
    public record Sources(KafkaSettings kafka, Duration idleTimeout) implements PowerflowSources {
        @Override
        public DataStream<RawRecord> jobs(StreamExecutionEnvironment env) {
            return source(env, Topics.POWERFLOW_JOBS);
        }

        @Override
        public Optional<DataStream<RawRecord>> telemetry(StreamExecutionEnvironment env) {
            return Optional.of(source(env, Topics.TELEMETRY));
        }

        @Override
        public Optional<DataStream<RawRecord>> completions(StreamExecutionEnvironment env) {
            return Optional.of(source(env, Topics.COMPLETIONS));
        }

        private DataStream<RawRecord> source(StreamExecutionEnvironment env, Topics topic) {
            String name = "kafka-powerflow-" + topic.operatorId();
            WatermarkStrategy<RawRecord> watermarks = WatermarkStrategy.noWatermarks();
            if (!kafka.bounded())
                watermarks =
                        WatermarkStrategy.<RawRecord>forMonotonousTimestamps().withIdleness(idleTimeout);
            return env.fromSource(new KafkaJobSources(kafka, true, idleTimeout).kafkaSource(topic), watermarks, name)
                    .uid("source-" + name)
                    .name(name);
        }
    }

    /** The output topics. */
    public static final class Sinks implements PowerflowSinks {
        private final KafkaJobSinks topics;
        private final KafkaSettings kafka;

        public Sinks(KafkaSettings kafka) {
            this.kafka = kafka;
            this.topics = new KafkaJobSinks(kafka);
        }

        @Override
        public void decisions(DataStream<PlacementDecision> decisions) {
            topics.decisions(decisions);
        }

        @Override
        public void models(DataStream<JobModelFit> models) {
            topics.attach(
                    models,
                    Topics.POWERFLOW_MODELS,
                    new ModelSerializer(Topics.POWERFLOW_MODELS.topic(kafka.topicPrefix())));
        }

        @Override
        public void rejected(DataStream<RejectedRecord> rejected) {
            topics.rejected(rejected);
        }

        @Override
        public void completions(DataStream<JobCompleted> completions) {
            topics.completions(completions);
        }

        @Override
        public void jobEnergy(DataStream<PowerflowJobEnergy> jobEnergy) {
            topics.attach(
                    jobEnergy,
                    Topics.POWERFLOW_ENERGY,
                    new EnergySerializer(Topics.POWERFLOW_ENERGY.topic(kafka.topicPrefix())));
        }

        @Override
        public void telemetry(DataStream<Telemetry> telemetry) {
            topics.attach(
                    telemetry, Topics.TELEMETRY, new TelemetrySerializer(Topics.TELEMETRY.topic(kafka.topicPrefix())));
        }
    }

    /** Fits keyed by job: one job's fits stay in order. */
    public static final class ModelSerializer extends AvroRecordSerializer<JobModelFit> {
        private static final long serialVersionUID = 1L;

        public ModelSerializer(String topic) {
            super(JobModelFit.class, topic);
        }

        @Override
        protected String key(JobModelFit m) {
            return m.getJob();
        }
    }

    /** Job energies keyed by job. */
    public static final class EnergySerializer extends AvroRecordSerializer<PowerflowJobEnergy> {
        private static final long serialVersionUID = 1L;

        public EnergySerializer(String topic) {
            super(PowerflowJobEnergy.class, topic);
        }

        @Override
        protected String key(PowerflowJobEnergy e) {
            return e.getJob();
        }
    }

    /** Telemetry keyed by job (or node). */
    public static final class TelemetrySerializer extends AvroRecordSerializer<Telemetry> {
        private static final long serialVersionUID = 1L;

        public TelemetrySerializer(String topic) {
            super(Telemetry.class, topic);
        }

        @Override
        protected String key(Telemetry t) {
            return t.getJob() != null ? t.getJob() : String.valueOf(t.getNode());
        }
    }
}
