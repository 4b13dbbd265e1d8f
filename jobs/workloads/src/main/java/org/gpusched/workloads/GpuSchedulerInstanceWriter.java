package org.gpusched.workloads;

import com.fasterxml.jackson.databind.SequenceWriter;
import com.fasterxml.jackson.dataformat.csv.CsvGenerator;
import com.fasterxml.jackson.dataformat.csv.CsvMapper;
import com.fasterxml.jackson.dataformat.csv.CsvSchema;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.function.LongConsumer;
import org.gpusched.core.model.Job;
import org.gpusched.core.model.Node;
import org.gpusched.core.model.NodeType;
import org.gpusched.formats.ClusterSpec;
import org.gpusched.formats.TraceJob;

/**
 * Writes a workload as an instance folder of the GPUScheduler C++ code ({@link GpuSchedulerConverter} reads it back),
 * in the column layout their generator (script/py/generate_data_new.py) writes and their code reads by position:
 * <ul>
 *   <li>{@value GpuSchedulerConverter#JOBS}: one row per job in trace order: Application, Images, Epochs, Batchsize,
 *       Jobs (the application again), UniqueJobsID, SubmissionTime, Deadline, Tardinessweight (weight / 3600, per
 *       second late), MinExecTime, MaxExecTime (over all its configurations); a descriptor the job lacks is "-";</li>
 *   <li>{@value GpuSchedulerConverter#TIMES}: one row per job, VM type (in the job's order) and GPU count (ascending):
 *       UniqueJobsID, VMtype, GPUtype, nGPUs, max_nGPUs (the VM's GPUs), cost (the VM's price per hour with all its
 *       GPUs busy), ExecutionTime;</li>
 *   <li>{@value GpuSchedulerConverter#NODES}: {@code Nodes}, then one node id a row.</li>
 * </ul>
 * Numbers are written as Python writes a float (its {@code repr}: the shortest decimal that reads back as the same
 * double, with the exponent form below 1e-4 and from 1e16 on), as their pandas-written folders have them; so the
 * files are the same bytes as the instance folders that were written from a trace by Python before.
 */
public final class GpuSchedulerInstanceWriter {
    private GpuSchedulerInstanceWriter() {}

    public static WorkloadWriter.Summary write(
            ClusterSpec spec, Iterator<TraceJob> jobs, Path outDir, LongConsumer progress) {
        WorkloadWriter.createDirectories(outDir);
        var cluster = spec.cluster();
        List<List<String>> nodes = new ArrayList<>();
        nodes.add(GpuSchedulerConverter.NODE_COLUMNS);
        for (Node n : cluster.nodes()) nodes.add(List.of(n.id()));
        writeRows(outDir.resolve(GpuSchedulerConverter.NODES), nodes.iterator());

        WorkloadWriter.Tally tally = new WorkloadWriter.Tally();
        Path jobsFile = outDir.resolve(GpuSchedulerConverter.JOBS),
                timesFile = outDir.resolve(GpuSchedulerConverter.TIMES);
        try (Writer jw = Files.newBufferedWriter(jobsFile, StandardCharsets.UTF_8);
                Writer tw = Files.newBufferedWriter(timesFile, StandardCharsets.UTF_8);
                SequenceWriter jobRows = csv(jw);
                SequenceWriter timeRows = csv(tw)) {
            jobRows.write(GpuSchedulerConverter.JOB_COLUMNS);
            timeRows.write(GpuSchedulerConverter.TIME_COLUMNS);
            while (jobs.hasNext()) {
                TraceJob tj = jobs.next();
                Job j = tj.job();
                double min = Double.POSITIVE_INFINITY, max = Double.NEGATIVE_INFINITY;
                for (Map<Integer, Double> byGpus : j.times().values())
                    for (double s : byGpus.values()) {
                        min = Math.min(min, s);
                        max = Math.max(max, s);
                    }
                String application = descriptor(tj, "application");
                jobRows.write(List.of(
                        application,
                        descriptor(tj, "images"),
                        descriptor(tj, "epochs"),
                        descriptor(tj, "batchSize"),
                        application,
                        j.id(),
                        pythonRepr(j.submitSeconds()),
                        pythonRepr(j.dueSeconds()),
                        pythonRepr(j.weightPerHour() / 3600),
                        pythonRepr(min),
                        pythonRepr(max)));
                for (var byType : j.times().entrySet()) {
                    NodeType type = cluster.type(cluster.typeIndex(byType.getKey()));
                    for (var e : byType.getValue().entrySet())
                        timeRows.write(List.of(
                                j.id(),
                                type.name(),
                                type.gpuModel(),
                                Integer.toString(e.getKey()),
                                Integer.toString(type.gpus()),
                                pythonRepr(type.costPerHour(type.gpus())),
                                pythonRepr(e.getValue())));
                }
                tally.add(tj, progress);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(outDir + ": cannot write the instance files", e);
        }
        return tally.summary(cluster.nodeCount());
    }

    private static String descriptor(TraceJob tj, String field) {
        Object v = tj.extras().get(field);
        return v == null ? "-" : v.toString();
    }

    /** Rows of text, quoted only where CSV needs it (as Python's csv module and pandas write them), "\n" ended. */
    private static SequenceWriter csv(Writer out) throws IOException {
        return new CsvMapper()
                .writerFor(List.class)
                .with(CsvSchema.emptySchema().withLineSeparator("\n"))
                .with(CsvGenerator.Feature.STRICT_CHECK_FOR_QUOTING)
                .writeValues(out);
    }

    private static void writeRows(Path file, Iterator<List<String>> rows) {
        try (Writer w = Files.newBufferedWriter(file, StandardCharsets.UTF_8);
                SequenceWriter out = csv(w)) {
            while (rows.hasNext()) out.write(rows.next());
        } catch (IOException e) {
            throw new UncheckedIOException(file + ": cannot write", e);
        }
    }

    /**
     * A finite double as Python's {@code repr} prints it: the shortest decimal that reads back as the same double
     * (the nearest such when several are as short), in positional form for 1e-4 <= |v| < 1e16 (with ".0" when whole),
     * else as d.ddde+XX. Python's float formatting, not Java's: Double.toString switches to E notation from 1e7 and,
     * on Java 17, is not always the shortest.
     */
    static String pythonRepr(double v) {
        if (!Double.isFinite(v)) throw new IllegalArgumentException("not a finite number: " + v);
        if (v == 0) return 1 / v < 0 ? "-0.0" : "0.0";
        BigDecimal exact = new BigDecimal(v), shortest = null;
        for (int digits = 1; shortest == null; digits++) {
            for (RoundingMode mode : new RoundingMode[] {RoundingMode.HALF_EVEN, RoundingMode.DOWN, RoundingMode.UP}) {
                BigDecimal candidate = exact.round(new MathContext(digits, mode));
                if (Double.parseDouble(candidate.toString()) != v) continue;
                if (shortest == null
                        || candidate
                                        .subtract(exact)
                                        .abs()
                                        .compareTo(shortest.subtract(exact).abs())
                                < 0) shortest = candidate;
            }
        }
        BigDecimal d = shortest.stripTrailingZeros();
        int exponent = d.precision() - d.scale() - 1;
        if (exponent >= -4 && exponent < 16) {
            String plain = d.toPlainString();
            return plain.contains(".") ? plain : plain + ".0";
        }
        String digits = d.unscaledValue().abs().toString();
        return (v < 0 ? "-" : "")
                + digits.charAt(0)
                + (digits.length() > 1 ? "." + digits.substring(1) : "")
                + (exponent < 0 ? "e-" : "e+")
                + (Math.abs(exponent) < 10 ? "0" : "")
                + Math.abs(exponent);
    }
}
