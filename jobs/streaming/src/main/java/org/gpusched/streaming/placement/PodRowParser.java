package org.gpusched.streaming.placement;

import org.apache.flink.formats.avro.typeutils.AvroTypeInfo;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;
import org.gpusched.placement.io.TraceFormatException;
import org.gpusched.streaming.RawRecord;
import org.gpusched.streaming.avro.RejectedRecord;

/**
 * Parses and validates the raw lines of a pod list (positions "file:line", as {@link
 * org.gpusched.streaming.file.NumberedLineFormat} reads them) into {@link ReplayPod}s with {@link PodListFormat}. The
 * header (line 1) and blank lines are skipped, so are rows never scheduled in the trace; a malformed row, a missing or
 * invalid value or an impossible demand goes to {@link #REJECTED} with the reason and the column, and the job goes on.
 * Stateless.
 */
public final class PodRowParser extends ProcessFunction<RawRecord, ReplayPod> {
    private static final long serialVersionUID = 1L;
    public static final OutputTag<RejectedRecord> REJECTED =
            new OutputTag<>("rejected-pods", new AvroTypeInfo<>(RejectedRecord.class));

    private final PodListFormat format;

    public PodRowParser(PodListFormat format) {
        this.format = format;
    }

    @Override
    public void processElement(RawRecord raw, Context ctx, Collector<ReplayPod> out) {
        long line = lineOf(raw.position);
        if (line == 1 || raw.text == null || raw.text.isBlank()) return;
        try {
            ReplayPod pod = format.parse(line, raw.text).pod();
            if (pod != null) out.collect(pod);
        } catch (TraceFormatException e) {
            ctx.output(
                    REJECTED,
                    RejectedRecord.newBuilder()
                            .setSource(raw.source)
                            .setPosition(raw.position)
                            .setText(raw.text)
                            .setReason(e.reason())
                            .setField(e.column())
                            .build());
        }
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
