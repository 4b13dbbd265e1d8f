package org.gpusched.analytics;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.avro.Schema;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.format.DecodingFormat;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.factories.DeserializationFormatFactory;
import org.apache.flink.table.factories.DynamicTableFactory;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.RowType;
import org.gpusched.streaming.Topics;

/**
 * Table format {@value #IDENTIFIER}: the values of a gpusched topic, plain or single-object encoded Avro of the topic's
 * schema, as rows whose columns are the schema's fields by name (any subset, any order). Flink's own {@code avro}
 * format cannot read them: it derives the writer schema from the table's columns, so an Avro enum (a decision's
 * {@code action}) read as a STRING column, or columns in another order than the fields, decode as garbage; and it does
 * not accept the single-object header. Here the writer schema is the topic's own and the table's columns only project
 * it (Avro schema resolution by field name). Registered through {@code META-INF/services}.
 */
public final class GpuschedAvroFormatFactory implements DeserializationFormatFactory {
    public static final String IDENTIFIER = "gpusched-avro";

    /** The Avro record the topic carries: its name as in schemas/ (e.g. {@code PlacementDecision}). */
    public static final ConfigOption<String> RECORD = ConfigOptions.key("record")
            .stringType()
            .noDefaultValue()
            .withDescription("the topic's Avro record name (PlacementDecision, SchedulingMetrics, JobMetrics, ...)");

    /** Whether a value that is not the record is skipped (true) or fails the query (false, the default). */
    public static final ConfigOption<Boolean> IGNORE_PARSE_ERRORS = ConfigOptions.key("ignore-parse-errors")
            .booleanType()
            .defaultValue(false)
            .withDescription("skip values that do not decode instead of failing");

    @Override
    public String factoryIdentifier() {
        return IDENTIFIER;
    }

    @Override
    public Set<ConfigOption<?>> requiredOptions() {
        return Set.of(RECORD);
    }

    @Override
    public Set<ConfigOption<?>> optionalOptions() {
        return Set.of(IGNORE_PARSE_ERRORS);
    }

    @Override
    public DecodingFormat<DeserializationSchema<RowData>> createDecodingFormat(
            DynamicTableFactory.Context context, ReadableConfig options) {
        Schema writer = schema(options.get(RECORD));
        boolean ignoreErrors = options.get(IGNORE_PARSE_ERRORS);
        return new DecodingFormat<>() {
            @Override
            public DeserializationSchema<RowData> createRuntimeDecoder(
                    DynamicTableSource.Context source, DataType physicalType) {
                RowType rowType = (RowType) physicalType.getLogicalType();
                Schema reader = projection(writer, rowType.getFieldNames());
                return new AvroRowDeserializer(
                        writer.toString(),
                        reader.toString(),
                        rowType,
                        source.createTypeInformation(physicalType),
                        ignoreErrors);
            }

            @Override
            public ChangelogMode getChangelogMode() {
                return ChangelogMode.insertOnly();
            }
        };
    }

    /** The schema of the topic record named {@code record}. */
    static Schema schema(String record) {
        List<String> known = new ArrayList<>();
        for (Topics t : Topics.values()) {
            Schema s = t.schema();
            if (s.getName().equals(record) || s.getFullName().equals(record)) return s;
            known.add(s.getName());
        }
        throw new ValidationException(
                "'" + IDENTIFIER + ".record' = '" + record + "' is no gpusched topic record (known: " + known + ")");
    }

    /** The writer's record reduced to {@code columns}, in their order: Avro resolves it against the writer by name. */
    static Schema projection(Schema writer, List<String> columns) {
        List<Schema.Field> fields = new ArrayList<>();
        for (String c : columns) {
            Schema.Field f = writer.getField(c);
            if (f == null)
                throw new ValidationException("column '" + c + "' is no field of " + writer.getName() + " (fields: "
                        + writer.getFields().stream().map(Schema.Field::name).toList() + ")");
            fields.add(new Schema.Field(f, f.schema()));
        }
        return Schema.createRecord(writer.getName(), writer.getDoc(), writer.getNamespace(), false, fields);
    }
}
