package org.gpusched.streaming.kafka;

import org.apache.avro.specific.SpecificRecordBase;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.connector.kafka.sink.KafkaSink;
import org.apache.flink.connector.kafka.sink.KafkaSinkBuilder;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.gpusched.streaming.JobSinks;
import org.gpusched.streaming.Topics;
import org.gpusched.streaming.avro.JobCompleted;
import org.gpusched.streaming.avro.JobMetrics;
import org.gpusched.streaming.avro.PlacementDecision;
import org.gpusched.streaming.avro.PodPlacement;
import org.gpusched.streaming.avro.RejectedRecord;
import org.gpusched.streaming.avro.SchedulingMetrics;

/**
 * The job's outputs to Kafka: one {@link KafkaSink} per output topic, Avro values in the settings' {@link WireFormat}.
 * With {@link KafkaSettings#exactlyOnce()} (needs checkpointing) the sinks write in Kafka transactions committed on
 * each checkpoint, so a restart from a checkpoint leaves every topic exactly as an uninterrupted run would;
 * otherwise at-least-once.
 */
public final class KafkaJobSinks implements JobSinks {
    private final KafkaSettings kafka;

    public KafkaJobSinks(KafkaSettings kafka) {
        this.kafka = kafka;
    }

    @Override
    public void decisions(DataStream<PlacementDecision> decisions) {
        attach(decisions, Topics.DECISIONS, new OutputSerializers.Decisions(topic(Topics.DECISIONS)));
    }

    @Override
    public void schedulingMetrics(DataStream<SchedulingMetrics> metrics) {
        attach(metrics, Topics.SCHEDULING_METRICS, new OutputSerializers.Scheduling(topic(Topics.SCHEDULING_METRICS)));
    }

    @Override
    public void jobMetrics(DataStream<JobMetrics> metrics) {
        attach(metrics, Topics.JOB_METRICS, new OutputSerializers.Jobs(topic(Topics.JOB_METRICS)));
    }

    @Override
    public void completions(DataStream<JobCompleted> completions) {
        attach(completions, Topics.COMPLETIONS, new OutputSerializers.Completions(topic(Topics.COMPLETIONS)));
    }

    @Override
    public void rejected(DataStream<RejectedRecord> rejected) {
        attach(rejected, Topics.REJECTED, new OutputSerializers.Rejected(topic(Topics.REJECTED)));
    }

    /** The placement job's decisions ({@link KafkaPlacement}); not part of {@link JobSinks}, the scheduler has none. */
    public void podPlacements(DataStream<PodPlacement> placements) {
        attach(placements, Topics.POD_PLACEMENTS, new OutputSerializers.PodPlacements(topic(Topics.POD_PLACEMENTS)));
    }

    private String topic(Topics topic) {
        return topic.topic(kafka.topicPrefix());
    }

    private <T extends SpecificRecordBase> void attach(
            DataStream<T> stream, Topics topic, AvroRecordSerializer<T> serializer) {
        String name = "kafka-" + topic.operatorId();
        var builder = KafkaSink.<T>builder()
                .setBootstrapServers(kafka.bootstrap())
                .setKafkaProducerConfig(kafka.clientConfig())
                .setRecordSerializer(serializer.withFormat(kafka.wireFormat()));
        // Batches of up to 256 KB instead of the producer's 16 KB: the job writes several small records per event, and
        // per-request work was most of the producer thread's CPU. Lingering 10 ms (default 5) lets them fill.
        defaultProperty(builder, "batch.size", Integer.toString(256 * 1024));
        defaultProperty(builder, "linger.ms", "10");
        if (kafka.exactlyOnce()) {
            builder.setDeliveryGuarantee(DeliveryGuarantee.EXACTLY_ONCE)
                    .setTransactionalIdPrefix(kafka.groupId() + "-" + topic.topic(kafka.topicPrefix()));
            // The sink's own default (1 h) exceeds a default broker's transaction.max.timeout.ms (15 min), which
            // fails every transaction; 10 min still outlasts any checkpoint interval this job is run with.
            defaultProperty(builder, "transaction.timeout.ms", "600000");
        } else {
            builder.setDeliveryGuarantee(DeliveryGuarantee.AT_LEAST_ONCE);
        }
        stream.sinkTo(builder.build()).uid("sink-" + name).name(name + " (" + serializer.topic() + ")");
    }

    /** A producer setting of the job's own, unless the user set it (--kafka-property). */
    private void defaultProperty(KafkaSinkBuilder<?> builder, String key, String value) {
        if (!kafka.clientProperties().containsKey(key)) builder.setProperty(key, value);
    }
}
