package org.gpusched.streaming.powerflow;

import org.apache.flink.streaming.api.datastream.DataStream;
import org.gpusched.streaming.avro.JobCompleted;
import org.gpusched.streaming.avro.JobModelFit;
import org.gpusched.streaming.avro.PlacementDecision;
import org.gpusched.streaming.avro.PowerflowJobEnergy;
import org.gpusched.streaming.avro.PowerflowPowerSample;
import org.gpusched.streaming.avro.RejectedRecord;
import org.gpusched.streaming.avro.Telemetry;

/**
 * Where the powerflow scheduler's output goes. Each method is called once by {@link PowerflowPipeline#define}; operators
 * an implementation adds need their own {@code .uid()} and {@code .name()}.
 */
public interface PowerflowSinks {
    /** START, RESIZE, PREEMPT and COMPLETE with the GPU count, power limit and local batch. */
    void decisions(DataStream<PlacementDecision> decisions);

    /** Every fit of a job's model. */
    void models(DataStream<JobModelFit> models);

    void rejected(DataStream<RejectedRecord> rejected);

    /** Replay only: the simulated completions. */
    default void completions(DataStream<JobCompleted> completions) {}

    /** Replay only: the simulated telemetry the models were fitted from. */
    default void telemetry(DataStream<Telemetry> telemetry) {}

    /** Replay only: each finished job's true energy and JCT. */
    default void jobEnergy(DataStream<PowerflowJobEnergy> jobEnergy) {}

    /** Replay only: the cluster's true power after each decision. */
    default void power(DataStream<PowerflowPowerSample> power) {}
}
