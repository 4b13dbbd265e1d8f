package org.gpusched.streaming.placement;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;
import org.apache.flink.formats.avro.typeutils.AvroTypeInfo;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;
import org.gpusched.formats.CsvFormatException;
import org.gpusched.streaming.RawRecord;
import org.gpusched.streaming.avro.PodEvent;
import org.gpusched.streaming.avro.RejectedRecord;
import org.gpusched.streaming.kafka.AvroBinary;

/**
 * Parses and validates the placement job's raw records into {@link ReplayPod}s, both kinds with the pod list's own
 * {@link PodListFormat}, so a file and a topic accept and reject the same pods with the same reasons:
 * <ul>
 *   <li>text: a pod-list line at "file:line" (as {@link org.gpusched.streaming.file.NumberedLineFormat} reads it) of
 *       the file {@code rows} describes, parsed with its format (text from any other source is rejected); the header (line 1), blank lines and rows never scheduled in the trace are
 *       skipped;</li>
 *   <li>bytes: a {@link PodEvent} of the pods topic, validated as a row ({@link PodEvents#row}) whose messages name the
 *       record's topic.</li>
 * </ul>
 * A malformed row or value, an undecodable record, an impossible demand or time goes to {@link #REJECTED} with the
 * reason and the column, and the job goes on. Stateless.
 */
public final class PodParser extends ProcessFunction<RawRecord, ReplayPod> {
    private static final long serialVersionUID = 1L;
    public static final OutputTag<RejectedRecord> REJECTED =
            new OutputTag<>("rejected-pods", new AvroTypeInfo<>(RejectedRecord.class));

    private final PodListFormat rows;
    private transient AvroBinary<PodEvent> avro;
    private transient Map<String, PodListFormat> topics;

    /** @param rows the format of the text rows (the pod list's header) */
    public PodParser(PodListFormat rows) {
        this.rows = rows;
    }

    @Override
    public void processElement(RawRecord raw, Context ctx, Collector<ReplayPod> out) {
        if (raw.bytes != null) {
            event(raw, ctx, out);
            return;
        }
        if (!rows.file().equals(raw.source)) {
            ctx.output(REJECTED, rejected(raw, "not a PodEvent: a text value", null));
            return;
        }
        long line = lineOf(raw.position);
        if (line == 1 || raw.text == null || raw.text.isBlank()) return;
        try {
            ReplayPod pod = rows.parse(line, raw.text).pod();
            if (pod != null) out.collect(pod);
        } catch (CsvFormatException e) {
            ctx.output(REJECTED, rejected(raw, e.reason(), e.column()));
        }
    }

    private void event(RawRecord raw, Context ctx, Collector<ReplayPod> out) {
        if (avro == null) {
            avro = new AvroBinary<>(PodEvent.class);
            topics = new HashMap<>();
        }
        PodEvent event;
        try {
            event = avro.decode(raw.bytes);
        } catch (IOException e) {
            ctx.output(REJECTED, rejected(raw, e.getMessage(), null));
            return;
        }
        try {
            PodListFormat format = topics.computeIfAbsent(raw.source, PodEvents::format);
            out.collect(format.parse(event.getSeq(), PodEvents.row(event)).pod());
        } catch (CsvFormatException e) {
            ctx.output(REJECTED, rejected(raw, e.reason(), e.column()));
        }
    }

    private static RejectedRecord rejected(RawRecord raw, String reason, String field) {
        return RejectedRecord.newBuilder()
                .setSource(raw.source)
                .setPosition(raw.position)
                .setText(raw.text)
                .setBytes(raw.bytes == null ? null : ByteBuffer.wrap(raw.bytes))
                .setReason(reason)
                .setField(field)
                .build();
    }

    /** The line of a "file:line" position. */
    static long lineOf(String position) {
        int colon = position.lastIndexOf(':');
        try {
            return Long.parseLong(position.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not a file:line position: '" + position + "'", e);
        }
    }
}
