package org.gpusched.streaming.powerflow;

import java.util.ArrayList;
import java.util.List;
import org.gpusched.powerflow.truth.GroundTruth;
import org.gpusched.streaming.RecordParser;
import org.gpusched.streaming.avro.JobCompleted;
import org.gpusched.streaming.avro.PowerflowJob;
import org.gpusched.streaming.avro.Telemetry;
import org.gpusched.streaming.avro.TelemetryKind;
import org.gpusched.streaming.state.PowerflowEvent;
import org.gpusched.streaming.state.PowerflowEventKind;

/** Events of the powerflow scheduler's tests; telemetry is what a job on the ground truth's hardware would report. */
final class PowerflowTestData {
    static final GroundTruth TRUTH = GroundTruth.defaults();
    static final PowerflowSettings LIVE = PowerflowSettings.of(0.5, 16, false, 1, null);

    private PowerflowTestData() {}

    /** Replay settings as {@code replay --policy powerflow} sets them (event time advances at the end of input). */
    static PowerflowSettings replaySettings(double eta, int gpus, long seed) {
        return PowerflowSettings.of(eta, gpus, true, seed, null)
                .withStreaming(
                        java.time.Duration.ofMillis(-1),
                        java.time.Duration.ofSeconds(5),
                        java.time.Duration.ZERO,
                        java.time.Duration.ofMillis(20),
                        false);
    }

    /** The streaming replay of {@code trace} on a Flink mini cluster, its run directory written to {@code run}. */
    static PowerflowRunDirectory.Written replay(java.nio.file.Path trace, PowerflowSettings cfg, java.nio.file.Path run)
            throws Exception {
        java.nio.file.Path parts = run.resolveSibling(run.getFileName() + "-parts");
        var env = org.gpusched.streaming.EmbeddedFlink.local(1, new org.apache.flink.configuration.Configuration());
        PowerflowPipeline.define(
                env, new PowerflowFiles.Sources(trace, null, null), new PowerflowFiles.Sinks(parts), cfg);
        env.execute("powerflow replay " + trace.getFileName());
        return PowerflowRunDirectory.write(parts, java.nio.file.Files.createDirectories(run), cfg, trace);
    }

    static PowerflowJob job(String id, double submit, String workload, double batch, double iterations) {
        return PowerflowJob.newBuilder()
                .setId(id)
                .setSubmit(submit)
                .setWorkload(workload)
                .setGlobalBatch(batch)
                .setGpus(1)
                .setIterations(iterations)
                .build();
    }

    static PowerflowEvent submission(PowerflowJob j) {
        return event(j.getSubmit(), PowerflowEventKind.SUBMISSION, j.getId())
                .setSubmitted(j)
                .build();
    }

    static PowerflowEvent completion(String job, double time) {
        return event(time, PowerflowEventKind.COMPLETION, job)
                .setCompleted(
                        JobCompleted.newBuilder().setTime(time).setJob(job).build())
                .build();
    }

    /** A sample with the true step time and power scaled by {@code slowdown} (1 = the truth). */
    static Telemetry sample(
            String job, double time, String workload, double batch, int gpus, double limit, double slowdown) {
        GroundTruth.Outcome o = TRUTH.at(workload, gpus, batch, limit);
        return Telemetry.newBuilder()
                .setTime(time)
                .setKind(TelemetryKind.JOB_PROGRESS)
                .setJob(job)
                .setIterationsDone(0.0)
                .setStepSeconds(o.stepTime() * slowdown)
                .setGpuPowerWatts(o.power())
                .setGpus(gpus)
                .setPowerLimitWatts(limit)
                .setLocalBatch(batch / gpus)
                .build();
    }

    static PowerflowEvent telemetry(Telemetry t) {
        return event(t.getTime(), PowerflowEventKind.TELEMETRY, t.getJob())
                .setTelemetry(t)
                .build();
    }

    /** The profiling samples: one GPU at every power limit, all at {@code time}. */
    static List<PowerflowEvent> profile(PowerflowJob j, double time) {
        List<PowerflowEvent> out = new ArrayList<>();
        for (double limit : LIVE.powerLimits())
            out.add(telemetry(sample(j.getId(), time, j.getWorkload(), j.getGlobalBatch(), 1, limit, 1)));
        return out;
    }

    private static PowerflowEvent.Builder event(double time, PowerflowEventKind kind, String job) {
        return PowerflowEvent.newBuilder()
                .setTimeMillis(RecordParser.toMillis(time))
                .setKind(kind)
                .setJob(job);
    }
}
