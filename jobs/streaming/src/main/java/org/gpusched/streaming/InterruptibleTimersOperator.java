package org.gpusched.streaming;

import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.api.watermark.Watermark;

/**
 * A keyed process function whose event-time timers a checkpoint may interrupt. The dispatcher and the controllers hold
 * every event until the watermark passes it and handle it in a timer; in a busy replay the watermark runs far ahead
 * of them, and Flink fires all the timers a watermark makes due in one uninterrupted pass, so a checkpoint barrier
 * (unaligned ones too) waits until that whole backlog is handled. With
 * {@code execution.checkpointing.unaligned.interruptible-timers.enabled} (and unaligned checkpoints) the pass yields to
 * a checkpoint between two timers. Timers still fire in the same order, so decisions do not change.
 */
public final class InterruptibleTimersOperator<K, I, O> extends KeyedProcessOperator<K, I, O> {
    private static final long serialVersionUID = 1L;

    public InterruptibleTimersOperator(KeyedProcessFunction<K, I, O> function) {
        super(function);
    }

    /** The highest watermark received, which the timers have to reach before this operator finishes. */
    private transient long receivedWatermark = Long.MIN_VALUE;

    @Override
    public boolean useInterruptibleTimers() {
        return true;
    }

    @Override
    public void processWatermark(Watermark mark) throws Exception {
        receivedWatermark = Math.max(receivedWatermark, mark.getTimestamp());
        super.processWatermark(mark);
    }

    /**
     * Fires, before this operator finishes, the timers of a watermark whose interrupted pass is still waiting in the
     * mailbox: that pass may otherwise run after the end of input has reached the operators chained behind this one
     * (the sinks' writers refuse a record then, "Received element after endOfInput", and the job restarts), and passes
     * the watermark on. The pass finds nothing left to fire when it runs and passes the same watermark again, which
     * changes nothing downstream.
     */
    @Override
    public void finish() throws Exception {
        var timers = getTimeServiceManager();
        if (timers.isPresent() && receivedWatermark != Long.MIN_VALUE) {
            timers.get().advanceWatermark(new Watermark(receivedWatermark));
            output.emitWatermark(new Watermark(receivedWatermark));
        }
        super.finish();
    }
}
