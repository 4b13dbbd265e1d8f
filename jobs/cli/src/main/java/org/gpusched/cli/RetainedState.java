package org.gpusched.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.Comparator;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Where a run's durable state lives and which snapshot a restart resumes from. Under a checkpoint directory Flink
 * keeps each job's retained checkpoints as {@code JOB-ID/chk-N/_metadata} and savepoints as
 * {@code savepoints/savepoint-.../_metadata}; a snapshot is complete once its {@code _metadata} file exists.
 */
final class RetainedState {
    static final String METADATA = "_metadata";
    static final String SAVEPOINTS = "savepoints";

    private RetainedState() {}

    /**
     * The snapshot named by a {@code --restore} value: a savepoint or checkpoint directory (or its _metadata file), a
     * job's checkpoint directory or a whole checkpoint directory (its newest snapshot), or {@code latest} (the newest
     * under {@code checkpointDir}).
     *
     * @throws IllegalArgumentException with a message for the user when there is no such snapshot
     */
    static Path resolve(String restore, Path checkpointDir) throws IOException {
        if (restore.equals("latest")) {
            if (checkpointDir == null)
                throw new IllegalArgumentException(
                        "--restore latest needs --checkpoint-dir (where the checkpoints are kept)");
            return newest(checkpointDir)
                    .orElseThrow(() -> new IllegalArgumentException(
                            "--restore latest: no completed checkpoint or savepoint in " + checkpointDir));
        }
        Path path = Path.of(restore).toAbsolutePath().normalize();
        if (!Files.exists(path)) throw new IllegalArgumentException("--restore: " + path + " does not exist");
        if (Files.isRegularFile(path) && path.getFileName().toString().equals(METADATA)) return path.getParent();
        if (Files.isRegularFile(path.resolve(METADATA))) return path;
        return newest(path)
                .orElseThrow(() -> new IllegalArgumentException("--restore: " + path
                        + " holds no completed checkpoint or savepoint (no " + METADATA + " file in it or below it)"));
    }

    /** The newest completed snapshot (checkpoint or savepoint) at most three levels below dir. */
    static Optional<Path> newest(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) return Optional.empty();
        try (Stream<Path> files = Files.find(
                dir,
                3,
                (p, a) -> a.isRegularFile() && p.getFileName().toString().equals(METADATA))) {
            return files.max(Comparator.comparing(RetainedState::modified)).map(Path::getParent);
        }
    }

    private static FileTime modified(Path p) {
        try {
            return Files.getLastModifiedTime(p);
        } catch (IOException e) {
            return FileTime.fromMillis(0);
        }
    }
}
