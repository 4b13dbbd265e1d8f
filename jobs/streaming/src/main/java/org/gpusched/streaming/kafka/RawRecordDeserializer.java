package org.gpusched.streaming.kafka;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.gpusched.streaming.RawRecord;

/**
 * Passes each Kafka record on unparsed, with its topic-partition@offset, so the job's parse operator can reject a
 * bad value with its origin instead of failing the source. A value is Avro binary unless the record carries the
 * header {@value #FORMAT_HEADER}={@value #FORMAT_TRACE_LINE} (a trace line published verbatim by
 * {@code gpusched produce} because it did not parse): then it is handed on as text, and the job validates it exactly
 * as the file path does; such a line that is not UTF-8, or that the producer marked unreadable
 * ({@value #UNREADABLE_HEADER}), is handed on as unreadable, to be rejected with the reason. A null value (tombstone)
 * is passed as zero bytes, which the job rejects.
 */
public final class RawRecordDeserializer implements KafkaRecordDeserializationSchema<RawRecord> {
    private static final long serialVersionUID = 1L;

    /** Header naming the value's encoding when it is not the topic's Avro schema. */
    public static final String FORMAT_HEADER = "gpusched.format";
    /** Header value: the value is one JSON line of a trace file, UTF-8. */
    public static final String FORMAT_TRACE_LINE = "trace-line";
    /** Header with the file:line the value came from (set by the producer, quoted in rejections). */
    public static final String ORIGIN_HEADER = "gpusched.origin";
    /** Header on a trace line the producer could not read (not UTF-8, too long): why; the value is what it could read. */
    public static final String UNREADABLE_HEADER = "gpusched.unreadable";

    @Override
    public void deserialize(ConsumerRecord<byte[], byte[]> record, Collector<RawRecord> out) {
        String position = record.topic() + "-" + record.partition() + "@" + record.offset();
        Header origin = record.headers().lastHeader(ORIGIN_HEADER);
        if (origin != null && origin.value() != null)
            position += " (" + new String(origin.value(), StandardCharsets.UTF_8) + ")";
        byte[] value = record.value() == null ? new byte[0] : record.value();
        Header format = record.headers().lastHeader(FORMAT_HEADER);
        if (format != null
                && format.value() != null
                && FORMAT_TRACE_LINE.equals(new String(format.value(), StandardCharsets.UTF_8))) {
            Header unreadable = record.headers().lastHeader(UNREADABLE_HEADER);
            String error = unreadable == null || unreadable.value() == null
                    ? null
                    : new String(unreadable.value(), StandardCharsets.UTF_8);
            CharsetDecoder utf8 = StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT);
            String text;
            try {
                text = utf8.decode(ByteBuffer.wrap(value)).toString();
            } catch (CharacterCodingException e) {
                text = new String(value, StandardCharsets.UTF_8);
                if (error == null) error = "not valid UTF-8";
            }
            out.collect(
                    error == null
                            ? RawRecord.text(record.topic(), position, text)
                            : RawRecord.unreadable(record.topic(), position, text, error));
        } else {
            out.collect(RawRecord.bytes(record.topic(), position, value));
        }
    }

    @Override
    public TypeInformation<RawRecord> getProducedType() {
        return TypeInformation.of(RawRecord.class);
    }
}
