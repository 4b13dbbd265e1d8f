package org.gpusched.cli;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.ParameterException;

/** File chores shared by the commands that run the scheduler job (replay, compare). */
final class CliFiles {
    private CliFiles() {}

    /** A missing input file, or a directory where a file belongs, is a usage error (exit 2) naming the option. */
    static void requireFile(CommandLine commandLine, Path p, String option) {
        if (Files.isDirectory(p)) throw new ParameterException(commandLine, option + " " + p + ": is a directory, not a file");
        if (!Files.isRegularFile(p)) throw new ParameterException(commandLine, option + " " + p + ": no such file");
    }

    /**
     * Which kind of inputs a command was given: placement (true) or scheduling (false), exactly one of them, or a usage
     * error naming both kinds (e.g. "--trace and --cluster", "--pods and --nodes").
     */
    static boolean placementInputs(CommandLine commandLine, boolean scheduling, String schedulingInputs, boolean placement, String placementInputs) {
        if (placement == scheduling) {
            throw new ParameterException(commandLine, placement
                    ? "give either " + schedulingInputs + " (scheduling policies) or " + placementInputs + " (placement policies), not both"
                    : "missing inputs: " + schedulingInputs + " (scheduling policies) or " + placementInputs + " (placement policies)");
        }
        return placement;
    }

    /** A usage error for the first of these options the user gave: "OPTION applies to ..." + {@code why}. */
    static void rejectGiven(CommandLine commandLine, List<String> options, String why) {
        for (String o : options) {
            if (commandLine.getParseResult().hasMatchedOption(o)) throw new ParameterException(commandLine, o + " " + why);
        }
    }

    /** Non-blank lines: the number of trace records, for progress. */
    static long countLines(Path file) throws IOException {
        long n = 0;
        try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            String line;
            while ((line = in.readLine()) != null) if (!line.isBlank()) n++;
        }
        return n;
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
