package org.gpusched.cli;

import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.RuntimeJsonMappingException;
import com.fasterxml.jackson.databind.SequenceWriter;
import com.fasterxml.jackson.dataformat.csv.CsvMapper;
import com.fasterxml.jackson.dataformat.csv.CsvParser;
import com.fasterxml.jackson.dataformat.csv.CsvSchema;
import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.gpusched.formats.FormatException;
import org.gpusched.workloads.GpuSchedulerConverter;

/**
 * The schedule CSV of the GPUScheduler C++ code as its SMALL_SYSTEM build writes it ({@code METHOD_schedule.csv}):
 * one row per job per scheduling step, the step ending at {@code sim_time} after {@code ExecutionTime} seconds on
 * the row's node and VM ({@code cost} = the VM's price per hour; an unplaced job has an empty node and 0 seconds).
 * {@code CompletionPercent} reaches 100 on the step the job finishes, with {@code FinishTime} and its tardiness;
 * {@code Tardinessweight} is per second late. Read and written with Jackson CSV.
 */
final class GpuSchedulerScheduleCsv {
    /** n_iterate, sim_time, the jobs file's columns (their Job prints itself so), then the step's. */
    static final List<String> COLUMNS = Stream.of(
                    List.of("n_iterate", "sim_time"),
                    GpuSchedulerConverter.JOB_COLUMNS,
                    List.of(
                            "ExecutionTime",
                            "CompletionPercent",
                            "StartTime",
                            "FinishTime",
                            "Nodes",
                            "VMType",
                            "GpuType",
                            "GpuNumber",
                            "cost",
                            "Tardiness",
                            "VMcost",
                            "TardinessCost",
                            "TotalCost"))
            .flatMap(List::stream)
            .toList();
    /** The columns the cost rule reads; the others may be absent. */
    static final List<String> REQUIRED = List.of(
            "n_iterate",
            "UniqueJobsID",
            "Deadline",
            "Tardinessweight",
            "ExecutionTime",
            "CompletionPercent",
            "FinishTime",
            "Nodes",
            "cost");

    /** One row; text columns empty when unknown, numbers as their code prints them. */
    record Row(
            long iteration,
            double simTime,
            String application,
            String images,
            String epochs,
            String batchSize,
            String profiledJob,
            String job,
            double submit,
            double deadline,
            double weightPerSecond,
            double minExecTime,
            double maxExecTime,
            double executionTime,
            double completionPercent,
            double startTime,
            double finishTime,
            String node,
            String vmType,
            String gpuType,
            int gpus,
            double pricePerHour,
            double tardiness,
            double vmCost,
            double tardinessCost) {
        boolean placed() {
            return !node.isEmpty();
        }

        List<Object> values() {
            return List.of(
                    iteration,
                    simTime,
                    application,
                    images,
                    epochs,
                    batchSize,
                    profiledJob,
                    job,
                    submit,
                    deadline,
                    weightPerSecond,
                    minExecTime,
                    maxExecTime,
                    executionTime,
                    completionPercent,
                    startTime,
                    finishTime,
                    node,
                    vmType,
                    gpuType,
                    gpus,
                    pricePerHour,
                    tardiness,
                    vmCost,
                    tardinessCost,
                    vmCost + tardinessCost);
        }
    }

    private GpuSchedulerScheduleCsv() {}

    /** Streams the rows of {@code file} to {@code sink}; a bad row is a {@link FormatException} naming file and line. */
    static void read(Path file, Consumer<Row> sink) {
        CsvMapper mapper = new CsvMapper();
        CsvSchema schema = CsvSchema.emptySchema().withHeader().withStrictHeaders(false);
        try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8);
                MappingIterator<Map<String, String>> it = mapper.readerForMapOf(String.class)
                        .with(schema)
                        .with(CsvParser.Feature.FAIL_ON_MISSING_COLUMNS)
                        .readValues(in)) {
            boolean headerChecked = false;
            while (true) {
                Map<String, String> r;
                try {
                    if (!it.hasNextValue()) break;
                    r = it.nextValue();
                } catch (IOException | RuntimeJsonMappingException e) {
                    throw new FormatException(
                            file + ":" + it.getParser().currentTokenLocation().getLineNr() + ": bad CSV row ("
                                    + firstLine(e.getMessage()) + ")",
                            null,
                            e);
                }
                String where =
                        file + ":" + it.getParser().currentTokenLocation().getLineNr();
                if (!headerChecked) {
                    for (String c : REQUIRED)
                        if (!r.containsKey(c))
                            throw new FormatException(
                                    file + ":1: missing column '" + c + "' (a GPUScheduler schedule CSV has " + COLUMNS
                                            + ")",
                                    c);
                    headerChecked = true;
                }
                sink.accept(row(r, where));
            }
        } catch (NoSuchFileException e) {
            throw new FormatException(file + ": no such file", null);
        } catch (IOException e) {
            throw new FormatException(file + ": cannot read (" + firstLine(e.getMessage()) + ")", null, e);
        }
    }

    private static Row row(Map<String, String> r, String where) {
        String job = text(r, "UniqueJobsID");
        if (job.isEmpty()) throw new FormatException(where + ": UniqueJobsID is empty", "UniqueJobsID");
        String node = text(r, "Nodes");
        double seconds = number(r, "ExecutionTime", where, 0);
        if (seconds < 0)
            throw new FormatException(
                    where + ": ExecutionTime must be >= 0, got " + r.get("ExecutionTime"), "ExecutionTime");
        double price = number(r, "cost", where, 0);
        if (price < 0) throw new FormatException(where + ": cost must be >= 0, got " + r.get("cost"), "cost");
        double weight = number(r, "Tardinessweight", where, Double.NaN);
        if (!(weight >= 0))
            throw new FormatException(
                    where + ": Tardinessweight must be a number >= 0, got '" + r.get("Tardinessweight") + "'",
                    "Tardinessweight");
        double iteration = number(r, "n_iterate", where, Double.NaN);
        if (!(iteration >= 0) || iteration != Math.rint(iteration))
            throw new FormatException(
                    where + ": n_iterate must be a whole number >= 0, got '" + r.get("n_iterate") + "'", "n_iterate");
        return new Row(
                (long) iteration,
                number(r, "sim_time", where, 0),
                text(r, "Application"),
                text(r, "Images"),
                text(r, "Epochs"),
                text(r, "Batchsize"),
                text(r, "Jobs"),
                job,
                number(r, "SubmissionTime", where, 0),
                number(r, "Deadline", where, Double.NaN),
                weight,
                number(r, "MinExecTime", where, 0),
                number(r, "MaxExecTime", where, 0),
                seconds,
                number(r, "CompletionPercent", where, Double.NaN),
                number(r, "StartTime", where, 0),
                number(r, "FinishTime", where, Double.NaN),
                node,
                text(r, "VMType"),
                text(r, "GpuType"),
                (int) number(r, "GpuNumber", where, 0),
                price,
                number(r, "Tardiness", where, 0),
                number(r, "VMcost", where, 0),
                number(r, "TardinessCost", where, 0));
    }

    private static String text(Map<String, String> r, String column) {
        String v = r.get(column);
        return v == null ? "" : v.trim();
    }

    /** A number, or {@code absent} when the column is missing or empty (NaN = required: then an error). */
    private static double number(Map<String, String> r, String column, String where, double absent) {
        String v = text(r, column);
        if (v.isEmpty()) {
            if (Double.isNaN(absent)) throw new FormatException(where + ": " + column + " is empty", column);
            return absent;
        }
        try {
            double d = Double.parseDouble(v);
            if (Double.isFinite(d)) return d;
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new FormatException(where + ": " + column + " must be a finite number, got '" + v + "'", column);
    }

    /** Writes rows in their column order; the caller closes the returned writer. */
    static SequenceWriter writer(Writer out) {
        CsvSchema.Builder b = CsvSchema.builder().setUseHeader(true);
        for (String c : COLUMNS) b.addColumn(c);
        try {
            return new CsvMapper().writer(b.build()).writeValues(out);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static void write(SequenceWriter out, Row row) {
        try {
            out.write(row.values());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static List<Row> readAll(Path file) {
        List<Row> rows = new ArrayList<>();
        read(file, rows::add);
        return rows;
    }

    private static String firstLine(String s) {
        if (s == null) return "unreadable";
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }
}
