package org.gpusched.streaming;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.runtime.tasks.mailbox.Mail;
import org.apache.flink.streaming.runtime.tasks.mailbox.TaskMailbox;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.apache.flink.util.Collector;
import org.junit.jupiter.api.Test;

class InterruptibleTimersOperatorTest {
    /** Registers an event-time timer at each element's time and emits the element's value when it fires. */
    private static final class AtItsTime extends KeyedProcessFunction<String, String, String> {
        @Override
        public void processElement(String value, Context ctx, Collector<String> out) {
            ctx.timerService().registerEventTimeTimer(ctx.timestamp());
        }

        @Override
        public void onTimer(long timestamp, OnTimerContext ctx, Collector<String> out) {
            out.collect(ctx.getCurrentKey() + "@" + timestamp);
        }
    }

    private static List<String> values(KeyedOneInputStreamOperatorTestHarness<String, String, String> h) {
        List<String> out = new ArrayList<>();
        for (Object o : h.getOutput()) if (o instanceof StreamRecord<?> r) out.add((String) r.getValue());
        return out;
    }

    @Test
    void aWatermarkPassInterruptedByAMailEndsBeforeTheOperatorFinishes() throws Exception {
        var h = new KeyedOneInputStreamOperatorTestHarness<>(
                new InterruptibleTimersOperator<>(new AtItsTime()), (String s) -> s, Types.STRING);
        h.getEnvironment()
                .getJobConfiguration()
                .set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofSeconds(1));
        h.getEnvironment().getJobConfiguration().set(CheckpointingOptions.ENABLE_UNALIGNED, true);
        h.getEnvironment().getJobConfiguration().set(CheckpointingOptions.ENABLE_UNALIGNED_INTERRUPTIBLE_TIMERS, true);
        h.open();
        h.processElement(new StreamRecord<>("a", 10));
        h.processElement(new StreamRecord<>("b", 20));
        h.processElement(new StreamRecord<>("c", 30));
        // A pending mail (a checkpoint, say) makes the pass yield after its first timer.
        h.getTaskMailbox().put(new Mail(() -> {}, TaskMailbox.MIN_PRIORITY, "stands for a checkpoint"));
        h.processWatermark(new Watermark(Long.MAX_VALUE));
        assertEquals(List.of("a@10"), values(h), "the pass yielded to the mail");

        // The end of input: the operator finishes before the deferred pass could run, and fires what is left first.
        h.endInput();
        h.getOneInputOperator().finish();
        assertEquals(List.of("a@10", "b@20", "c@30"), values(h));
        h.close();
    }
}
