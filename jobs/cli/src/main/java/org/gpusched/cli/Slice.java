package org.gpusched.cli;

import java.nio.file.Path;
import java.util.List;
import org.gpusched.streaming.SchedulerOptions;
import org.gpusched.streaming.SchedulerOptions.Setting;
import org.gpusched.streaming.placement.PlacementOptions;
import picocli.CommandLine;
import picocli.CommandLine.ParameterException;

/**
 * The slice a command runs, told apart once from the inputs it was given: scheduling (a trace or the topics, and a
 * cluster file) or placement (an Alibaba node list and pod list). A command that takes both describes its inputs in a
 * {@link Choice} and dispatches on what {@link Choice#resolve} returns; the checks and their messages are the same for
 * every such command.
 */
sealed interface Slice {
    /** What a command does in each slice. */
    interface Handler<T> {
        T scheduling() throws Exception;

        T placement(Placement inputs) throws Exception;
    }

    /** The handler's answer for this slice. */
    <T> T dispatch(Handler<T> handler) throws Exception;

    /** The scheduling slice: its inputs are the command's own (checked where it reads them). */
    record Scheduling() implements Slice {
        @Override
        public <T> T dispatch(Handler<T> handler) throws Exception {
            return handler.scheduling();
        }
    }

    /** The placement slice: its two input files, in the order the command names them, both existing files. */
    record Placement(Path first, Path second) implements Slice {
        @Override
        public <T> T dispatch(Handler<T> handler) throws Exception {
            return handler.placement(this);
        }
    }

    /**
     * How a command names the inputs of each slice.
     *
     * @param schedulingInputs the scheduling inputs as a phrase ("--trace and --cluster")
     * @param schedulingFlags  the same as a short list ("--trace/--cluster")
     * @param schedulingGiven  whether any scheduling input was given
     * @param firstOption      the option of the first placement input ("--pods"), {@code first} its file or null
     * @param secondOption     the option of the second placement input ("--nodes"), {@code second} its file or null
     * @param schedulingOnly   the command's options that mean nothing to a placement run
     */
    record Choice(
            String schedulingInputs,
            String schedulingFlags,
            boolean schedulingGiven,
            String firstOption,
            Path first,
            String secondOption,
            Path second,
            List<String> schedulingOnly) {

        /**
         * Exactly one slice's inputs, and only options of that slice, or a usage error (exit 2) naming the options:
         * both or neither kind of inputs, half of the placement inputs, a missing file, an option of the other slice.
         */
        Slice resolve(CommandLine commandLine) {
            String placementInputs = firstOption + " and " + secondOption;
            String placementFlags = firstOption + "/" + secondOption;
            boolean placement = first != null || second != null;
            if (placement == schedulingGiven)
                throw new ParameterException(
                        commandLine,
                        placement
                                ? "give either " + schedulingInputs + " (scheduling policies) or " + placementInputs
                                        + " (placement policies), not both"
                                : "missing inputs: " + schedulingInputs + " (scheduling policies) or " + placementInputs
                                        + " (placement policies)");
            if (!placement) {
                CliFiles.rejectGiven(
                        commandLine,
                        placementOnlyFlags(),
                        "applies to placement policies (" + placementFlags + "), not to scheduling");
                return new Scheduling();
            }
            if (first == null || second == null)
                throw new ParameterException(commandLine, "placement policies need both " + placementInputs);
            CliFiles.requireFile(commandLine, first, firstOption);
            CliFiles.requireFile(commandLine, second, secondOption);
            CliFiles.rejectGiven(
                    commandLine,
                    schedulingOnly,
                    "applies to scheduling policies (" + schedulingFlags + "), not to placement (" + placementFlags
                            + ")");
            return new Placement(first, second);
        }

        /** The flags of the placement options that no scheduler option shares (--alpha). */
        private static List<String> placementOnlyFlags() {
            return PlacementOptions.ALL.stream()
                    .map(Setting::flag)
                    .filter(f -> f != null && SchedulerOptions.byFlag(f).isEmpty())
                    .toList();
        }
    }
}
