package org.gpusched.placement.io;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import org.gpusched.formats.AlibabaCsv;
import org.gpusched.formats.CsvFormatException;
import org.gpusched.placement.model.CpuModel;
import org.gpusched.placement.model.GpuModel;
import org.gpusched.placement.model.NodeSpec;
import org.gpusched.placement.model.PowerCatalog;
import org.gpusched.placement.model.Task;

/**
 * The placement model of the 2023 Alibaba GPU trace's ("openb") CSVs, read by the trace's one CSV reader
 * ({@link AlibabaCsv}), header-driven:
 * <ul>
 *   <li>node lists: {@code sn, cpu_milli, memory_mib, gpu, model} (GPU model must be one of {@link PowerCatalog}'s;
 *       every node gets the paper's CPU model);</li>
 *   <li>pod lists: {@code name, cpu_milli, memory_mib, num_gpu, gpu_milli} and optionally {@code gpu_spec}
 *       ("V100M16|V100M32", empty = any model) and the time/phase columns, which inflation does not use; the multigpu
 *       variants carry only the first five.</li>
 * </ul>
 * Any bad row fails with a {@link CsvFormatException} giving file:line and the column.
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
            int gpus = (int) row.integer("gpu", 0, 64);
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
                    row.integer("cpu_milli", 0, Long.MAX_VALUE),
                    row.integer("memory_mib", 0, Long.MAX_VALUE),
                    gpus,
                    model,
                    cpuModel);
        });
    }

    public static List<Task> readPods(Path file) {
        return read(file, POD_COLUMNS, AlibabaTraceCsv::podTask);
    }

    /**
     * The task of one pod-list row; a bad value fails with a {@link CsvFormatException} naming the column
     * ({@link CsvFormatException#column()}).
     */
    public static Task pod(AlibabaCsv.Row row) {
        try {
            return podTask(row);
        } catch (CsvFormatException e) {
            throw e;
        } catch (IllegalArgumentException e) {
            throw row.error(e.getMessage());
        }
    }

    private static Task podTask(AlibabaCsv.Row row) {
        String name = row.required("name");
        int numGpu = (int) row.integer("num_gpu", 0, 64);
        int gpuMilli = (int) row.integer("gpu_milli", 0, Task.MILLI);
        if ((numGpu == 0) != (gpuMilli == 0))
            throw row.error("gpu_milli", "num_gpu " + numGpu + " with gpu_milli " + gpuMilli);
        if (numGpu > 1 && gpuMilli < Task.MILLI)
            throw row.error(
                    "gpu_milli",
                    "a task shares one GPU or takes whole GPUs, not " + numGpu + " x " + gpuMilli + " milli");
        Set<String> models = new LinkedHashSet<>();
        String spec = row.text("gpu_spec");
        if (!spec.isEmpty()) for (String m : spec.split("\\|")) if (!m.isBlank()) models.add(m.trim());
        return new Task(
                name,
                row.integer("cpu_milli", 0, Long.MAX_VALUE),
                row.integer("memory_mib", 0, Long.MAX_VALUE),
                numGpu,
                gpuMilli,
                models,
                Set.of());
    }

    /** The columns every pod list has (the multigpu variants have only these). */
    public static List<String> podColumns() {
        return POD_COLUMNS;
    }

    private static <T> List<T> read(Path file, List<String> required, Function<AlibabaCsv.Row, T> mapper) {
        List<T> out = new ArrayList<>();
        for (AlibabaCsv.Row row : AlibabaCsv.readAll(file, required)) {
            try {
                out.add(mapper.apply(row));
            } catch (CsvFormatException e) {
                throw e;
            } catch (IllegalArgumentException e) {
                throw row.error(e.getMessage());
            }
        }
        if (out.isEmpty()) throw new CsvFormatException(file.toString(), 1, "no data rows");
        return out;
    }
}
