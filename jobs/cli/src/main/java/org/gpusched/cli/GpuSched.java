package org.gpusched.cli;

import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The gpusched launcher: {@code main} only wires the subcommands. Each subcommand is its own class; the optional ones
 * are found by name, so a module can add a command without touching this file.
 */
@Command(name = "gpusched", mixinStandardHelpOptions = true, version = "gpusched 0.1.0",
        description = {"Streaming scheduler for deep-learning training jobs on GPU clusters (Apache Flink, Kafka).",
                "Start with: gpusched replay --trace examples/armida-trace.jsonl --cluster examples/armida-cluster.yaml --policy andreas-rg --out runs/armida"},
        subcommands = {ReplayCommand.class, CommandLine.HelpCommand.class})
public final class GpuSched implements Runnable {
    /** Subcommands in help order; those whose class is absent from the build are skipped. */
    static final List<String> OPTIONAL_COMMANDS = List.of("RunCommand", "ProduceCommand", "CompareCommand", "GenerateCommand",
            "ConvertCommand", "ValidateCommand", "InflateCommand", "PlaceReplayCommand", "ReportCommand", "ConsumeCommand", "ExportCommand",
            "CostCommand");

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "missing subcommand");
    }

    public static void main(String[] args) {
        int code;
        try {
            code = commandLine().execute(args);
        } catch (Throwable e) {
            // picocli hands Errors through; exit anyway, or Flink's non-daemon threads would keep the JVM alive
            System.err.println("gpusched: " + Failures.message(e) + Failures.DEBUG_HINT);
            if (System.getenv("GPUSCHED_DEBUG") != null) e.printStackTrace();
            code = ExitCode.INTERNAL;
        }
        System.exit(code);
    }

    /**
     * The configured command line: a usage error is one line with the nearest valid name (exit 2), a failure one line
     * with the exit code of {@link ExitCode}, never a stack trace; every --help lists the same exit codes.
     */
    public static CommandLine commandLine() {
        CommandLine cl = new CommandLine(new GpuSched());
        for (String name : OPTIONAL_COMMANDS) {
            try {
                Class<?> c = Class.forName(GpuSched.class.getPackageName() + "." + name);
                cl.addSubcommand(c.getDeclaredConstructor().newInstance());
            } catch (ClassNotFoundException absent) {
                // command not part of this build
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("cannot create command " + name, e);
            }
        }
        UsageErrors.summariesInCommandList(cl);
        for (CommandLine sub : cl.getSubcommands().values()) {
            if (sub.getCommand() instanceof CommandLine.HelpCommand) continue;
            sub.getCommandSpec().usageMessage().exitCodeListHeading("%nExit codes:%n").exitCodeList(CommandLine.Model.UsageMessageSpec
                    .keyValuesMap(ExitCode.HELP));
        }
        cl.setParameterExceptionHandler(UsageErrors::handle);
        cl.setExecutionExceptionHandler(Failures::handle);
        return cl;
    }
}
