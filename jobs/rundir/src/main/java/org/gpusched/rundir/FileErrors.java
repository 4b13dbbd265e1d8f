package org.gpusched.rundir;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.util.Locale;

/**
 * A file-system failure in words for a one-line message: the file and what the system said ("permission denied",
 * "read-only file system", "no space left on device"), where Java's exceptions often carry the path alone.
 */
public final class FileErrors {
    private FileErrors() {}

    /** "FILE: why", or the exception's message when it names no file. */
    public static String describe(IOException e) {
        if (!(e instanceof FileSystemException fs)) return e.getMessage() == null ? e.toString() : e.getMessage();
        String file = fs.getFile() == null
                ? ""
                : fs.getFile() + (fs.getOtherFile() == null ? "" : " -> " + fs.getOtherFile());
        return (file.isEmpty() ? "" : file + ": ") + reason(fs);
    }

    private static String reason(FileSystemException e) {
        if (e.getReason() != null) return e.getReason().toLowerCase(Locale.ROOT);
        if (e instanceof AccessDeniedException) return "permission denied";
        if (e instanceof NoSuchFileException) return "no such file or directory";
        if (e instanceof NotDirectoryException) return "not a directory";
        if (e instanceof FileAlreadyExistsException) return "already exists";
        if (e instanceof DirectoryNotEmptyException) return "directory not empty";
        return "the file system refused it (" + e.getClass().getSimpleName() + ")";
    }
}
