package org.gpusched.streaming.kafka;

import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.gpusched.streaming.JobSinks;
import org.gpusched.streaming.SchedulerConfig;
import org.gpusched.streaming.SchedulerJob;
import org.gpusched.streaming.avro.JobCompleted;
import org.gpusched.streaming.avro.JobMetrics;
import org.gpusched.streaming.avro.JobSubmitted;
import org.gpusched.streaming.avro.NodeEvent;
import org.gpusched.streaming.avro.PlacementDecision;
import org.gpusched.streaming.avro.RejectedRecord;
import org.gpusched.streaming.avro.SchedulingMetrics;

/**
 * The scheduler job on Kafka topics: {@link SchedulerJob#define} with {@link KafkaJobSources} and {@link KafkaJobSinks},
 * the same data flow the file replay runs. Live mode also reads completions and telemetry; replay mode simulates
 * completions and writes them to the completions topic.
 */
public final class KafkaPipeline {
    private KafkaPipeline() {}

    public static SchedulerJob.Pipeline define(
            StreamExecutionEnvironment env, KafkaSettings kafka, SchedulerConfig cfg) {
        return define(env, kafka, cfg, null);
    }

    /** As {@link #define(StreamExecutionEnvironment, KafkaSettings, SchedulerConfig)}, every output also to {@code copy} (null: none). */
    public static SchedulerJob.Pipeline define(
            StreamExecutionEnvironment env, KafkaSettings kafka, SchedulerConfig cfg, JobSinks copy) {
        boolean live = cfg.mode() == SchedulerConfig.Mode.LIVE;
        SchedulerConfig job = cfg.unboundedInputs() == !kafka.bounded()
                ? cfg
                : cfg.toBuilder().unboundedInputs(!kafka.bounded()).build();
        JobSinks topics = new KafkaJobSinks(kafka);
        return SchedulerJob.define(
                env,
                new KafkaJobSources(kafka, live, job.idleTimeout()),
                copy == null ? topics : new Both(topics, copy),
                job);
    }

    /** Each output stream to two sinks (the topics and, for run --out, the run directory's part files). */
    record Both(JobSinks first, JobSinks second) implements JobSinks {
        @Override
        public void decisions(DataStream<PlacementDecision> s) {
            first.decisions(s);
            second.decisions(s);
        }

        @Override
        public void schedulingMetrics(DataStream<SchedulingMetrics> s) {
            first.schedulingMetrics(s);
            second.schedulingMetrics(s);
        }

        @Override
        public void jobMetrics(DataStream<JobMetrics> s) {
            first.jobMetrics(s);
            second.jobMetrics(s);
        }

        @Override
        public void completions(DataStream<JobCompleted> s) {
            first.completions(s);
            second.completions(s);
        }

        @Override
        public void rejected(DataStream<RejectedRecord> s) {
            first.rejected(s);
            second.rejected(s);
        }

        @Override
        public void acceptedJobs(DataStream<JobSubmitted> s) {
            first.acceptedJobs(s);
            second.acceptedJobs(s);
        }

        @Override
        public void nodeTimeline(DataStream<NodeEvent> s) {
            first.nodeTimeline(s);
            second.nodeTimeline(s);
        }
    }
}
