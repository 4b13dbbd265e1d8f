package org.gpusched.streaming.powerflow;

import static org.gpusched.streaming.RecordFields.checkTime;
import static org.gpusched.streaming.RecordFields.number;
import static org.gpusched.streaming.RecordFields.optionalInt;
import static org.gpusched.streaming.RecordFields.optionalNumber;
import static org.gpusched.streaming.RecordFields.optionalText;
import static org.gpusched.streaming.RecordFields.text;

import com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;
import org.gpusched.streaming.RawRecord;
import org.gpusched.streaming.RecordFields;
import org.gpusched.streaming.RecordFields.Rejection;
import org.gpusched.streaming.RecordParser;
import org.gpusched.streaming.Topics;
import org.gpusched.streaming.avro.JobCompleted;
import org.gpusched.streaming.avro.PowerflowJob;
import org.gpusched.streaming.avro.RejectedRecord;
import org.gpusched.streaming.avro.Telemetry;
import org.gpusched.streaming.avro.TelemetryKind;
import org.gpusched.streaming.state.PowerflowEvent;
import org.gpusched.streaming.state.PowerflowEventKind;

/**
 * Parses and validates one input record of the powerflow scheduler: a job ({@link Topics#POWERFLOW_JOBS}; a file line is
 * a PowerFlow trace line {@code {"id":1,"submit":0,"workload":"resnet50","batch":256,"gpus":4,"iterations":5e4}}), a
 * completion or a JOB_PROGRESS telemetry sample (JSON with the Avro schema's field names, or plain Avro binary). A record
 * the scheduler cannot use goes to {@link #REJECTED} with the reason and the field; the job goes on. NODE_POWER
 * telemetry is not used by this policy and is dropped.
 */
public final class PowerflowParser extends ProcessFunction<RawRecord, PowerflowEvent> {
    private static final long serialVersionUID = 1L;
    public static final OutputTag<RejectedRecord> REJECTED = new OutputTag<>("powerflow-rejected") {};
    static final double MAX_POWER_WATTS = 1e7;

    private final Topics topic;
    private transient RecordFields fields;

    public PowerflowParser(Topics topic) {
        if (topic != Topics.POWERFLOW_JOBS && topic != Topics.TELEMETRY && topic != Topics.COMPLETIONS)
            throw new IllegalArgumentException(topic + " is not an input of the powerflow scheduler");
        this.topic = topic;
    }

    @Override
    public void open(OpenContext openContext) {
        fields = new RecordFields();
    }

    @Override
    public void processElement(RawRecord raw, Context ctx, Collector<PowerflowEvent> out) {
        if (fields == null) open(null);
        PowerflowEvent event = RecordFields.readOrReject(raw, this::parse, r -> ctx.output(REJECTED, r));
        if (event == null) return;
        event.setSource(raw.source == null ? topic.topic() : raw.source);
        event.setPosition(raw.position == null ? "" : raw.position);
        out.collect(event);
    }

    /** The event, or null for telemetry this policy does not use. */
    private PowerflowEvent parse(RawRecord raw) throws Rejection {
        return switch (topic) {
            case POWERFLOW_JOBS -> job(raw);
            case COMPLETIONS -> completion(raw);
            default -> telemetry(raw);
        };
    }

    private PowerflowEvent job(RawRecord raw) throws Rejection {
        PowerflowJob j;
        if (raw.text != null) {
            JsonNode root = fields.object(raw.text);
            for (var names = root.fieldNames(); names.hasNext(); ) {
                String n = names.next();
                if (!java.util.Set.of("id", "submit", "workload", "batch", "gpus", "iterations")
                        .contains(n))
                    throw new Rejection(
                            "unknown field '" + n + "' (a PowerFlow trace line has id, submit, workload, batch, gpus,"
                                    + " iterations)",
                            n);
            }
            JsonNode id = root.get("id");
            if (id == null || id.isNull() || id.asText().isBlank()) throw new Rejection("field 'id' is missing", "id");
            double gpus = number(root, "gpus");
            if (gpus != Math.rint(gpus))
                throw new Rejection("field 'gpus' must be a whole number, got " + gpus, "gpus");
            j = PowerflowJob.newBuilder()
                    .setId(RecordFields.unicode(id.asText(), "id"))
                    .setSubmit(number(root, "submit"))
                    .setWorkload(text(root, "workload"))
                    .setGlobalBatch(number(root, "batch"))
                    .setGpus((int) Math.min(gpus, Integer.MAX_VALUE))
                    .setIterations(number(root, "iterations"))
                    .build();
        } else {
            j = fields.decode(raw, PowerflowJob.class);
        }
        checkTime(j.getSubmit(), "submit");
        if (j.getId().isBlank()) throw new Rejection("field 'id' is missing", "id");
        if (!(j.getGlobalBatch() > 0 && j.getGlobalBatch() <= 1e9))
            throw new Rejection("job " + j.getId() + ": batch must be in (0, 1e9], got " + j.getGlobalBatch(), "batch");
        if (j.getGpus() < 1 || j.getGpus() > 1 << 20)
            throw new Rejection("job " + j.getId() + ": gpus must be in [1, 1048576], got " + j.getGpus(), "gpus");
        if (!(j.getIterations() > 0 && j.getIterations() <= 1e15))
            throw new Rejection(
                    "job " + j.getId() + ": iterations must be in (0, 1e15], got " + j.getIterations(), "iterations");
        return event(j.getSubmit(), PowerflowEventKind.SUBMISSION, j.getId())
                .setSubmitted(j)
                .build();
    }

    private PowerflowEvent completion(RawRecord raw) throws Rejection {
        JobCompleted c = fields.completion(raw);
        return event(c.getTime(), PowerflowEventKind.COMPLETION, c.getJob())
                .setCompleted(c)
                .build();
    }

    private PowerflowEvent telemetry(RawRecord raw) throws Rejection {
        Telemetry t;
        if (raw.text != null) {
            JsonNode root = fields.object(raw.text);
            String k = text(root, "kind");
            TelemetryKind kind;
            try {
                kind = TelemetryKind.valueOf(k);
            } catch (IllegalArgumentException e) {
                throw new Rejection("field 'kind' must be JOB_PROGRESS or NODE_POWER, got '" + k + "'", "kind");
            }
            t = Telemetry.newBuilder()
                    .setTime(number(root, "time"))
                    .setKind(kind)
                    .setJob(optionalText(root, "job"))
                    .setNode(optionalText(root, "node"))
                    .setProgress(optionalNumber(root, "progress"))
                    .setPowerWatts(optionalNumber(root, "powerWatts"))
                    .setIterationsDone(optionalNumber(root, "iterationsDone"))
                    .setStepSeconds(optionalNumber(root, "stepSeconds"))
                    .setGpuPowerWatts(optionalNumber(root, "gpuPowerWatts"))
                    .setGpus(optionalInt(root, "gpus"))
                    .setPowerLimitWatts(optionalNumber(root, "powerLimitWatts"))
                    .setLocalBatch(optionalNumber(root, "localBatch"))
                    .build();
        } else {
            t = fields.decode(raw, Telemetry.class);
        }
        checkTime(t.getTime(), "time");
        if (t.getKind() != TelemetryKind.JOB_PROGRESS) return null;
        if (t.getJob() == null || t.getJob().isBlank())
            throw new Rejection("JOB_PROGRESS: field 'job' is missing", "job");
        String job = t.getJob();
        if (t.getIterationsDone() != null && !(t.getIterationsDone() >= 0 && t.getIterationsDone() <= 1e15))
            throw new Rejection(
                    "job " + job + ": iterationsDone must be in [0, 1e15], got " + t.getIterationsDone(),
                    "iterationsDone");
        boolean any = t.getStepSeconds() != null
                || t.getGpuPowerWatts() != null
                || t.getGpus() != null
                || t.getPowerLimitWatts() != null
                || t.getLocalBatch() != null;
        if (any) {
            // a performance sample is usable only whole: the step time and power at a known configuration
            for (String f : new String[] {"stepSeconds", "gpuPowerWatts", "gpus", "powerLimitWatts", "localBatch"})
                if (t.get(f) == null)
                    throw new Rejection(
                            "job " + job + ": a performance sample needs stepSeconds, gpuPowerWatts, gpus,"
                                    + " powerLimitWatts and localBatch; '" + f + "' is missing",
                            f);
            if (!(t.getStepSeconds() > 0 && t.getStepSeconds() <= 1e6))
                throw new Rejection(
                        "job " + job + ": stepSeconds must be in (0, 1e6], got " + t.getStepSeconds(), "stepSeconds");
            if (!(t.getGpuPowerWatts() > 0 && t.getGpuPowerWatts() <= MAX_POWER_WATTS))
                throw new Rejection(
                        "job " + job + ": gpuPowerWatts must be in (0, " + MAX_POWER_WATTS + "], got "
                                + t.getGpuPowerWatts(),
                        "gpuPowerWatts");
            if (t.getGpus() < 1 || t.getGpus() > 1 << 20)
                throw new Rejection("job " + job + ": gpus must be in [1, 1048576], got " + t.getGpus(), "gpus");
            if (!(t.getPowerLimitWatts() > 0 && t.getPowerLimitWatts() <= 1e5))
                throw new Rejection(
                        "job " + job + ": powerLimitWatts must be in (0, 1e5], got " + t.getPowerLimitWatts(),
                        "powerLimitWatts");
            if (!(t.getLocalBatch() > 0 && t.getLocalBatch() <= 1e9))
                throw new Rejection(
                        "job " + job + ": localBatch must be in (0, 1e9], got " + t.getLocalBatch(), "localBatch");
        } else if (t.getIterationsDone() == null) {
            throw new Rejection(
                    "job " + job + ": JOB_PROGRESS for powerflow needs iterationsDone or a performance sample",
                    "iterationsDone");
        }
        return event(t.getTime(), PowerflowEventKind.TELEMETRY, job)
                .setTelemetry(t)
                .build();
    }

    private static PowerflowEvent.Builder event(double seconds, PowerflowEventKind kind, String job) {
        return PowerflowEvent.newBuilder()
                .setTimeMillis(RecordParser.toMillis(seconds))
                .setKind(kind)
                .setJob(job);
    }
}
