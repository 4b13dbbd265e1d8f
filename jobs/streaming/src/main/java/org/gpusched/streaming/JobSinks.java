package org.gpusched.streaming;

import org.apache.flink.streaming.api.datastream.DataStream;
import org.gpusched.streaming.avro.JobCompleted;
import org.gpusched.streaming.avro.JobMetrics;
import org.gpusched.streaming.avro.JobSubmitted;
import org.gpusched.streaming.avro.NodeEvent;
import org.gpusched.streaming.avro.PlacementDecision;
import org.gpusched.streaming.avro.RejectedRecord;
import org.gpusched.streaming.avro.SchedulingMetrics;

/**
 * Where the scheduler's output goes (Kafka topics, run-directory files, or collecting sinks in tests). Each method is
 * called once by {@link SchedulerJob#define} with the stream to attach a sink to. Operators added by an
 * implementation need their own {@code .uid()} and {@code .name()}.
 */
public interface JobSinks {
    /** Placement changes, every policy and controller ({@link Topics#DECISIONS}). */
    void decisions(DataStream<PlacementDecision> decisions);

    /** One record per rescheduling ({@link Topics#SCHEDULING_METRICS}). */
    void schedulingMetrics(DataStream<SchedulingMetrics> metrics);

    /** One record per finished job and policy ({@link Topics#JOB_METRICS}). */
    void jobMetrics(DataStream<JobMetrics> metrics);

    /** Replay mode: the simulated completions ({@link Topics#COMPLETIONS}); never called in live mode. */
    void completions(DataStream<JobCompleted> completions);

    /** Input records that could not be used, with the reason ({@link Topics#REJECTED}). */
    void rejected(DataStream<RejectedRecord> rejected);

    /** The valid submissions as the run used them (with actualFactor under noise); a run directory's jobs.jsonl. */
    default void acceptedJobs(DataStream<JobSubmitted> jobs) {}

    /** The node events the run applied (ADDED, TYPE_CHANGED, FAILED, REMOVED), at their times; a run directory's node-events.jsonl. */
    default void nodeTimeline(DataStream<NodeEvent> events) {}
}
