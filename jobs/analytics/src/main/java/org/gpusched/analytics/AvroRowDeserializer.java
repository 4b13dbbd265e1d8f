package org.gpusched.analytics;

import java.io.IOException;
import java.util.Objects;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.formats.avro.AvroToRowDataConverters;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;
import org.gpusched.streaming.kafka.AvroBinary;
import org.gpusched.streaming.kafka.BoundedAvroDecoder;

/**
 * Decodes one topic value, plain or single-object encoded ({@link AvroBinary}), written with the topic's schema, into a
 * row of the table's columns (the reader schema projects the writer's fields by name); Flink's Avro converters turn
 * the record into {@link RowData} (enums and strings to STRING, null branches of unions to NULL).
 */
final class AvroRowDeserializer implements DeserializationSchema<RowData> {
    private static final long serialVersionUID = 1L;

    private final String writerSchema;
    private final String readerSchema;
    private final RowType rowType;
    private final TypeInformation<RowData> producedType;
    private final boolean ignoreErrors;
    private transient byte[] header;
    private transient GenericDatumReader<GenericRecord> reader;
    private transient AvroToRowDataConverters.AvroToRowDataConverter converter;

    AvroRowDeserializer(
            String writerSchema,
            String readerSchema,
            RowType rowType,
            TypeInformation<RowData> producedType,
            boolean ignoreErrors) {
        this.writerSchema = writerSchema;
        this.readerSchema = readerSchema;
        this.rowType = rowType;
        this.producedType = producedType;
        this.ignoreErrors = ignoreErrors;
    }

    @Override
    public void open(InitializationContext context) {
        Schema writer = new Schema.Parser().parse(writerSchema);
        header = AvroBinary.singleObjectHeader(writer);
        reader = new GenericDatumReader<>(writer, new Schema.Parser().parse(readerSchema));
        converter = AvroToRowDataConverters.createRowConverter(rowType);
    }

    @Override
    public RowData deserialize(byte[] message) throws IOException {
        if (message == null) return null;
        if (reader == null) open(null);
        int start = AvroBinary.startsWith(message, header) ? header.length : 0;
        try {
            BoundedAvroDecoder decoder = new BoundedAvroDecoder(message, start, message.length - start);
            GenericRecord record = reader.read(null, decoder);
            if (!decoder.isEnd()) throw new IOException("bytes left after the record");
            return (RowData) converter.convert(record);
        } catch (IOException | RuntimeException e) {
            if (ignoreErrors) return null;
            throw new IOException("a value that is not a " + reader.getSchema().getName() + ": " + e.getMessage(), e);
        }
    }

    @Override
    public boolean isEndOfStream(RowData nextElement) {
        return false;
    }

    @Override
    public TypeInformation<RowData> getProducedType() {
        return producedType;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof AvroRowDeserializer d
                && d.writerSchema.equals(writerSchema)
                && d.readerSchema.equals(readerSchema)
                && d.rowType.equals(rowType)
                && d.ignoreErrors == ignoreErrors;
    }

    @Override
    public int hashCode() {
        return Objects.hash(writerSchema, readerSchema, rowType, ignoreErrors);
    }
}
