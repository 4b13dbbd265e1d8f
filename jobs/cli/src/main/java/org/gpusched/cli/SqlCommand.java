package org.gpusched.cli;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.apache.flink.table.api.SqlParserException;
import org.apache.flink.table.api.TableException;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.types.Row;
import org.gpusched.analytics.SqlCatalog;
import org.gpusched.analytics.SqlRunner;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code gpusched sql}: a shipped query or a SQL file over the output topics, with Flink's Table API. */
@Command(
        name = "sql",
        mixinStandardHelpOptions = true,
        description = {
            "Runs Flink SQL over the output topics (decisions, scheduling_metrics, job_metrics, completions, pod_placements, "
                    + "rejected: the catalog conf/sql/catalog.sql) with Flink's Table API and planner on an embedded mini cluster: "
                    + "a shipped query (--query NAME, --list shows them) or your own statements (--file). By default it reads the "
                    + "topics up to their end at its start and prints the final result (batch mode), so it works after a bounded "
                    + "run as well as during a live one; --follow keeps reading and prints the changes (streaming mode). "
                    + "Tables and queries: docs/analytics.md."
        })
public final class SqlCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--bootstrap", paramLabel = "HOST:PORT", description = "Kafka bootstrap servers, comma-separated.")
    String bootstrap;

    @Option(
            names = "--topic-prefix",
            paramLabel = "P",
            defaultValue = "",
            description = "Prefix of the topic names (run --topic-prefix); default none.")
    String topicPrefix;

    @Option(names = "--query", paramLabel = "NAME", description = "A shipped query (see --list).")
    String query;

    @Option(
            names = "--file",
            paramLabel = "FILE",
            description =
                    "A SQL file: statements separated by ';' at the end of a line; the tables of the catalog exist. "
                            + "The last statement's result is printed.")
    Path file;

    @Option(names = "--list", description = "List the shipped queries and what they compute.")
    boolean list;

    @Option(
            names = "--catalog",
            description = "Print the catalog's CREATE TABLE statements for these options and exit.")
    boolean catalog;

    @Option(
            names = "--follow",
            description = "Streaming mode: keep reading the topics and print each change of the result (until Ctrl-C).")
    boolean follow;

    @Option(
            names = "--format",
            paramLabel = "FORMAT",
            defaultValue = "table",
            description = "table (Flink's tableau, the default) or tsv (a header line, then tab-separated rows); "
                    + "--follow always prints the table.")
    String format;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (list) {
            for (String q : SqlCatalog.QUERIES) out.printf(Locale.ROOT, "%-24s %s%n", q, SqlCatalog.description(q));
            out.flush();
            return ExitCode.OK;
        }
        if (bootstrap == null) throw new ParameterException(spec.commandLine(), "--bootstrap is required");
        SqlCatalog.Target target = new SqlCatalog.Target(bootstrap, topicPrefix, follow);
        if (catalog) {
            for (String s : SqlCatalog.catalog(target)) out.println(s + ";\n");
            out.flush();
            return ExitCode.OK;
        }
        if ((query == null) == (file == null))
            throw new ParameterException(spec.commandLine(), "give either --query NAME (see --list) or --file FILE");
        if (!format.equals("table") && !format.equals("tsv"))
            throw new ParameterException(spec.commandLine(), "--format must be table or tsv, got '" + format + "'");
        if (file != null) CliFiles.requireFile(spec.commandLine(), file, "--file");
        List<String> statements;
        try {
            statements = query != null
                    ? SqlCatalog.statements(SqlCatalog.query(query))
                    : SqlCatalog.statements(Files.readString(file));
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "--query: " + e.getMessage());
        }
        if (statements.isEmpty()) {
            err.println("gpusched sql: " + file + " holds no statement");
            return ExitCode.BAD_INPUT;
        }
        if (!BrokerCheck.reachable("sql", bootstrap, err)) return ExitCode.UNAVAILABLE;
        try (SqlRunner sql = new SqlRunner(target)) {
            for (String s : statements.subList(0, statements.size() - 1)) sql.query(s);
            String last = statements.get(statements.size() - 1);
            if (follow || format.equals("table")) {
                sql.print(last);
            } else {
                SqlRunner.Result r = sql.query(last);
                out.println(String.join("\t", r.columns()));
                for (Row row : r.rows()) {
                    StringBuilder b = new StringBuilder();
                    for (int i = 0; i < row.getArity(); i++) {
                        if (i > 0) b.append('\t');
                        b.append(row.getField(i));
                    }
                    out.println(b);
                }
                out.flush();
            }
        } catch (ValidationException | TableException | SqlParserException e) {
            err.println("gpusched sql: " + firstLine(e));
            return ExitCode.BAD_INPUT;
        }
        return ExitCode.OK;
    }

    private static String firstLine(Throwable e) {
        String m = e.getMessage() == null ? e.toString() : e.getMessage();
        int nl = m.indexOf('\n');
        return nl < 0 ? m : m.substring(0, nl);
    }
}
