package org.gpusched.streaming.powerflow;

import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.formats.avro.typeutils.AvroTypeInfo;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;
import org.gpusched.powerflow.model.Configuration;
import org.gpusched.powerflow.sim.ModelFitting;
import org.gpusched.streaming.avro.JobModelFit;
import org.gpusched.streaming.avro.RejectedRecord;
import org.gpusched.streaming.avro.Telemetry;
import org.gpusched.streaming.state.JobModelState;
import org.gpusched.streaming.state.PowerflowEvent;
import org.gpusched.streaming.state.PowerflowEventKind;

/**
 * Keyed by job: the job's telemetry and its fitted performance model ({@link JobModels}, Hipparchus
 * Levenberg-Marquardt through the simulator's {@link ModelFitting}, with the scale-out prior of the workload its
 * submission names), for the live powerflow scheduler downstream.
 *
 * <p>State: {@link #MODEL}, the job's samples averaged per configuration and its latest fit, created by the job's
 * submission; {@link #PENDING}, the job's events not yet passed by the watermark. Events are handled when the watermark
 * passes their time, those of one time sorted ({@link PowerflowEvents#ORDER}), so the fits do not depend on arrival
 * order. The model is refitted when a time's samples bring a configuration (GPU count, power limit, local batch) the
 * job had not run at, warm-started from the previous fit (the first fit is fresh); samples at a known configuration are
 * averaged in and count at the next refit. Each fit is emitted as a {@code MODEL} event (and to {@link #MODELS}); the
 * job's submission, completion and telemetry are passed on (telemetry of a completion's own time too, for the job's
 * energy, though it is not fitted). Both states are cleared when the job completes; telemetry of a job never submitted
 * or completed at an earlier time, and a second completion, leave no state and go to {@link #REJECTED} with the
 * reason, as the scheduler's dispatcher rejects them.
 */
public final class JobModelFunction extends KeyedProcessFunction<String, PowerflowEvent, PowerflowEvent> {
    private static final long serialVersionUID = 1L;

    public static final ValueStateDescriptor<JobModelState> MODEL =
            new ValueStateDescriptor<>("job-model", new AvroTypeInfo<>(JobModelState.class));
    public static final ListStateDescriptor<PowerflowEvent> PENDING =
            new ListStateDescriptor<>("pending-events", new AvroTypeInfo<>(PowerflowEvent.class));
    /** Telemetry and completions of jobs this function does not know, for the rejected topic. */
    public static final OutputTag<RejectedRecord> REJECTED =
            new OutputTag<>("powerflow-unknown-job", new AvroTypeInfo<>(RejectedRecord.class));
    /** Every fit, for the models topic. */
    public static final OutputTag<JobModelFit> MODELS =
            new OutputTag<>("job-models", new AvroTypeInfo<>(JobModelFit.class));

    private final PowerflowSettings settings;
    private transient ValueState<JobModelState> model;
    private transient ListState<PowerflowEvent> pending;
    /** The simulator's fitting: ModelFitter with the scale-out prior of the job's workload. */
    private transient ModelFitting fitting;

    public JobModelFunction(PowerflowSettings settings) {
        this.settings = settings;
    }

    @Override
    public void open(OpenContext openContext) {
        model = getRuntimeContext().getState(MODEL);
        pending = getRuntimeContext().getListState(PENDING);
        fitting = new ModelFitting(settings.groundTruth(), settings.cluster(), true);
    }

    @Override
    public void processElement(PowerflowEvent event, Context ctx, Collector<PowerflowEvent> out) throws Exception {
        pending.add(event);
        ctx.timerService().registerEventTimeTimer(event.getTimeMillis());
    }

    @Override
    public void onTimer(long time, OnTimerContext ctx, Collector<PowerflowEvent> out) throws Exception {
        List<PowerflowEvent> later = new ArrayList<>();
        List<PowerflowEvent> due = PowerflowEvents.due(pending.get(), time, later);
        if (due.isEmpty()) return;
        JobModelState state = model.value();
        boolean newConfiguration = false, newGpuCount = false, completed = false;
        // samples taken at the submission's own time count (a submission sorts after telemetry of its time)
        for (PowerflowEvent e : due)
            if (e.getKind() == PowerflowEventKind.SUBMISSION && state == null)
                state = JobModelState.newBuilder(JobModels.empty(e.getJob()))
                        .setWorkload(e.getSubmitted().getWorkload())
                        .setGlobalBatch(e.getSubmitted().getGlobalBatch())
                        .build();
        for (PowerflowEvent e : due) {
            // a sample of the completion's own time still belongs to the job
            if ((e.getKind() == PowerflowEventKind.TELEMETRY || e.getKind() == PowerflowEventKind.COMPLETION)
                    && (state == null || (completed && e.getKind() == PowerflowEventKind.COMPLETION))) {
                reject(ctx, e);
                continue;
            }
            switch (e.getKind()) {
                case COMPLETION -> completed = true;
                case TELEMETRY -> {
                    Telemetry t = e.getTelemetry();
                    // a sample of the completion's own time is passed on (its energy was drawn before the end),
                    // not fitted
                    if (!completed && PowerflowEvents.isSample(t)) {
                        Configuration c = configuration(t);
                        int before = state.getConfigurations().size();
                        newGpuCount |= JobModels.newGpuCount(state, c.gpus());
                        state = JobModels.observe(
                                state, c, t.getStepSeconds(), t.getGpuPowerWatts() * t.getStepSeconds());
                        newConfiguration |= state.getConfigurations().size() > before;
                    }
                }
                default -> {}
            }
            out.collect(e);
        }
        if (completed) {
            model.clear();
            // the job's later events are handled at their time, for a finished job: rejected, not lost
            if (later.isEmpty()) pending.clear();
            else pending.update(later);
            return;
        }
        if (state != null && newConfiguration) {
            int maxGpus = state.getWorkload() == null
                    ? settings.totalGpus()
                    : settings.maxGpus(state.getWorkload(), state.getGlobalBatch());
            state = JobModels.fit(state, time / 1000.0, fitting, maxGpus, newGpuCount);
            out.collect(PowerflowEvent.newBuilder()
                    .setTimeMillis(time)
                    .setKind(PowerflowEventKind.MODEL)
                    .setJob(state.getJob())
                    .setModel(state.getFit())
                    .build());
            ctx.output(MODELS, state.getFit());
        }
        if (state != null) model.update(state);
        if (later.isEmpty()) pending.clear();
        else pending.update(later);
    }

    /** A job's telemetry or completion this function cannot use: the job was never submitted, or has finished. */
    private static void reject(OnTimerContext ctx, PowerflowEvent e) {
        boolean telemetry = e.getKind() == PowerflowEventKind.TELEMETRY;
        ctx.output(
                REJECTED,
                RejectedRecord.newBuilder()
                        .setSource(e.getSource())
                        .setPosition(e.getPosition())
                        .setText(String.valueOf(telemetry ? e.getTelemetry() : e.getCompleted()))
                        .setBytes(null)
                        .setReason(
                                (telemetry ? "telemetry" : "completion") + " of unknown or finished job " + e.getJob())
                        .setField("job")
                        .build());
    }

    /** The configuration a sample was taken at. */
    Configuration configuration(Telemetry t) {
        int gpus = t.getGpus();
        return new Configuration(
                gpus, Math.min(gpus, settings.gpusPerNode()), t.getLocalBatch(), settings.freq(t.getPowerLimitWatts()));
    }
}
