package org.gpusched.reports;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.ToDoubleFunction;

/** Entry point for `compare` and `report`: reads run directories, writes comparison.csv and report.html. */
public final class Reports {
    public static final String CSV = "comparison.csv";
    public static final String HTML = "report.html";

    private Reports() {}

    /** Writes both files into {@code outDir}; returns the rows (for the summary table). */
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
        try {
            Files.createDirectories(outDir);
        } catch (IOException e) {
            throw new UncheckedIOException(outDir + ": cannot create", e);
        }
        Comparison.writeCsv(rows, outDir.resolve(CSV));
        ReportHtml.write(rows, title, command, outDir.resolve(HTML));
        return rows;
    }
}
