package org.gpusched.streaming;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.formats.avro.typeutils.AvroTypeInfo;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.gpusched.streaming.avro.PlacementDecision;
import org.gpusched.streaming.avro.RejectedRecord;
import org.gpusched.streaming.ops.OperationalMetrics;
import org.gpusched.streaming.state.ControllerEvent;

/**
 * The scheduler's data flow, defined once for every entry point (replay over files, Kafka, tests):
 * <pre>
 * sources (raw) -> parse+validate (per topic) -> event time -> dispatch (round robin over K controllers, copied per policy)
 *   -> keyBy(policy#controller) -> ControllerFunction -> decisions, scheduling metrics, job metrics, completions
 * rejected records from parsing and dispatch -> rejected sink
 * </pre>
 */
public final class SchedulerJob {
    /** The uid of the {@link RestoreGuard} after the dispatcher is this and "dispatch" ("controllers" after those). */
    public static final String RESTORE_GUARD_UID_PREFIX = "restore-guard-";

    private SchedulerJob() {}

    /** The operators of a defined job, for callers that want to attach more (tests, compare). */
    public record Pipeline(
            SingleOutputStreamOperator<PlacementDecision> controllers, DataStream<RejectedRecord> rejected) {}

    public static Pipeline define(
            StreamExecutionEnvironment env, JobSources sources, JobSinks sinks, SchedulerConfig cfg) {
        Configuration pipeline = new Configuration();
        // Every record type is Avro or a Flink basic type: a Kryo fallback would be a bug, so fail at build time.
        pipeline.set(PipelineOptions.GENERIC_TYPES, false);
        // Chained operators hand records over without an Avro deep copy: no function here mutates a record it received
        // or one it has emitted, and a keyed function's buffered input arrived over the network, deserialized afresh.
        pipeline.set(PipelineOptions.OBJECT_REUSE, true);
        // Events wait in the dispatcher's and controllers' buffers until the watermark passes them. At Flink's 200 ms
        // default they outlive young collections and get copied and promoted: fifo 100k at K = 1 ran 8.4 -> 7.2 s at 20
        // ms.
        pipeline.set(PipelineOptions.AUTO_WATERMARK_INTERVAL, cfg.watermarkInterval());
        env.configure(pipeline);
        if (!cfg.checkpointInterval().isZero())
            env.enableCheckpointing(cfg.checkpointInterval().toMillis());

        AvroTypeInfo<ControllerEvent> eventType = new AvroTypeInfo<>(ControllerEvent.class);
        List<SingleOutputStreamOperator<ControllerEvent>> parsed = new ArrayList<>();
        List<DataStream<ControllerEvent>> timed = new ArrayList<>();
        timed.add(input(sources.submissions(env), Topics.SUBMISSIONS, cfg, eventType, parsed));
        if (cfg.mode() == SchedulerConfig.Mode.LIVE) {
            sources.completions(env).ifPresent(s -> timed.add(input(s, Topics.COMPLETIONS, cfg, eventType, parsed)));
        }
        sources.nodeEvents(env).ifPresent(s -> timed.add(input(s, Topics.NODE_EVENTS, cfg, eventType, parsed)));
        sources.telemetry(env).ifPresent(s -> timed.add(input(s, Topics.TELEMETRY, cfg, eventType, parsed)));
        DataStream<ControllerEvent> events = timed.get(0);
        for (int i = 1; i < timed.size(); i++) events = events.union(timed.get(i));

        SingleOutputStreamOperator<ControllerEvent> dispatched = events.keyBy(
                        e -> Dispatcher.KEY, org.apache.flink.api.common.typeinfo.Types.STRING)
                .transform("dispatch", eventType, new InterruptibleTimersOperator<>(new Dispatcher(cfg)))
                .uid("dispatch")
                .name("dispatch (round robin over " + cfg.controllers() + " controllers)");

        SingleOutputStreamOperator<PlacementDecision> controllers = dispatched
                .keyBy(new ControllerKey(), org.apache.flink.api.common.typeinfo.Types.STRING)
                .transform(
                        "controllers",
                        new AvroTypeInfo<>(PlacementDecision.class),
                        new InterruptibleTimersOperator<>(new ControllerFunction(cfg)))
                .uid("controllers")
                .name("controllers " + cfg.policies());

        String settings = JobSettings.of(cfg);
        guard(dispatched, settings, cfg, "dispatch");
        guard(controllers, settings, cfg, "controllers");

        DataStream<RejectedRecord> rejected = dispatched.getSideOutput(Dispatcher.REJECTED);
        for (SingleOutputStreamOperator<ControllerEvent> p : parsed)
            rejected = rejected.union(p.getSideOutput(RecordParser.REJECTED));

        sinks.decisions(controllers);
        sinks.schedulingMetrics(controllers.getSideOutput(ControllerFunction.SCHEDULING_METRICS));
        sinks.jobMetrics(controllers.getSideOutput(ControllerFunction.JOB_METRICS));
        if (cfg.mode() == SchedulerConfig.Mode.REPLAY)
            sinks.completions(controllers.getSideOutput(ControllerFunction.COMPLETIONS));
        sinks.rejected(rejected);
        sinks.acceptedJobs(dispatched.getSideOutput(Dispatcher.ACCEPTED));
        sinks.nodeTimeline(dispatched.getSideOutput(Dispatcher.NODE_TIMELINE));
        OperationalMetrics.attach(controllers, rejected);
        return new Pipeline(controllers, rejected);
    }

    /**
     * One input parsed (the parser is added to {@code parsers}, whose side outputs carry the rejected records) and given
     * event time. Event time is chained to the parser, per input: each input's watermark follows its own records (the
     * union downstream takes the least), and a record reaches the dispatcher in one network hop.
     */
    private static DataStream<ControllerEvent> input(
            DataStream<RawRecord> raw,
            Topics topic,
            SchedulerConfig cfg,
            AvroTypeInfo<ControllerEvent> type,
            List<SingleOutputStreamOperator<ControllerEvent>> parsers) {
        String id = topic.operatorId();
        SingleOutputStreamOperator<ControllerEvent> parser = raw.process(new RecordParser(topic, cfg), type)
                .uid("parse-" + id)
                .name("parse " + topic.topic());
        parsers.add(parser);
        return parser.assignTimestampsAndWatermarks(watermarks(cfg))
                .uid("event-time-" + id)
                .name("event time " + topic.topic());
    }

    /** A {@link RestoreGuard} chained after a stateful operator: a restore from another job's checkpoint is refused. */
    private static void guard(DataStream<?> after, String settings, SchedulerConfig cfg, String what) {
        after.process(new RestoreGuard<>(settings, cfg.restoreNewSettings()), Types.VOID)
                .uid(RESTORE_GUARD_UID_PREFIX + what)
                .name("restore guard (" + what + ")");
    }

    static WatermarkStrategy<ControllerEvent> watermarks(SchedulerConfig cfg) {
        WatermarkStrategy<ControllerEvent> strategy = cfg.watermarkAtEndOfInputOnly()
                ? WatermarkStrategy.noWatermarks()
                : WatermarkStrategy.forBoundedOutOfOrderness(cfg.outOfOrderness());
        // An unbounded input without records (an empty node-events topic) must not hold event time back for good, in
        // either mode; the parse operator does not pass its source's idleness on.
        if (!cfg.watermarkAtEndOfInputOnly() && (cfg.mode() == SchedulerConfig.Mode.LIVE || cfg.unboundedInputs())) {
            strategy = strategy.withIdleness(cfg.idleTimeout());
        }
        return strategy.withTimestampAssigner((e, previous) -> e.getTimeMillis());
    }

    /** Unused sources are simply absent. */
    static <T> Optional<T> none() {
        return Optional.empty();
    }
}
