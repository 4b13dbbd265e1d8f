package org.gpusched.placement.io;

import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.dataformat.csv.CsvMapper;
import com.fasterxml.jackson.dataformat.csv.CsvParser;
import com.fasterxml.jackson.dataformat.csv.CsvSchema;
import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.gpusched.placement.model.CpuModel;
import org.gpusched.placement.model.GpuModel;
import org.gpusched.placement.model.NodeSpec;
import org.gpusched.placement.model.PowerCatalog;
import org.gpusched.placement.model.Task;

/**
 * Reads the 2023 Alibaba GPU trace ("openb") CSVs with Jackson CSV, header-driven:
 * <ul>
 *   <li>node lists: {@code sn, cpu_milli, memory_mib, gpu, model} (GPU model must be one of {@link PowerCatalog}'s;
 *       every node gets the paper's CPU model);</li>
 *   <li>pod lists: {@code name, cpu_milli, memory_mib, num_gpu, gpu_milli} and optionally {@code gpu_spec}
 *       ("V100M16|V100M32", empty = any model) and the time/phase columns, which inflation does not use; the multigpu
 *       variants carry only the first five.</li>
 * </ul>
 * Any bad row fails with file:line and the column.
 */
public final class AlibabaTraceCsv {
    private static final List<String> NODE_COLUMNS = List.of("sn", "cpu_milli", "memory_mib", "gpu", "model");
    private static final List<String> POD_COLUMNS = List.of("name", "cpu_milli", "memory_mib", "num_gpu", "gpu_milli");

    private AlibabaTraceCsv() {}

    public static List<NodeSpec> readNodes(Path file) {
        return readNodes(file, PowerCatalog.XEON_E5_2682_V4);
    }

    public static List<NodeSpec> readNodes(Path file, CpuModel cpuModel) {
        return read(file, NODE_COLUMNS, row -> {
            int gpus = (int) row.longValue("gpu", 0, 64);
            String modelName = row.text("model");
            GpuModel model = null;
            if (gpus > 0 || !modelName.isEmpty()) {
                model = PowerCatalog.gpu(modelName);
                if (model == null)
                    throw row.error(
                            "model",
                            "unknown GPU model '" + modelName + "' (known: "
                                    + String.join(", ", PowerCatalog.gpuNames()) + ")");
            }
            return new NodeSpec(
                    row.required("sn"),
                    row.longValue("cpu_milli", 0, Long.MAX_VALUE),
                    row.longValue("memory_mib", 0, Long.MAX_VALUE),
                    gpus,
                    model,
                    cpuModel);
        });
    }

    public static List<Task> readPods(Path file) {
        return read(file, POD_COLUMNS, AlibabaTraceCsv::podTask);
    }

    /**
     * The task of one pod-list row ({@code values}: column name to text) at {@code file:line}; a bad value fails with a
     * {@link TraceFormatException} naming the column ({@link TraceFormatException#column()}).
     */
    public static Task pod(String file, long line, Map<String, String> values) {
        try {
            return podTask(new Row(file, line, values));
        } catch (TraceFormatException e) {
            throw e;
        } catch (IllegalArgumentException e) {
            throw new TraceFormatException(file, line, e.getMessage());
        }
    }

    private static Task podTask(Row row) {
        String name = row.required("name");
        int numGpu = (int) row.longValue("num_gpu", 0, 64);
        int gpuMilli = (int) row.longValue("gpu_milli", 0, Task.MILLI);
        if ((numGpu == 0) != (gpuMilli == 0))
            throw row.error("gpu_milli", "num_gpu " + numGpu + " with gpu_milli " + gpuMilli);
        if (numGpu > 1 && gpuMilli < Task.MILLI)
            throw row.error(
                    "gpu_milli",
                    "a task shares one GPU or takes whole GPUs, not " + numGpu + " x " + gpuMilli + " milli");
        Set<String> models = new LinkedHashSet<>();
        String spec = row.optional("gpu_spec");
        if (!spec.isEmpty()) for (String m : spec.split("\\|")) if (!m.isBlank()) models.add(m.trim());
        return new Task(
                name,
                row.longValue("cpu_milli", 0, Long.MAX_VALUE),
                row.longValue("memory_mib", 0, Long.MAX_VALUE),
                numGpu,
                gpuMilli,
                models,
                Set.of());
    }

    /** The columns every pod list has (the multigpu variants have only these). */
    public static List<String> podColumns() {
        return POD_COLUMNS;
    }

    /** One CSV row with its location, giving typed access with located errors. */
    static final class Row {
        private final String file;
        private final long line;
        private final Map<String, String> values;

        Row(String file, long line, Map<String, String> values) {
            this.file = file;
            this.line = line;
            this.values = values;
        }

        TraceFormatException error(String column, String message) {
            return new TraceFormatException(file, line, column, message);
        }

        String text(String column) {
            String v = values.get(column);
            return v == null ? "" : v.trim();
        }

        String optional(String column) {
            return text(column);
        }

        String required(String column) {
            String v = text(column);
            if (v.isEmpty()) throw error(column, "empty");
            return v;
        }

        long longValue(String column, long min, long max) {
            String v = required(column);
            long x;
            try {
                x = Long.parseLong(v);
            } catch (NumberFormatException e) {
                throw error(column, "not an integer: '" + v + "'");
            }
            if (x < min || x > max) throw error(column, x + " out of range [" + min + ", " + max + "]");
            return x;
        }
    }

    private static <T> List<T> read(Path file, List<String> required, Function<Row, T> mapper) {
        String name = file.toString();
        if (!Files.isRegularFile(file)) throw new TraceFormatException(name, 0, "no such file");
        CsvMapper csv = new CsvMapper();
        csv.enable(CsvParser.Feature.SKIP_EMPTY_LINES);
        csv.enable(CsvParser.Feature.FAIL_ON_MISSING_COLUMNS);
        CsvSchema schema = CsvSchema.emptySchema().withHeader();
        List<T> out = new ArrayList<>();
        try (Reader reader = Files.newBufferedReader(file);
                MappingIterator<Map<String, String>> it =
                        csv.readerForMapOf(String.class).with(schema).readValues(reader)) {
            CsvSchema header = (CsvSchema) it.getParser().getSchema();
            List<String> columns = new ArrayList<>();
            header.forEach(c -> columns.add(c.getName()));
            for (String c : required)
                if (!columns.contains(c))
                    throw new TraceFormatException(
                            name, 1, "missing column '" + c + "' (header: " + columns + ", need " + required + ")");
            while (true) {
                Map<String, String> values;
                long line;
                try {
                    if (!it.hasNextValue()) break;
                    values = it.nextValue();
                    line = it.getParser().currentTokenLocation().getLineNr();
                } catch (RuntimeException | IOException e) {
                    long at = it.getParser().currentLocation().getLineNr();
                    throw new TraceFormatException(name, at, "unreadable row: " + firstLine(e.getMessage()));
                }
                if (values.size() > columns.size())
                    throw new TraceFormatException(name, line, "more fields than the header's " + columns.size());
                try {
                    out.add(mapper.apply(new Row(name, line, values)));
                } catch (IllegalArgumentException e) {
                    throw new TraceFormatException(name, line, e.getMessage());
                }
            }
        } catch (IOException e) {
            throw new TraceFormatException(name, 0, "cannot read: " + e.getMessage());
        }
        if (out.isEmpty()) throw new TraceFormatException(name, 1, "no data rows");
        return out;
    }

    private static String firstLine(String s) {
        if (s == null) return "";
        int i = s.indexOf('\n');
        return i < 0 ? s : s.substring(0, i);
    }
}
