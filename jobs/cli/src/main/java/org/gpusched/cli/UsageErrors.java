package org.gpusched.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.commons.text.similarity.LevenshteinDistance;
import org.gpusched.core.policy.Policies;
import org.gpusched.placement.policy.PlacementPolicies;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

/**
 * Usage errors as one line: what is wrong, the nearest valid option or policy name, and which --help to read
 * ("gpusched replay: unknown option '--polcy'; did you mean --policy? (see gpusched replay --help)"), exit 2.
 */
final class UsageErrors {
    private static final Pattern UNKNOWN_POLICY = Pattern.compile("unknown (?:placement |--)?policy '([^']*)'");
    private static final LevenshteinDistance DISTANCE = LevenshteinDistance.getDefaultInstance();

    private UsageErrors() {}

    static int handle(ParameterException ex, String[] args) {
        CommandLine cmd = ex.getCommandLine();
        PrintWriter err = cmd.getErr();
        err.println(line(ex, cmd.getCommandSpec(), args));
        err.flush();
        return ExitCode.BAD_INPUT;
    }

    /** The one line for a usage error of {@code command}. */
    static String line(ParameterException ex, CommandSpec command, String[] args) {
        String name = command.qualifiedName();
        String message = oneLine(ex.getMessage());
        String suggestion = null;
        List<String> unknown = unknownOptions(command, args);
        if (!unknown.isEmpty()) {
            // an unknown option explains a "missing required option" that follows from it (--polcy for --policy)
            message = "unknown option '" + unknown.get(0) + "'";
            suggestion = nearest(unknown.get(0), command.optionsMap().keySet()).orElse(null);
        } else if (ex instanceof CommandLine.UnmatchedArgumentException u
                && !u.getSuggestions().isEmpty()) {
            suggestion = u.getSuggestions().get(0);
        } else {
            Matcher m = UNKNOWN_POLICY.matcher(message);
            if (m.find()) {
                List<String> names = new ArrayList<>(Policies.names());
                names.addAll(PlacementPolicies.NAMES);
                suggestion = nearest(m.group(1), names).orElse(null);
            }
        }
        return name + ": " + message + (suggestion == null ? "" : "; did you mean " + suggestion + "?") + " (see "
                + name + " --help)";
    }

    /** Arguments that look like options ("--x" or "--x=v") but are not options of {@code command}. */
    static List<String> unknownOptions(CommandSpec command, String[] args) {
        List<String> unknown = new ArrayList<>();
        boolean inCommand = command.parent() == null;
        for (String a : args) {
            if (!inCommand) {
                inCommand = a.equals(command.name());
                continue;
            }
            if (a.equals("--")) break;
            if (!a.startsWith("--") || a.length() < 3) continue;
            String option = a.contains("=") ? a.substring(0, a.indexOf('=')) : a;
            if (!command.optionsMap().containsKey(option)) unknown.add(option);
        }
        return unknown;
    }

    /** The candidate closest to {@code given} by edit distance, if it is close enough to be what was meant. */
    static Optional<String> nearest(String given, Collection<String> candidates) {
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (String c : candidates) {
            int d = DISTANCE.apply(given, c);
            if (d < bestDistance) {
                best = c;
                bestDistance = d;
            }
        }
        int allowed = Math.max(2, given.length() / 3);
        return best != null && bestDistance <= allowed ? Optional.of(best) : Optional.empty();
    }

    private static String oneLine(String message) {
        if (message == null) return "invalid command line";
        return message.strip().replaceAll("\\s*\\R\\s*", "; ");
    }

    /**
     * The top-level command list shows each command's first sentence whole (picocli's default shows its first
     * description line, which the commands break mid-sentence).
     */
    static void summariesInCommandList(CommandLine cl) {
        cl.getHelpSectionMap().put(CommandLine.Model.UsageMessageSpec.SECTION_KEY_COMMAND_LIST, help -> {
            Map<String, String> rows = new LinkedHashMap<>();
            for (var e : help.subcommands().entrySet()) {
                CommandSpec spec = e.getValue().commandSpec();
                String[] header = spec.usageMessage().header();
                rows.put(
                        e.getKey(),
                        header.length > 0
                                ? String.join(" ", header)
                                : firstSentence(spec.usageMessage().description()));
            }
            return help.createTextTable(rows).toString();
        });
    }

    /** The first sentence of a description given as lines (joined with spaces), without picocli's %n markers. */
    static String firstSentence(String[] description) {
        String text = String.join(" ", description)
                .replace("%n", " ")
                .replaceAll("\\s+", " ")
                .strip();
        Matcher m = Pattern.compile("[.:](\\s|$)").matcher(text);
        int end = text.length();
        while (m.find()) {
            // not inside parentheses (a colon or full stop there is part of the aside), not after "e.g" or "i.e"
            if (depth(text, m.start()) > 0) continue;
            String before = text.substring(Math.max(0, m.start() - 3), m.start());
            if (before.endsWith("e.g") || before.endsWith("i.e") || before.endsWith("vs")) continue;
            end = m.start() + 1;
            break;
        }
        String sentence = text.substring(0, end);
        return sentence.endsWith(":") ? sentence.substring(0, sentence.length() - 1) + "." : sentence;
    }

    /** How many parentheses are open at {@code index} of {@code text}. */
    private static int depth(String text, int index) {
        int depth = 0;
        for (int i = 0; i < index; i++) {
            if (text.charAt(i) == '(') depth++;
            else if (text.charAt(i) == ')') depth = Math.max(0, depth - 1);
        }
        return depth;
    }
}
