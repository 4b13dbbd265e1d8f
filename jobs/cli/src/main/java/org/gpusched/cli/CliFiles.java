package org.gpusched.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.gpusched.formats.ClusterYaml;
import org.gpusched.formats.LineReader;
import org.gpusched.rundir.FileErrors;
import org.gpusched.rundir.JsonLines;
import org.gpusched.rundir.RunLayout;
import org.gpusched.streaming.file.StagedDirectory;
import picocli.CommandLine;
import picocli.CommandLine.ParameterException;

/** File chores shared by the commands that run the scheduler job (replay, compare). */
final class CliFiles {
    /** How --out is written, for the --help of every command that writes a run or compare directory. */
    static final String OUT_DIRECTORY = "written under a hidden sibling name and renamed into place when complete. "
            + "It replaces an earlier gpusched output there (none of its files is merged in) but keeps the files "
            + "gpusched does not write, such as your notes; while another run writes DIR, this one is refused.";

    private CliFiles() {}

    /** A missing input file, or a directory where a file belongs, is a usage error (exit 2) naming the option. */
    static void requireFile(CommandLine commandLine, Path p, String option) {
        if (Files.isDirectory(p))
            throw new ParameterException(commandLine, option + " " + p + ": is a directory, not a file");
        if (!Files.isRegularFile(p)) throw new ParameterException(commandLine, option + " " + p + ": no such file");
    }

    /** A usage error for the first of these options the user gave: "OPTION applies to ..." + {@code why}. */
    static void rejectGiven(CommandLine commandLine, List<String> options, String why) {
        for (String o : options) {
            if (commandLine.getParseResult().hasMatchedOption(o))
                throw new ParameterException(commandLine, o + " " + why);
        }
    }

    /** Non-blank lines (unreadable ones included, see {@link LineReader}): the number of trace records, for progress. */
    static long countLines(Path file) throws IOException {
        long n = 0;
        try (LineReader in = LineReader.open(file)) {
            LineReader.Line line;
            while ((line = in.next()) != null) if (!line.ok() || !line.text().isBlank()) n++;
        }
        return n;
    }

    /**
     * Locks --out and opens its staging directory ({@link StagedDirectory}); when it cannot, prints
     * "gpusched COMMAND: why" and returns null (exit 2).
     */
    static StagedDirectory stage(CommandLine commandLine, String command, Path out, Path... inputs) throws IOException {
        try {
            return StagedDirectory.open(
                    out,
                    "gpusched " + String.join(" ", commandLine.getParseResult().originalArgs()),
                    Arrays.asList(inputs));
        } catch (StagedDirectory.Refused e) {
            commandLine.getErr().println("gpusched " + command + ": " + e.getMessage());
            commandLine.getErr().flush();
            return null;
        } catch (IOException e) {
            commandLine
                    .getErr()
                    .println("gpusched " + command + ": --out " + out + ": cannot create it (" + FileErrors.describe(e)
                            + ")");
            commandLine.getErr().flush();
            return null;
        }
    }

    /** The message for a run that accepted no job: every line rejected, with the first one's reason (from rejected.jsonl). */
    static String noValidJob(Path trace, Path runDir) throws IOException {
        Path rejected = runDir.resolve(RunLayout.REJECTED);
        String[] first = new String[1];
        long[] count = new long[1];
        if (Files.isRegularFile(rejected))
            JsonLines.forEachLine(rejected, (line, number) -> {
                if (count[0]++ == 0) first[0] = line;
            });
        String why = "";
        if (first[0] != null) {
            JsonNode r = new ObjectMapper().readTree(first[0]);
            why = "; the first: " + r.path("source").asText() + ":"
                    + r.path("position").asText().replaceFirst(".*:", "") + ": "
                    + r.path("reason").asText();
        }
        return trace + ": no valid job (" + count[0] + " lines rejected" + why
                + "); is it a trace (JSON Lines, one job a line)?";
    }

    /**
     * Says on stderr that the run directory is being assembled from the sinks' part files, and how much there is
     * (a million-job run has a gigabyte to merge: seconds to a minute), so the end of a run is never a silent wait.
     * Returns when it started, for {@link #written}.
     */
    static long writing(PrintWriter err, String command, Path parts, String what) throws IOException {
        long bytes = 0;
        if (Files.isDirectory(parts)) {
            try (var files = Files.list(parts)) {
                for (Path p : (Iterable<Path>) files::iterator) bytes += Files.size(p);
            }
        }
        err.printf(
                Locale.ROOT,
                "%s: writing %s from %s of part files (decisions merged in time order, jobs, metrics) ...%n",
                command,
                what,
                bytes >= 1 << 30
                        ? String.format(Locale.ROOT, "%.1f GB", bytes / (double) (1 << 30))
                        : bytes >= 1 << 20
                                ? String.format(Locale.ROOT, "%.1f MB", bytes / (double) (1 << 20))
                                : String.format(Locale.ROOT, "%.0f KB", Math.ceil(bytes / 1024.0)));
        err.flush();
        return System.nanoTime();
    }

    /** The line that closes {@link #writing}. */
    static void written(PrintWriter err, String command, String what, long started) {
        err.printf(Locale.ROOT, "%s: wrote %s in %.1f s%n", command, what, (System.nanoTime() - started) / 1e9);
        err.flush();
    }

    /**
     * Records in run.json's inputs the cluster file and the currency it names (reports label costs with it, or say
     * "cost units"). The file was read and checked before the run; it is read again for this one key.
     */
    static void putCluster(Map<String, Object> inputs, Path cluster) {
        inputs.put("cluster", cluster.toString());
        String currency = ClusterYaml.read(cluster).currency();
        if (currency != null) inputs.put("currency", currency);
    }

    /** Removes the sinks' part files once the run directory has been assembled from them. */
    static void deleteParts(Path parts) throws IOException {
        if (!Files.isDirectory(parts)) return;
        try (var files = Files.list(parts)) {
            for (Path p : (Iterable<Path>) files::iterator) Files.delete(p);
        }
        Files.delete(parts);
    }
}
