package org.gpusched.workloads;

import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.RuntimeJsonMappingException;
import com.fasterxml.jackson.dataformat.csv.CsvMapper;
import com.fasterxml.jackson.dataformat.csv.CsvParser;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.gpusched.core.model.Cluster;
import org.gpusched.core.model.Job;
import org.gpusched.core.model.Node;
import org.gpusched.core.model.NodeType;
import org.gpusched.formats.ClusterSpec;
import org.gpusched.formats.FormatException;
import org.gpusched.formats.TraceJob;

/**
 * Reads an instance folder of the GPUScheduler C++ code (the thesis' and the hierarchical paper's simulator, github
 * ai-sprint-eu-project/GPUScheduler, written by its script/py/generate_data_new.py):
 * <ul>
 *   <li>{@value #JOBS}: Application, Images, Epochs, Batchsize, Jobs, UniqueJobsID, SubmissionTime, Deadline,
 *       Tardinessweight (per second late), MinExecTime, MaxExecTime;</li>
 *   <li>{@value #TIMES}: UniqueJobsID, VMtype, GPUtype, nGPUs, max_nGPUs, cost (the VM's price per hour),
 *       ExecutionTime (seconds);</li>
 *   <li>{@value #NODES}: one column Nodes, one node name a row.</li>
 * </ul>
 * Every file is read as their C++ reads it (src/fileIO.cpp, {@code read_csv}): the first line is dropped whatever it
 * says, and each row's cells are taken by position in the order above (their {@code Job}, {@code Setup} and
 * {@code Node} constructors), so a header with other names, their own {@code print_map}'s for instance, is accepted
 * (with a note saying the columns were read by position). A header of another width, or one that names another of the
 * three files' columns, is an error at line 1; so is a row of another width than its file's.
 * The cluster: one node type per VMtype (GPU model GPUtype, max_nGPUs GPUs, leased whole at {@code cost} per hour, as
 * their simulator charges it: a node costs its VM price while it hosts a job), one rightsizable node per row of
 * {@value #NODES}, the hierarchical protocol's objective constants. A job's weight is Tardinessweight x 3600 per hour.
 * Every value is checked; a malformed row is a {@link FormatException} naming file and line, and a job without any
 * execution time is rejected by id (their simulator would leave it in the queue forever).
 */
public final class GpuSchedulerConverter {
    public static final String JOBS = "Lof_Selectjobs.csv";
    public static final String TIMES = "SelectJobs_times.csv";
    public static final String NODES = "tNodes.csv";
    /** The columns of each file in the order their code reads them, by the names their generator writes. */
    public static final List<String> JOB_COLUMNS = List.of(
            "Application",
            "Images",
            "Epochs",
            "Batchsize",
            "Jobs",
            "UniqueJobsID",
            "SubmissionTime",
            "Deadline",
            "Tardinessweight",
            "MinExecTime",
            "MaxExecTime");

    public static final List<String> TIME_COLUMNS =
            List.of("UniqueJobsID", "VMtype", "GPUtype", "nGPUs", "max_nGPUs", "cost", "ExecutionTime");
    public static final List<String> NODE_COLUMNS = List.of("Nodes");
    /** File name -> its columns, to recognise one file's header given as another's. */
    private static final Map<String, List<String>> LAYOUTS =
            Map.of(JOBS, JOB_COLUMNS, TIMES, TIME_COLUMNS, NODES, NODE_COLUMNS);
    /** Their job descriptors, kept verbatim as trace extras when present. */
    static final Map<String, String> JOB_EXTRAS = linked(
            "Application",
            "application",
            "Images",
            "images",
            "Epochs",
            "epochs",
            "Batchsize",
            "batchSize",
            "Jobs",
            "profiledJob");

    public record Stats(int jobs, int timeRows, int vmTypes, int nodes) {}

    /** @param notes what the reader accepted but a user may want to know (a header with other names, read by position) */
    public record Result(ClusterSpec cluster, List<TraceJob> jobs, Stats stats, List<String> notes) {}

    private record Vm(String gpuModel, int gpus, double price, String where) {}

    private record JobRow(
            String id, double submit, double due, double weightPerSecond, Map<String, Object> extras, String where) {}

    public Result convert(Path instanceDir) {
        Path jobsFile = instanceDir.resolve(JOBS),
                timesFile = instanceDir.resolve(TIMES),
                nodesFile = instanceDir.resolve(NODES);
        List<String> notes = new ArrayList<>();
        List<JobRow> jobRows = readJobs(jobsFile, notes);
        Map<String, JobRow> byId = new LinkedHashMap<>();
        for (JobRow j : jobRows) {
            JobRow earlier = byId.putIfAbsent(j.id(), j);
            if (earlier != null)
                throw new FormatException(
                        j.where() + ": UniqueJobsID '" + j.id() + "' repeats the job of " + earlier.where(),
                        "UniqueJobsID");
        }

        Map<String, Vm> vms = new TreeMap<>();
        Map<String, Map<String, Map<Integer, Double>>> times = new LinkedHashMap<>();
        var timeRows = readCsv(timesFile, TIMES, notes);
        for (var e : timeRows) {
            String where = timesFile + ":" + e.getKey();
            Map<String, String> r = e.getValue();
            String id = text(r, "UniqueJobsID", where);
            if (!byId.containsKey(id))
                throw new FormatException(where + ": job '" + id + "' is not in " + JOBS, "UniqueJobsID");
            String vmType = text(r, "VMtype", where);
            String gpuModel = text(r, "GPUtype", where);
            int gpus = positiveInt(r, "nGPUs", where);
            int maxGpus = positiveInt(r, "max_nGPUs", where);
            if (gpus > maxGpus)
                throw new FormatException(
                        where + ": nGPUs " + gpus + " exceeds the VM's max_nGPUs " + maxGpus, "nGPUs");
            double price = number(r, "cost", where);
            if (price < 0) throw new FormatException(where + ": cost must be >= 0, got " + r.get("cost"), "cost");
            double seconds = number(r, "ExecutionTime", where);
            if (!(seconds > 0))
                throw new FormatException(
                        where + ": ExecutionTime must be > 0 seconds, got " + r.get("ExecutionTime"), "ExecutionTime");
            Vm vm = new Vm(gpuModel, maxGpus, price, where);
            Vm known = vms.putIfAbsent(vmType, vm);
            if (known != null
                    && (!known.gpuModel().equals(gpuModel) || known.gpus() != maxGpus || known.price() != price)) {
                throw new FormatException(
                        where + ": VM type " + vmType + " is (" + gpuModel + ", " + maxGpus + " GPUs, " + price
                                + " per hour) but " + known.where() + " says (" + known.gpuModel() + ", " + known.gpus()
                                + " GPUs, " + known.price() + " per hour)",
                        "VMtype");
            }
            Double before = times.computeIfAbsent(id, k -> new TreeMap<>())
                    .computeIfAbsent(vmType, k -> new TreeMap<>())
                    .put(gpus, seconds);
            if (before != null && before != seconds) {
                throw new FormatException(
                        where + ": job " + id + " on " + vmType + " with " + gpus + " GPUs already has ExecutionTime "
                                + before,
                        "ExecutionTime");
            }
        }

        List<String> untimed = new ArrayList<>();
        for (String id : byId.keySet()) if (!times.containsKey(id)) untimed.add(id);
        if (!untimed.isEmpty()) {
            throw new FormatException(
                    timesFile + ": no execution time for job" + (untimed.size() > 1 ? "s " : " ")
                            + String.join(", ", untimed.subList(0, Math.min(10, untimed.size())))
                            + (untimed.size() > 10 ? " and " + (untimed.size() - 10) + " more" : "") + " of " + JOBS
                            + " (a job needs at least one VM type)",
                    "UniqueJobsID");
        }

        List<NodeType> types = new ArrayList<>();
        vms.forEach((name, vm) -> types.add(NodeType.priced(name, vm.gpuModel(), vm.gpus(), vm.price())));
        List<Node> nodes = readNodes(nodesFile, notes);
        ClusterSpec cluster = new ClusterSpec(new Cluster(types, nodes), HierarchicalScenario.OBJECTIVE);

        // Their simulator submits the file's rows front to back; the generator sorts them by SubmissionTime. Stable
        // sort.
        List<JobRow> ordered = new ArrayList<>(jobRows);
        ordered.sort(Comparator.comparingDouble(JobRow::submit));
        List<TraceJob> jobs = new ArrayList<>(ordered.size());
        for (JobRow j : ordered) {
            try {
                jobs.add(new TraceJob(
                        new Job(j.id(), j.submit(), j.due(), j.weightPerSecond() * 3600, times.get(j.id())),
                        j.extras()));
            } catch (RuntimeException e) {
                throw new FormatException(j.where() + ": " + e.getMessage(), null, e);
            }
        }
        return new Result(
                cluster, jobs, new Stats(jobs.size(), timeRows.size(), types.size(), nodes.size()), List.copyOf(notes));
    }

    private static List<JobRow> readJobs(Path file, List<String> notes) {
        List<JobRow> out = new ArrayList<>();
        for (var e : readCsv(file, JOBS, notes)) {
            String where = file + ":" + e.getKey();
            Map<String, String> r = e.getValue();
            String id = text(r, "UniqueJobsID", where);
            double submit = number(r, "SubmissionTime", where);
            if (submit < 0)
                throw new FormatException(
                        where + ": SubmissionTime must be >= 0, got " + r.get("SubmissionTime"), "SubmissionTime");
            double due = number(r, "Deadline", where);
            if (due < submit)
                throw new FormatException(
                        where + ": Deadline " + r.get("Deadline") + " is before SubmissionTime "
                                + r.get("SubmissionTime"),
                        "Deadline");
            double weight = number(r, "Tardinessweight", where);
            if (weight < 0)
                throw new FormatException(
                        where + ": Tardinessweight must be >= 0, got " + r.get("Tardinessweight"), "Tardinessweight");
            Map<String, Object> extras = new LinkedHashMap<>();
            JOB_EXTRAS.forEach((column, field) -> {
                String v = r.get(column);
                if (v != null && !v.isBlank()) extras.put(field, v.trim());
            });
            out.add(new JobRow(id, submit, due, weight, extras, where));
        }
        if (out.isEmpty()) throw new FormatException(file + ": no job rows", null);
        return out;
    }

    private static List<Node> readNodes(Path file, List<String> notes) {
        List<Node> out = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (var e : readCsv(file, NODES, notes)) {
            String where = file + ":" + e.getKey();
            String name = text(e.getValue(), "Nodes", where);
            if (!seen.add(name)) throw new FormatException(where + ": node '" + name + "' is listed twice", "Nodes");
            out.add(Node.rightsizable(name));
        }
        if (out.isEmpty()) throw new FormatException(file + ": no node rows", null);
        return out;
    }

    private static String text(Map<String, String> row, String column, String where) {
        String v = row.get(column);
        if (v == null || v.isBlank()) throw new FormatException(where + ": " + column + " is empty", column);
        return v.trim();
    }

    private static double number(Map<String, String> row, String column, String where) {
        String v = text(row, column, where);
        double d;
        try {
            d = Double.parseDouble(v);
        } catch (NumberFormatException e) {
            throw new FormatException(where + ": " + column + " must be a number, got '" + v + "'", column);
        }
        if (!Double.isFinite(d))
            throw new FormatException(where + ": " + column + " must be finite, got '" + v + "'", column);
        return d;
    }

    private static int positiveInt(Map<String, String> row, String column, String where) {
        String v = text(row, column, where);
        try {
            int n = Integer.parseInt(v);
            if (n >= 1) return n;
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new FormatException(where + ": " + column + " must be a whole number >= 1, got '" + v + "'", column);
    }

    private static Map<String, String> linked(String... pairs) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < pairs.length; i += 2) m.put(pairs[i], pairs[i + 1]);
        return m;
    }

    /**
     * The rows of one of the instance's files with their line numbers, each cell named by its position's column in
     * {@code LAYOUTS} (their code's order). Line 1 is a header and dropped, as their code drops it, after checking that
     * it is as wide as the file's layout and not another file's; a header with other names adds a note. A row of
     * another width is an error naming file and line.
     */
    private static List<Map.Entry<Long, Map<String, String>>> readCsv(Path file, String name, List<String> notes) {
        List<String> columns = LAYOUTS.get(name);
        CsvMapper mapper = new CsvMapper();
        List<Map.Entry<Long, Map<String, String>>> rows = new ArrayList<>();
        try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8);
                MappingIterator<List<String>> it = mapper.readerForListOf(String.class)
                        .with(CsvParser.Feature.WRAP_AS_ARRAY)
                        .with(CsvParser.Feature.SKIP_EMPTY_LINES)
                        .readValues(in)) {
            boolean header = true;
            while (true) {
                List<String> cells;
                try {
                    if (!it.hasNextValue()) break;
                    cells = it.nextValue();
                } catch (IOException | RuntimeJsonMappingException e) {
                    long line = it.getParser().currentTokenLocation().getLineNr();
                    throw new FormatException(
                            file + ":" + line + ": bad CSV row (" + firstLine(e.getMessage()) + ")", null, e);
                }
                long line = it.getParser().currentTokenLocation().getLineNr();
                if (header) {
                    checkHeader(file, name, cells, notes);
                    header = false;
                    continue;
                }
                if (cells.size() != columns.size())
                    throw new FormatException(
                            file + ":" + line + ": " + cells.size() + (cells.size() == 1 ? " column" : " columns")
                                    + ", but their code reads " + columns.size() + " by position ("
                                    + String.join(", ", columns) + ")",
                            null);
                Map<String, String> row = new LinkedHashMap<>();
                for (int c = 0; c < columns.size(); c++) row.put(columns.get(c), cells.get(c));
                rows.add(Map.entry(line, row));
            }
            if (header) throw new FormatException(file + ": empty (no header and no rows)", null);
        } catch (NoSuchFileException e) {
            throw new FormatException(file + ": no such file", null);
        } catch (IOException e) {
            throw new FormatException(file + ": cannot read (" + firstLine(e.getMessage()) + ")", null, e);
        }
        return rows;
    }

    /**
     * Line 1 of {@code file}: another file's header, or a header of another width, is an error; one of the right
     * width with other names is read by position, as their code reads it, and noted.
     */
    private static void checkHeader(Path file, String name, List<String> header, List<String> notes) {
        List<String> columns = LAYOUTS.get(name);
        List<String> names =
                header.stream().map(h -> h.trim().toLowerCase(Locale.ROOT)).toList();
        for (var other : LAYOUTS.entrySet()) {
            if (other.getKey().equals(name)) continue;
            List<String> theirs = other.getValue().stream()
                    .map(h -> h.toLowerCase(Locale.ROOT))
                    .toList();
            if (names.equals(theirs))
                throw new FormatException(
                        file + ":1: this is the header of " + other.getKey() + " (" + String.join(",", header)
                                + "), not of " + name + ", whose " + columns.size() + " columns their code reads by "
                                + "position: " + String.join(", ", columns),
                        null);
        }
        if (header.size() != columns.size())
            throw new FormatException(
                    file + ":1: the header has " + header.size() + (header.size() == 1 ? " column" : " columns") + " ("
                            + String.join(",", header) + "), but their code reads " + name + "'s " + columns.size()
                            + " by position: " + String.join(", ", columns),
                    null);
        List<String> expected =
                columns.stream().map(h -> h.toLowerCase(Locale.ROOT)).toList();
        if (!names.equals(expected)) {
            boolean reordered = new HashSet<>(names).equals(new HashSet<>(expected));
            notes.add(file + ":1: the header says " + String.join(",", header)
                    + (reordered ? ", the same columns in another order; " : "; ")
                    + "read by position as their code reads it: " + String.join(", ", columns));
        }
    }

    private static String firstLine(String s) {
        if (s == null) return "unreadable";
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }
}
