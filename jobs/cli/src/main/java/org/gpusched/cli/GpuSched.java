package org.gpusched.cli;

import java.io.PrintWriter;
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
            "ConvertCommand", "ValidateCommand", "InflateCommand", "PlaceReplayCommand", "ReportCommand",
            "PowerflowCommand");

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "missing subcommand (see gpusched --help)");
    }

    public static void main(String[] args) {
        int code;
        try {
            code = commandLine().execute(args);
        } catch (Throwable e) {
            // picocli hands Errors through; exit anyway, or Flink's non-daemon threads would keep the JVM alive
            System.err.println("gpusched: " + message(e));
            if (System.getenv("GPUSCHED_DEBUG") != null) e.printStackTrace();
            code = 1;
        }
        System.exit(code);
    }

    /** The configured command line: usage errors exit 2 with a message, failures exit 1 with a message, no stack trace. */
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
        cl.setExecutionExceptionHandler((e, commandLine, parseResult) -> {
            PrintWriter err = commandLine.getErr();
            err.println("gpusched " + commandLine.getCommandName() + ": " + message(e));
            if (System.getenv("GPUSCHED_DEBUG") != null) e.printStackTrace(err);
            err.flush();
            return 1;
        });
        return cl;
    }

    /** The most useful message of a failure: the root cause's, which names the file, line or field. */
    static String message(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t && (t.getMessage() == null || t instanceof java.util.concurrent.ExecutionException
                || t.getClass().getName().startsWith("org.apache.flink"))) {
            t = t.getCause();
        }
        return t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
    }
}
