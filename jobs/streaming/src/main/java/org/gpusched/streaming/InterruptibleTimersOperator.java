package org.gpusched.streaming;

import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;

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

    @Override
    public boolean useInterruptibleTimers() {
        return true;
    }
}
