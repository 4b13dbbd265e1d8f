package org.gpusched.streaming;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import org.gpusched.streaming.avro.JobCompleted;
import org.gpusched.streaming.avro.JobMetrics;
import org.gpusched.streaming.avro.PlacementDecision;
import org.gpusched.streaming.avro.SchedulingMetrics;
import org.gpusched.streaming.state.ControllerState;

/** Keeps what controller steps emit and the timers they set, for tests of the plain-Java controller logic. */
final class StepRecorder implements ControllerFacts.Output, ControllerFacts.Timers {
    final List<PlacementDecision> decisions = new ArrayList<>();
    final List<JobMetrics> jobMetrics = new ArrayList<>();
    final List<JobCompleted> completions = new ArrayList<>();
    final List<SchedulingMetrics> schedulingMetrics = new ArrayList<>();
    final List<Long> timers = new ArrayList<>();

    /** The facts of one step of controller 0 of {@code config}'s first policy at {@code nowMillis}, recorded here. */
    ControllerFacts facts(SchedulerConfig config, ControllerState state, ActiveJobs jobs, long nowMillis) {
        return facts(config, state, jobs, null, nowMillis);
    }

    /** As {@link #facts(SchedulerConfig, ControllerState, ActiveJobs, long)}, with the topology a step before kept. */
    ControllerFacts facts(
            SchedulerConfig config, ControllerState state, ActiveJobs jobs, Topology cachedTopology, long nowMillis) {
        return new ControllerFacts(
                config,
                ControllerFacts.Catalog.of(config),
                config.policies().get(0),
                0,
                state,
                jobs,
                new HashSet<>(),
                cachedTopology,
                nowMillis,
                this,
                this);
    }

    @Override
    public void decision(PlacementDecision d) {
        decisions.add(d);
    }

    @Override
    public void jobMetrics(JobMetrics m) {
        jobMetrics.add(m);
    }

    @Override
    public void completion(JobCompleted c) {
        completions.add(c);
    }

    @Override
    public void schedulingMetrics(SchedulingMetrics m) {
        schedulingMetrics.add(m);
    }

    @Override
    public void register(long millis) {
        timers.add(millis);
    }

    @Override
    public void delete(long millis) {
        timers.remove(millis);
    }

    @Override
    public boolean inputPendingAt(long millis) {
        return false;
    }
}
