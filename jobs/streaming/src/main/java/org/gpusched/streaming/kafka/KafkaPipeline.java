package org.gpusched.streaming.kafka;

import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.gpusched.streaming.SchedulerConfig;
import org.gpusched.streaming.SchedulerJob;

/**
 * The scheduler job on Kafka topics: {@link SchedulerJob#define} with {@link KafkaJobSources} and {@link KafkaJobSinks},
 * the same data flow the file replay runs. Live mode also reads completions and telemetry; replay mode simulates
 * completions and writes them to the completions topic.
 */
public final class KafkaPipeline {
    private KafkaPipeline() {}

    public static SchedulerJob.Pipeline define(StreamExecutionEnvironment env, KafkaSettings kafka, SchedulerConfig cfg) {
        boolean live = cfg.mode() == SchedulerConfig.Mode.LIVE;
        SchedulerConfig job = cfg.unboundedInputs() == !kafka.bounded() ? cfg : cfg.toBuilder().unboundedInputs(!kafka.bounded()).build();
        return SchedulerJob.define(env, new KafkaJobSources(kafka, live, job.idleTimeout()), new KafkaJobSinks(kafka), job);
    }
}
