package org.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The README's Quick start names every tool the scripts need: each tool a script under bin/, tools/ or .ci/ looks for
 * ({@code command -v NAME}, {@code for tool in A B}), besides Java, Maven and bash, so a newcomer installs them before
 * the first run rather than after a skipped check or a failed one.
 */
class ReadmePrerequisitesTest {
    private static final Path ROOT = Path.of("../..").toAbsolutePath().normalize();

    @Test
    void theQuickStartNamesEveryToolTheScriptsLookFor() throws IOException {
        String readme = Files.readString(ROOT.resolve("README.md"));
        int start = readme.indexOf("## Quick start");
        String prerequisites = readme.substring(start, readme.indexOf("```", start));
        Set<String> tools = new TreeSet<>(Set.of("java", "maven", "bash"));
        Pattern lookedFor = Pattern.compile("command -v ([a-z][a-z0-9-]*)|for tool in ((?:[a-z][a-z0-9-]* ?)+);");
        for (String dir : new String[] {"bin", "tools", ".ci"}) {
            try (Stream<Path> files = Files.walk(ROOT.resolve(dir))) {
                for (Path f : files.filter(Files::isRegularFile).toList()) {
                    if (f.toString().endsWith(".xml")) continue;
                    Matcher m = lookedFor.matcher(Files.readString(f));
                    while (m.find()) {
                        if (m.group(1) != null) tools.add(m.group(1));
                        else for (String t : m.group(2).strip().split(" ")) tools.add(t);
                    }
                }
            }
        }
        tools.remove("chromium-browser"); // the other name of chromium
        assertTrue(
                tools.contains("shellcheck") && tools.contains("git"), "the scan finds the scripts' tools: " + tools);
        for (String tool : tools)
            assertTrue(
                    prerequisites.toLowerCase().contains(tool),
                    "README's Quick start does not name " + tool + " (found in the scripts: " + tools + "):\n"
                            + prerequisites);
    }
}
