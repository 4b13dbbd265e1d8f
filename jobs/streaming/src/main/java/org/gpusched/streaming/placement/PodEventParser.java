package org.gpusched.streaming.placement;

import java.io.IOException;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;
import org.gpusched.placement.io.TraceFormatException;
import org.gpusched.streaming.RawRecord;
import org.gpusched.streaming.avro.PodEvent;
import org.gpusched.streaming.avro.RejectedRecord;
import org.gpusched.streaming.kafka.AvroBinary;

/**
 * Decodes and validates the records of the pods topic ({@link PodEvent}, Avro binary, either wire format) into {@link ReplayPod}s,
 * each validated as the pod list's row would be ({@link PodEvents#row}, {@link PodListFormat}). A value that is not a
 * PodEvent, or one with an impossible demand or times, goes to {@link PodRowParser#REJECTED} with the reason, the field
 * and the original bytes, and the job goes on. Stateless.
 */
public final class PodEventParser extends ProcessFunction<RawRecord, ReplayPod> {
    private static final long serialVersionUID = 1L;

    private final PodListFormat format;
    private transient AvroBinary<PodEvent> avro;

    /** @param topic the pods topic's name (quoted in rejections) */
    public PodEventParser(String topic) {
        this.format = PodEvents.format(topic);
    }

    @Override
    public void processElement(RawRecord raw, Context ctx, Collector<ReplayPod> out) {
        if (avro == null) avro = new AvroBinary<>(PodEvent.class);
        PodEvent event;
        try {
            if (raw.bytes == null) throw new IOException("not a PodEvent: a text value");
            event = avro.decode(raw.bytes);
        } catch (IOException e) {
            ctx.output(PodRowParser.REJECTED, rejected(raw, e.getMessage(), null));
            return;
        }
        try {
            out.collect(format.parse(event.getSeq(), PodEvents.row(event)).pod());
        } catch (TraceFormatException e) {
            ctx.output(PodRowParser.REJECTED, rejected(raw, e.reason(), e.column()));
        }
    }

    private static RejectedRecord rejected(RawRecord raw, String reason, String field) {
        return RejectedRecord.newBuilder()
                .setSource(raw.source)
                .setPosition(raw.position)
                .setText(raw.text)
                .setBytes(raw.bytes == null ? null : java.nio.ByteBuffer.wrap(raw.bytes))
                .setReason(reason)
                .setField(field)
                .build();
    }
}
