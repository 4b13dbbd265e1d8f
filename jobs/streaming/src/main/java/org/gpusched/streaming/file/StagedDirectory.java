package org.gpusched.streaming.file;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.gpusched.rundir.RunLayout;

/**
 * An output directory (a run or compare directory) written under a hidden sibling name, {@code .NAME.partial-PID},
 * and renamed to NAME only when complete, so an interrupted or failed run never leaves a directory that looks
 * finished. A finished one replaces the earlier output there: none of the older run's files is merged in (a compare of
 * fifo after one of fifo and edf leaves no edf/), but what no gpusched command writes (the user's notes.md, at any
 * depth) is moved over into the new directory, never deleted.
 *
 * <p>For the whole run the sibling lock file {@code .NAME.lock} holds an OS file lock (released by the OS also when the
 * process is killed) and the writer's pid and command: a second run into the same directory fails at once naming the
 * first. While a run is in progress its staging directory holds {@link #INCOMPLETE}; a shutdown hook removes the
 * staging directory on Ctrl-C or SIGTERM, and the next run into the same place removes what a killed one left.
 */
public final class StagedDirectory implements AutoCloseable {
    /** Present in a directory still being written (or abandoned by a killed run); validate and report refuse it. */
    public static final String INCOMPLETE = RunLayout.INCOMPLETE;
    /** Files that mark a directory as earlier gpusched output, which a new run may replace. */
    private static final Set<String> OUTPUT_MARKERS = Set.of(
            RunLayout.RUN,
            RunLayout.METRICS,
            "comparison.csv",
            "report.html",
            "audit.txt",
            RunLayout.DECISIONS,
            RunLayout.PARTS,
            INCOMPLETE);

    /**
     * Every file name a gpusched command writes into an output directory (run, compare, place-replay, powerflow); with
     * {@link #OUTPUT_PATTERNS}. A file of an earlier output that the new one does not write again is dropped when its
     * name is here, and kept otherwise: a name missing here leaves an old file behind, it never deletes a user's.
     */
    private static final Set<String> OUTPUT_FILES = Set.of(
            RunLayout.RUN,
            RunLayout.JOBS,
            RunLayout.DECISIONS,
            RunLayout.METRICS,
            RunLayout.REJECTED,
            RunLayout.NODE_EVENTS,
            "comparison.csv",
            "report.html",
            "audit.txt",
            "metrics.csv", // place-replay
            "summary.txt", // powerflow, inflate
            "results.csv",
            "results.json",
            "equal-energy.csv",
            "setup.json",
            "powerflow.yaml",
            "trace.jsonl",
            "models.jsonl", // replay --policy powerflow
            "telemetry.jsonl",
            "job-energy.jsonl",
            "power.jsonl");
    /** The per-policy files of gpusched powerflow: jobs-NAME.csv, power-NAME.csv, decisions-NAME.csv. */
    private static final Pattern OUTPUT_PATTERNS = Pattern.compile("(jobs|power|decisions)-[^/]+\\.csv");

    /** The directory cannot be written (in use, or not ours to replace); the message is one line for the user. */
    public static final class Refused extends IOException {
        public Refused(String message) {
            super(message);
        }
    }

    private final Path target;
    private final Path staging;
    private final Path lockFile;
    private final FileChannel channel;
    private final FileLock lock;
    private final Thread onShutdown;
    private boolean committed;
    private boolean abandoned;

    private StagedDirectory(Path target, Path staging, Path lockFile, FileChannel channel, FileLock lock) {
        this.target = target;
        this.staging = staging;
        this.lockFile = lockFile;
        this.channel = channel;
        this.lock = lock;
        this.onShutdown = new Thread(this::abandonAtExit, "abandon " + staging.getFileName());
    }

    /**
     * Locks {@code out} and creates its staging directory.
     *
     * @param command what is writing, recorded in the lock file for the message a second run gets
     * @param inputs  the run's input files: an --out that contains one of them is refused rather than replaced
     * @throws Refused when another run holds the lock, {@code out} is a file, holds an input, or exists with content that
     *                 is not gpusched output
     */
    public static StagedDirectory open(Path out, String command, List<Path> inputs) throws IOException {
        Path target = out.toAbsolutePath().normalize();
        Path parent = target.getParent();
        if (parent == null) throw new Refused("--out " + out + ": cannot replace the file system root");
        if (Files.exists(target) && !Files.isDirectory(target))
            throw new Refused("--out " + out + " exists and is not a directory");
        for (Path input : inputs) {
            if (input != null && input.toAbsolutePath().normalize().startsWith(target))
                throw new Refused("--out " + out + " contains the input " + input
                        + " and would be replaced; choose another --out");
        }
        if (Path.of("").toAbsolutePath().normalize().startsWith(target))
            throw new Refused("--out " + out + " is the working directory or above it; choose a directory below it");
        List<String> foreign = foreignEntries(target);
        if (!foreign.isEmpty())
            throw new Refused("--out " + out + " exists and is not a gpusched output directory (it holds "
                    + String.join(", ", foreign) + "); choose another --out or empty it");
        Files.createDirectories(parent);
        String name = target.getFileName().toString();
        Path lockFile = parent.resolve("." + name + ".lock");
        FileChannel channel = FileChannel.open(
                lockFile, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
        FileLock lock;
        try {
            lock = channel.tryLock();
        } catch (OverlappingFileLockException sameProcess) {
            lock = null;
        }
        if (lock == null) {
            String holder = Files.readString(lockFile, StandardCharsets.UTF_8).strip();
            channel.close();
            throw new Refused("--out " + out + " is being written by another run ("
                    + (holder.isEmpty() ? "unknown process" : holder)
                    + "); wait for it to end or choose another --out");
        }
        try {
            long pid = ProcessHandle.current().pid();
            channel.truncate(0);
            channel.write(
                    ByteBuffer.wrap(("pid " + pid + ", started " + Instant.now().truncatedTo(ChronoUnit.SECONDS) + ": "
                                    + command + "\n")
                            .getBytes(StandardCharsets.UTF_8)),
                    0);
            channel.force(false);
            // Holding the lock, any other staging or replaced directory of this name is a killed run's leftover.
            try (DirectoryStream<Path> old = Files.newDirectoryStream(parent, "." + name + ".{partial,old}-*")) {
                for (Path p : old) deleteRecursively(p);
            }
            Path staging = parent.resolve("." + name + ".partial-" + pid);
            Files.createDirectories(staging);
            Files.createFile(staging.resolve(INCOMPLETE));
            StagedDirectory staged = new StagedDirectory(target, staging, lockFile, channel, lock);
            Runtime.getRuntime().addShutdownHook(staged.onShutdown);
            return staged;
        } catch (IOException | RuntimeException e) {
            lock.release();
            channel.close();
            throw e;
        }
    }

    /** Where to write: the staging directory, renamed to {@link #target()} by {@link #commit()}. */
    public Path dir() {
        return staging;
    }

    /** The directory the user named (absolute). */
    public Path target() {
        return target;
    }

    /**
     * Renames the staging directory into place, replacing an earlier output there; the earlier output's files that no
     * gpusched command writes are moved into the new directory first, at the same relative path.
     */
    public synchronized void commit() throws IOException {
        if (abandoned) throw new IOException("interrupted: " + target + " was not written");
        Files.delete(staging.resolve(INCOMPLETE));
        if (Files.exists(target)) {
            keepForeign(target, staging);
            Path old = target.resolveSibling("." + target.getFileName() + ".old-"
                    + ProcessHandle.current().pid());
            Files.move(target, old, StandardCopyOption.ATOMIC_MOVE);
            Files.move(staging, target, StandardCopyOption.ATOMIC_MOVE);
            deleteRecursively(old);
        } else {
            Files.move(staging, target, StandardCopyOption.ATOMIC_MOVE);
        }
        committed = true;
    }

    /** Removes the staging directory unless committed; releases the lock. */
    @Override
    public void close() throws IOException {
        try {
            Runtime.getRuntime().removeShutdownHook(onShutdown);
        } catch (IllegalStateException shuttingDown) {
            // the hook is running or has run
        }
        abandon();
        try {
            Files.deleteIfExists(lockFile);
        } finally {
            if (lock.isValid()) lock.release();
            channel.close();
        }
    }

    /** Ctrl-C or SIGTERM: the staging directory and the lock file go; the OS releases the lock as the process ends. */
    private void abandonAtExit() {
        abandon();
        try {
            Files.deleteIfExists(lockFile);
        } catch (IOException e) {
            // best effort at exit; a later run into the same directory takes the lock file over
        }
    }

    private synchronized void abandon() {
        if (committed || abandoned) return;
        abandoned = true;
        // Sinks of a mini cluster being torn down may still create files: a few attempts, best effort.
        for (int attempt = 0; attempt < 5 && Files.exists(staging); attempt++) {
            try {
                deleteRecursively(staging);
            } catch (IOException e) {
                try {
                    Thread.sleep(100);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    /**
     * Names in an existing directory that no gpusched run writes (empty: absent, empty, or earlier output). A folder of
     * several runs (runs/ holding runs/a/run.json) is not earlier output of one run and is not replaced.
     */
    private static List<String> foreignEntries(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) return List.of();
        List<String> names = new ArrayList<>();
        try (Stream<Path> entries = Files.list(dir)) {
            entries.forEach(p -> names.add(p.getFileName().toString()));
        }
        if (names.isEmpty() || names.stream().anyMatch(OUTPUT_MARKERS::contains)) return List.of();
        names.sort(null);
        return names.size() > 3 ? List.of(names.get(0), names.get(1), names.get(2), "...") : names;
    }

    /**
     * Moves what in {@code old} is not gpusched output, and not written again in {@code fresh}, to the same place in
     * {@code fresh}: a file the new run wrote replaces the old one; a file of a gpusched name is dropped with the rest
     * of the old output; any other file (or link) is kept. Directories are merged entry by entry, so a note in an old
     * policy directory that the new run no longer writes survives in a directory of that name holding only it.
     */
    private static void keepForeign(Path old, Path fresh) throws IOException {
        List<Path> entries;
        try (Stream<Path> list = Files.list(old)) {
            entries = list.toList();
        }
        for (Path entry : entries) {
            String name = entry.getFileName().toString();
            Path counterpart = fresh.resolve(name);
            boolean counterpartExists = Files.exists(counterpart, LinkOption.NOFOLLOW_LINKS);
            if (Files.isDirectory(entry, LinkOption.NOFOLLOW_LINKS)) {
                if (!counterpartExists) {
                    if (!holdsForeign(entry)) continue;
                    Files.createDirectory(counterpart);
                } else if (!Files.isDirectory(counterpart, LinkOption.NOFOLLOW_LINKS)) {
                    // the new output has a file where the user kept a directory: keep it under a name beside it
                    if (holdsForeign(entry)) Files.move(entry, fresh.resolve(name + ".kept"));
                    continue;
                }
                keepForeign(entry, counterpart);
            } else if (!counterpartExists && !isOutputFile(name)) {
                Files.move(entry, counterpart);
            }
        }
    }

    /** Whether a directory of an earlier output holds anything that is not gpusched output. */
    private static boolean holdsForeign(Path dir) throws IOException {
        try (Stream<Path> paths = Files.walk(dir)) {
            return paths.anyMatch(p -> !Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)
                    && !isOutputFile(p.getFileName().toString()));
        }
    }

    static boolean isOutputFile(String name) {
        return OUTPUT_FILES.contains(name) || OUTPUT_PATTERNS.matcher(name).matches();
    }

    static void deleteRecursively(Path dir) throws IOException {
        if (!Files.exists(dir)) return;
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                try {
                    Files.delete(p);
                } catch (NoSuchFileException gone) {
                    // removed meanwhile
                }
            }
        }
    }
}
