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

    /** Each finished job's energy and JCT: the truth in replay, the telemetry received live. */
    default void jobEnergy(DataStream<PowerflowJobEnergy> jobEnergy) {}

    /** Live only: the telemetry samples the scheduler received (what its job energies were integrated from). */
    default void telemetryReceived(DataStream<Telemetry> telemetry) {}

    /** Replay only: the cluster's true power after each decision. */
    default void power(DataStream<PowerflowPowerSample> power) {}

    /** Every output to both {@code first} and {@code second} (a run on Kafka that also writes its run directory). */
    static PowerflowSinks both(PowerflowSinks first, PowerflowSinks second) {
        return new PowerflowSinks() {
            @Override
            public void decisions(DataStream<PlacementDecision> s) {
                first.decisions(s);
                second.decisions(s);
            }

            @Override
            public void models(DataStream<JobModelFit> s) {
                first.models(s);
                second.models(s);
            }

            @Override
            public void rejected(DataStream<RejectedRecord> s) {
                first.rejected(s);
                second.rejected(s);
            }

            @Override
            public void completions(DataStream<JobCompleted> s) {
                first.completions(s);
                second.completions(s);
            }

            @Override
            public void telemetry(DataStream<Telemetry> s) {
                first.telemetry(s);
                second.telemetry(s);
            }

            @Override
            public void jobEnergy(DataStream<PowerflowJobEnergy> s) {
                first.jobEnergy(s);
                second.jobEnergy(s);
            }

            @Override
            public void telemetryReceived(DataStream<Telemetry> s) {
                first.telemetryReceived(s);
                second.telemetryReceived(s);
            }

            @Override
            public void power(DataStream<PowerflowPowerSample> s) {
                first.power(s);
                second.power(s);
            }
        };
    }
}
