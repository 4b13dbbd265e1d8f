package org.gpusched.cli;

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.Comparator;
import java.util.Optional;
import java.util.stream.Stream;
import org.apache.flink.api.common.typeutils.base.StringSerializer;
import org.apache.flink.core.fs.FSDataInputStream;
import org.apache.flink.core.memory.DataInputViewStreamWrapper;
import org.apache.flink.runtime.checkpoint.Checkpoints;
import org.apache.flink.runtime.checkpoint.OperatorState;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.checkpoint.metadata.CheckpointMetadata;
import org.apache.flink.runtime.jobgraph.OperatorID;
import org.apache.flink.runtime.state.OperatorStateHandle;
import org.apache.flink.streaming.api.graph.StreamGraphHasherV2;
import org.gpusched.streaming.RestoreGuard;
import org.gpusched.streaming.SchedulerJob;

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

    /**
     * The settings a scheduler job recorded in a snapshot ({@link org.gpusched.streaming.RestoreGuard}, after the
     * dispatcher), read from its metadata without starting a job; empty when it holds none (a snapshot of a job made
     * before the guard existed, or of another kind of job) or cannot be read here (the job's own check still runs).
     */
    static Optional<String> recordedSettings(Path snapshot) {
        OperatorID guard = new OperatorID(
                StreamGraphHasherV2.generateUserSpecifiedHash(SchedulerJob.RESTORE_GUARD_UID_PREFIX + "dispatch"));
        CheckpointMetadata metadata;
        try (DataInputStream in =
                new DataInputStream(new BufferedInputStream(Files.newInputStream(snapshot.resolve(METADATA))))) {
            metadata = Checkpoints.loadCheckpointMetadata(
                    in, RetainedState.class.getClassLoader(), snapshot.toUri().toString());
        } catch (IOException | RuntimeException unreadable) {
            return Optional.empty();
        }
        for (OperatorState operator : metadata.getOperatorStates()) {
            if (!operator.getOperatorID().equals(guard)) continue;
            for (OperatorSubtaskState subtask : operator.getStates()) {
                for (OperatorStateHandle handle : subtask.getManagedOperatorState()) {
                    OperatorStateHandle.StateMetaInfo info =
                            handle.getStateNameToPartitionOffsets().get(RestoreGuard.SETTINGS.getName());
                    if (info == null || info.getOffsets().length == 0) continue;
                    try (FSDataInputStream in = handle.openInputStream()) {
                        in.seek(info.getOffsets()[0]);
                        return Optional.of(StringSerializer.INSTANCE.deserialize(new DataInputViewStreamWrapper(in)));
                    } catch (IOException | RuntimeException unreadable) {
                        return Optional.empty();
                    }
                }
            }
        }
        return Optional.empty();
    }

    /**
     * Why a checkpoint directory cannot be used ("DIR: is a file, not a directory"), or null when it is a directory
     * (made when missing) this process can write in. Flink would otherwise fail on it only when the job starts, with an
     * exception naming nothing but the path.
     */
    static String unusable(Path dir) {
        Path absolute = dir.toAbsolutePath().normalize();
        if (Files.exists(absolute) && !Files.isDirectory(absolute)) return dir + ": is a file, not a directory";
        for (Path p = absolute.getParent(); p != null; p = p.getParent()) {
            if (!Files.exists(p)) continue;
            if (!Files.isDirectory(p)) return dir + ": " + p + " is a file, so no directory can be made under it";
            break;
        }
        try {
            Files.createDirectories(absolute);
        } catch (IOException e) {
            return dir + ": cannot make the directory (" + reason(e) + ")";
        }
        try {
            Files.delete(Files.createTempFile(absolute, ".gpusched-write-check-", ".tmp"));
        } catch (IOException e) {
            return dir + ": cannot write in it (" + reason(e) + ")";
        }
        return null;
    }

    /** What went wrong with a file operation, in words: Java's file exceptions often say nothing but the path. */
    private static String reason(IOException e) {
        if (e instanceof java.nio.file.FileSystemException f && f.getReason() != null) return f.getReason();
        if (e instanceof java.nio.file.AccessDeniedException) return "permission denied";
        if (e instanceof java.nio.file.NoSuchFileException) return "no such file or directory";
        if (e instanceof java.nio.file.FileAlreadyExistsException) return "a file is in the way";
        return e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
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
