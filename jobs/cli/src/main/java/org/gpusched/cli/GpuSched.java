package org.gpusched.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The gpusched launcher: {@code main} only wires the subcommands, each its own class, listed in help order.
 */
@Command(
        name = "gpusched",
        mixinStandardHelpOptions = true,
        version = "gpusched 0.1.0",
        description = {
            "Streaming scheduler for deep-learning training jobs on GPU clusters (Apache Flink, Kafka).",
            "Start with: gpusched replay --trace examples/armida-trace.jsonl --cluster examples/armida-cluster.yaml --policy andreas-rg --out runs/armida"
        },
        subcommands = {
            ReplayCommand.class,
            CompareCommand.class,
            RunCommand.class,
            ProduceCommand.class,
            ConsumeCommand.class,
            TopicsCommand.class,
            SqlCommand.class,
            TopCommand.class,
            GenerateCommand.class,
            ConvertCommand.class,
            ExportCommand.class,
            ValidateCommand.class,
            ReportCommand.class,
            CostCommand.class,
            PlaceReplayCommand.class,
            InflateCommand.class,
            PowerflowCommand.class,
            CommandLine.HelpCommand.class
        })
public final class GpuSched implements Runnable {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

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
            System.err.println(Failures.uncaught(args, e));
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
        UsageErrors.summariesInCommandList(cl);
        for (CommandLine sub : cl.getSubcommands().values()) {
            if (sub.getCommand() instanceof CommandLine.HelpCommand) continue;
            sub.getCommandSpec()
                    .usageMessage()
                    .exitCodeListHeading("%nExit codes:%n")
                    .exitCodeList(CommandLine.Model.UsageMessageSpec.keyValuesMap(ExitCode.HELP));
        }
        cl.setParameterExceptionHandler(UsageErrors::handle);
        cl.setExecutionExceptionHandler(Failures::handle);
        return cl;
    }
}
