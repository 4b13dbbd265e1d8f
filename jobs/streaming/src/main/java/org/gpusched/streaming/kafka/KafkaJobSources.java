package org.gpusched.streaming.kafka;

import java.time.Duration;
import java.util.Optional;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.clients.consumer.OffsetResetStrategy;
import org.gpusched.streaming.JobSources;
import org.gpusched.streaming.RawRecord;
import org.gpusched.streaming.Topics;

/**
 * The job's inputs from Kafka: one {@link KafkaSource} per input topic, values passed on unparsed
 * ({@link RawRecordDeserializer}) so the job's parse operator can reject bad ones.
 *
 * <p>Unbounded (live): starts at the group's committed offsets, else the earliest; a run restored from a checkpoint or
 * savepoint resumes at the offsets in it instead. Bounded (replays, tests, benchmarks): reads from the earliest offset
 * up to the offsets that are the latest when the job starts, then ends (also when restored:
 * {@link RestoredBoundedKafkaSource}), and the final watermark fires every pending event-time timer. Event time is assigned by the job after parsing; the
 * source-side strategy only marks a source idle when its partitions have nothing, so an empty topic (no node events,
 * say) does not hold the watermark back forever.
 */
public final class KafkaJobSources implements JobSources {
    private final KafkaSettings kafka;
    private final boolean liveInputs;
    private final Duration idleTimeout;

    /**
     * @param liveInputs whether completions and telemetry are read (live mode); replay simulates completions
     * @param idleTimeout how long an input without records stops holding the watermark back
     */
    public KafkaJobSources(KafkaSettings kafka, boolean liveInputs, Duration idleTimeout) {
        this.kafka = kafka;
        this.liveInputs = liveInputs;
        this.idleTimeout = idleTimeout;
    }

    @Override
    public DataStream<RawRecord> submissions(StreamExecutionEnvironment env) {
        return source(env, Topics.SUBMISSIONS);
    }

    @Override
    public Optional<DataStream<RawRecord>> completions(StreamExecutionEnvironment env) {
        return liveInputs ? Optional.of(source(env, Topics.COMPLETIONS)) : Optional.empty();
    }

    @Override
    public Optional<DataStream<RawRecord>> nodeEvents(StreamExecutionEnvironment env) {
        return Optional.of(source(env, Topics.NODE_EVENTS));
    }

    @Override
    public Optional<DataStream<RawRecord>> telemetry(StreamExecutionEnvironment env) {
        return liveInputs ? Optional.of(source(env, Topics.TELEMETRY)) : Optional.empty();
    }

    /** The source of one input topic. */
    public Source<RawRecord, ?, ?> kafkaSource(Topics topic) {
        return kafkaSourceOf(topic.topic(kafka.topicPrefix()));
    }

    /** A source of raw records of any topic, configured as the job's (the pass-through benchmark reads with it). */
    public Source<RawRecord, ?, ?> kafkaSourceOf(String topicName) {
        var builder = KafkaSource.<RawRecord>builder()
                .setBootstrapServers(kafka.bootstrap())
                .setTopics(topicName)
                .setGroupId(kafka.groupId())
                .setClientIdPrefix(kafka.groupId() + "-" + topicName)
                .setDeserializer(new RawRecordDeserializer())
                .setProperties(kafka.clientConfig());
        // A transactional (exactly-once) producer's aborted records must not be replayed.
        builder.setProperty("isolation.level", "read_committed");
        // The offsets the group commits are those of a completed checkpoint, which also holds every record read before
        // them that still waits in the job's buffers (the dispatcher's, the controllers'); the consumer's own periodic
        // commits would run ahead of them. A restart resumes from the checkpoint's offsets (--restore), never these.
        builder.setProperty("enable.auto.commit", "false");
        builder.setProperty("commit.offsets.on.checkpoint", "true");
        if (kafka.bounded()) {
            builder.setStartingOffsets(OffsetsInitializer.earliest()).setBounded(OffsetsInitializer.latest());
        } else {
            builder.setStartingOffsets(OffsetsInitializer.committedOffsets(OffsetResetStrategy.EARLIEST));
        }
        return new RestoredBoundedKafkaSource<>(builder.build());
    }

    private DataStream<RawRecord> source(StreamExecutionEnvironment env, Topics topic) {
        String name = "kafka-" + topic.operatorId();
        WatermarkStrategy<RawRecord> watermarks = WatermarkStrategy.<RawRecord>noWatermarks();
        if (!kafka.bounded())
            watermarks = WatermarkStrategy.<RawRecord>forMonotonousTimestamps().withIdleness(idleTimeout);
        return env.fromSource(kafkaSource(topic), watermarks, name).uid("source-" + name);
    }
}
