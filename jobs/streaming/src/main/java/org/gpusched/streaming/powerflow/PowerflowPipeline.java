package org.gpusched.streaming.powerflow;

import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.formats.avro.typeutils.AvroTypeInfo;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.gpusched.streaming.RawRecord;
import org.gpusched.streaming.Topics;
import org.gpusched.streaming.avro.PlacementDecision;
import org.gpusched.streaming.avro.RejectedRecord;
import org.gpusched.streaming.avro.Telemetry;
import org.gpusched.streaming.state.PowerflowEvent;

/**
 * The powerflow scheduler's data flow, defined once for files, Kafka and tests:
 * <pre>
 * live:   jobs, telemetry, completions -> parse -> event time -> keyBy(job) -> JobModelFunction (fits)
 *           -> keyBy(policy) -> PowerflowScheduler -> decisions;  fits -> models;  each finished job's energy
 *           (from the telemetry received) -> job energy;  the samples received -> telemetry received
 * replay: jobs -> parse -> event time -> keyBy(policy) -> PowerflowScheduler (simulated cluster inside)
 *           -> decisions;  simulated telemetry, completions, fits, job energy and power -> their sinks
 * rejected records of every parser, and live telemetry and completions of unknown jobs -> rejected
 * </pre>
 */
public final class PowerflowPipeline {
    private PowerflowPipeline() {}

    /** The scheduler's output, for callers that attach more. */
    public record Pipeline(SingleOutputStreamOperator<PlacementDecision> scheduler) {}

    public static Pipeline define(
            StreamExecutionEnvironment env, PowerflowSources sources, PowerflowSinks sinks, PowerflowSettings cfg) {
        Configuration pipeline = new Configuration();
        pipeline.set(PipelineOptions.GENERIC_TYPES, false);
        pipeline.set(PipelineOptions.AUTO_WATERMARK_INTERVAL, cfg.watermarkInterval());
        env.configure(pipeline);
        if (!cfg.checkpointInterval().isZero())
            env.enableCheckpointing(cfg.checkpointInterval().toMillis());

        AvroTypeInfo<PowerflowEvent> type = new AvroTypeInfo<>(PowerflowEvent.class);
        List<SingleOutputStreamOperator<PowerflowEvent>> parsers = new ArrayList<>();
        DataStream<PowerflowEvent> events = input(sources.jobs(env), Topics.POWERFLOW_JOBS, cfg, type, parsers);
        DataStream<RejectedRecord> unknownJobs = null;
        if (!cfg.replay()) {
            DataStream<PowerflowEvent> all = events;
            for (var s : sources.telemetry(env).stream().toList())
                all = all.union(input(s, Topics.TELEMETRY, cfg, type, parsers));
            for (var s : sources.completions(env).stream().toList())
                all = all.union(input(s, Topics.COMPLETIONS, cfg, type, parsers));
            SingleOutputStreamOperator<PowerflowEvent> models = all.keyBy(PowerflowEvent::getJob, Types.STRING)
                    .process(new JobModelFunction(cfg), type)
                    .uid("powerflow-job-models")
                    .name("job models (fitted from telemetry)");
            sinks.models(models.getSideOutput(JobModelFunction.MODELS));
            sinks.telemetryReceived(models.filter(e -> PowerflowEvents.isSample(e.getTelemetry()))
                    .uid("powerflow-telemetry-received")
                    .name("telemetry samples received")
                    .map(PowerflowEvent::getTelemetry, new AvroTypeInfo<>(Telemetry.class))
                    .uid("powerflow-telemetry-received-records")
                    .name("telemetry samples received as records"));
            unknownJobs = models.getSideOutput(JobModelFunction.REJECTED);
            events = models;
        }
        SingleOutputStreamOperator<PlacementDecision> scheduler = events.keyBy(
                        e -> PowerflowSettings.POLICY, Types.STRING)
                .process(new PowerflowScheduler(cfg), new AvroTypeInfo<>(PlacementDecision.class))
                .uid("powerflow-scheduler")
                .name("powerflow (eta " + cfg.eta() + ", " + cfg.totalGpus() + " GPUs"
                        + (cfg.replay() ? ", simulated cluster)" : ")"));
        sinks.decisions(scheduler);
        sinks.jobEnergy(scheduler.getSideOutput(PowerflowScheduler.JOB_ENERGY));
        if (cfg.replay()) {
            sinks.models(scheduler.getSideOutput(PowerflowScheduler.MODELS));
            sinks.telemetry(scheduler.getSideOutput(PowerflowScheduler.TELEMETRY));
            sinks.completions(scheduler.getSideOutput(PowerflowScheduler.COMPLETIONS));
            sinks.power(scheduler.getSideOutput(PowerflowScheduler.POWER));
        }
        DataStream<RejectedRecord> rejected = parsers.get(0).getSideOutput(PowerflowParser.REJECTED);
        for (int i = 1; i < parsers.size(); i++)
            rejected = rejected.union(parsers.get(i).getSideOutput(PowerflowParser.REJECTED));
        if (unknownJobs != null) rejected = rejected.union(unknownJobs);
        sinks.rejected(rejected);
        return new Pipeline(scheduler);
    }

    private static DataStream<PowerflowEvent> input(
            DataStream<RawRecord> raw,
            Topics topic,
            PowerflowSettings cfg,
            AvroTypeInfo<PowerflowEvent> type,
            List<SingleOutputStreamOperator<PowerflowEvent>> parsers) {
        String id = topic.operatorId();
        SingleOutputStreamOperator<PowerflowEvent> parser = raw.process(new PowerflowParser(topic), type)
                .uid("powerflow-parse-" + id)
                .name("parse " + topic.topic());
        parsers.add(parser);
        return parser.assignTimestampsAndWatermarks(watermarks(cfg))
                .uid("powerflow-event-time-" + id)
                .name("event time " + topic.topic());
    }

    static WatermarkStrategy<PowerflowEvent> watermarks(PowerflowSettings cfg) {
        WatermarkStrategy<PowerflowEvent> strategy = cfg.watermarkAtEndOfInputOnly()
                ? WatermarkStrategy.noWatermarks()
                : WatermarkStrategy.forBoundedOutOfOrderness(cfg.outOfOrderness());
        if (!cfg.watermarkAtEndOfInputOnly() && (!cfg.replay() || cfg.unboundedInputs()))
            strategy = strategy.withIdleness(cfg.idleTimeout());
        return strategy.withTimestampAssigner((e, previous) -> e.getTimeMillis());
    }
}
