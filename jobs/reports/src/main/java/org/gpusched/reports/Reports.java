package org.gpusched.reports;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;
import org.gpusched.rundir.FileErrors;

/** Entry point for `compare` and `report`: reads run directories, writes comparison.csv and report.html. */
public final class Reports {
    public static final String CSV = "comparison.csv";
    public static final String HTML = "report.html";

    private Reports() {}

    /** Writes both files into {@code outDir}, both or neither; returns the rows (for the summary table). */
    public static List<Comparison.Row> write(List<Path> runDirs, Path outDir, String title, String command) {
        return write(runDirs, outDir, title, command, dir -> Double.NaN);
    }

    /**
     * {@link #write(List, Path, String, String)} with each run's lower bound on cost, computed from its directory by
     * {@code lowerBound} (the caller's: this module reads run directories and prices nothing itself).
     */
    public static List<Comparison.Row> write(
            List<Path> runDirs, Path outDir, String title, String command, ToDoubleFunction<Path> lowerBound) {
        if (runDirs.isEmpty()) throw new ReportInputException("no run directory given");
        List<RunResult> runs = new ArrayList<>();
        for (Path dir : runDirs) runs.add(RunResult.read(dir));
        List<Comparison.Row> rows = Comparison.rows(runs, lowerBound);
        Map<String, String> files = new LinkedHashMap<>();
        files.put(CSV, Comparison.csv(rows, outDir.resolve(CSV)));
        files.put(HTML, ReportHtml.html(rows, title, command));
        writeWhole(outDir, files);
        return rows;
    }

    /**
     * Writes the files (name -> content) into {@code outDir} whole or not at all: each is written under a hidden
     * temporary name, and only when all are written are they renamed into place, so a failure leaves the directory as
     * it was (never a new comparison.csv beside an old report.html).
     */
    public static void writeWhole(Path outDir, Map<String, String> files) {
        try {
            Files.createDirectories(outDir);
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "--out " + outDir + ": cannot create the directory (" + FileErrors.describe(e) + ")", e);
        }
        long pid = ProcessHandle.current().pid();
        Map<Path, Path> written = new LinkedHashMap<>(); // temporary -> its place
        Map<Path, Path> saved = new LinkedHashMap<>(); // a file there before -> where it waits until the end
        List<Path> placed = new ArrayList<>();
        try {
            for (var f : files.entrySet()) {
                Path temporary = outDir.resolve("." + f.getKey() + ".tmp-" + pid);
                written.put(temporary, outDir.resolve(f.getKey()));
                Files.writeString(temporary, f.getValue());
            }
            for (Path target : written.values()) {
                if (Files.isDirectory(target)) throw new FileSystemException(target.toString(), null, "is a directory");
                if (!Files.exists(target)) continue;
                Path old = target.resolveSibling("." + target.getFileName() + ".old-" + pid);
                Files.move(target, old, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
                saved.put(old, target);
            }
            for (var w : written.entrySet()) {
                Files.move(w.getKey(), w.getValue(), StandardCopyOption.ATOMIC_MOVE);
                placed.add(w.getValue());
            }
            for (Path old : saved.keySet()) Files.deleteIfExists(old);
        } catch (IOException e) {
            // back to what was there: the new files out, the old ones in again
            for (Path p : placed) quietly(() -> Files.deleteIfExists(p));
            for (var s : saved.entrySet()) quietly(() -> Files.move(s.getKey(), s.getValue()));
            for (Path temporary : written.keySet()) quietly(() -> Files.deleteIfExists(temporary));
            throw new UncheckedIOException(
                    "--out " + outDir + ": cannot write the report (" + FileErrors.describe(e) + ")", e);
        }
    }

    private interface FileChore {
        Object run() throws IOException;
    }

    /** A clean-up step after a failure: the failure is what the user hears of, not a second one while undoing it. */
    private static void quietly(FileChore chore) {
        try {
            chore.run();
        } catch (IOException ignored) {
            // best effort
        }
    }
}
