package org.gpusched.analytics;

import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;
import org.gpusched.streaming.EmbeddedFlink;

/**
 * Runs SQL over the output topics with Flink's Table API and its real planner, on an embedded mini cluster (loopback
 * only) or under {@code flink run} the cluster's: the catalog's tables are created, then the query runs. A snapshot
 * (not following) runs in batch mode up to the topics' end offsets at its start, so a query over a live run's topics
 * sees everything written so far and ends; following runs in streaming mode and prints the changes as they come.
 */
public final class SqlRunner implements AutoCloseable {
    /** A query's column names and rows. */
    public record Result(List<String> columns, List<Row> rows) {}

    private final StreamTableEnvironment tables;

    public SqlRunner(SqlCatalog.Target target) {
        Configuration conf = new Configuration();
        conf.set(
                ExecutionOptions.RUNTIME_MODE,
                target.follow() ? RuntimeExecutionMode.STREAMING : RuntimeExecutionMode.BATCH);
        StreamExecutionEnvironment env = EmbeddedFlink.environment(conf);
        env.setParallelism(1);
        EnvironmentSettings settings = target.follow()
                ? EnvironmentSettings.newInstance().inStreamingMode().build()
                : EnvironmentSettings.newInstance().inBatchMode().build();
        tables = StreamTableEnvironment.create(env, settings);
        // Trace time is seconds from 1970-01-01 UTC: windows and timestamps print in UTC, not the host's zone.
        tables.getConfig().set("table.local-time-zone", "UTC");
        for (String statement : SqlCatalog.catalog(target)) tables.executeSql(statement);
    }

    /** Runs a statement (SELECT ... or any other) and returns its result; the rows of a SELECT are collected. */
    public Result query(String sql) throws Exception {
        TableResult result = tables.executeSql(sql);
        List<String> columns = result.getResolvedSchema().getColumnNames();
        List<Row> rows = new ArrayList<>();
        try (CloseableIterator<Row> it = result.collect()) {
            while (it.hasNext()) rows.add(it.next());
        }
        return new Result(columns, rows);
    }

    /** Runs a statement and prints its result as Flink's table (tableau) format, following it when it does not end. */
    public void print(String sql) {
        tables.executeSql(sql).print();
    }

    @Override
    public void close() {}
}
