package org.gpusched.audit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.gpusched.rundir.RunLayout;

/**
 * What a directory given to {@code validate} or {@code report} holds: one run (written by replay, run --out or
 * place-replay), or a compare directory of runs ({@code DIR/POLICY/} or {@code DIR/seed-S/POLICY/}). A directory that
 * a run is still writing, or one an interrupted run left, is refused.
 */
public final class RunDirectories {
    /** A run directory and its kind: a scheduling run (run.json, jobs.jsonl, ...) or a placement replay (metrics.csv). */
    public record Run(Path dir, boolean placement) {}

    private RunDirectories() {}

    /**
     * The runs in {@code dir}: itself when it is a run, else the runs in its subdirectories up to two levels down.
     *
     * @throws AuditInputException naming the directory when it is missing, incomplete, or holds no run
     */
    public static List<Run> find(Path dir) {
        if (!Files.isDirectory(dir)) throw new AuditInputException(dir + ": not a run directory (no such directory)");
        requireComplete(dir);
        Run run = asRun(dir);
        if (run != null) return List.of(run);
        List<Run> runs = new ArrayList<>();
        collect(dir, 2, runs);
        if (runs.isEmpty())
            throw new AuditInputException(
                    dir + ": not a run directory (no run.json, or metrics.json and metrics.csv of a placement replay) "
                            + "and no run directories in it");
        return runs;
    }

    /** Refuses a directory a run is writing or an interrupted run left (it would pass for a finished one). */
    static void requireComplete(Path dir) {
        if (RunLayout.inProgress(dir))
            throw new AuditInputException(
                    dir
                            + ": an incomplete run (interrupted, or still being written); no finished run is there, run it again");
    }

    private static Run asRun(Path dir) {
        if (Files.isRegularFile(dir.resolve(RunFiles.RUN))) return new Run(dir, false);
        if (Files.isRegularFile(dir.resolve(RunFiles.METRICS)) && Files.isRegularFile(dir.resolve("metrics.csv")))
            return new Run(dir, true);
        return null;
    }

    private static void collect(Path dir, int depth, List<Run> runs) {
        if (depth == 0) return;
        List<Path> children;
        try (Stream<Path> list = Files.list(dir)) {
            children = list.filter(Files::isDirectory)
                    .filter(p -> !p.getFileName().toString().startsWith("."))
                    .sorted()
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(dir + ": cannot list", e);
        }
        for (Path child : children) {
            requireComplete(child);
            Run run = asRun(child);
            if (run != null) runs.add(run);
            else collect(child, depth - 1, runs);
        }
    }
}
