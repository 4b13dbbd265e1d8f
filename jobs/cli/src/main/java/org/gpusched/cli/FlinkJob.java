package org.gpusched.cli;

import java.util.ArrayList;
import java.util.List;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import picocli.CommandLine;

/**
 * Entry point of the job jar (gpusched-job.jar) on a Flink cluster: {@code gpusched run} with the given options
 * ({@code run} itself may be given or left out). Unlike the launcher's {@link GpuSched#main} it never calls
 * {@code System.exit}: a submission through the REST API or the web UI runs {@code main} inside the JobManager, whose
 * JVM that would stop. A failure is thrown instead, for the submitter to see.
 *
 * <p>The {@code gpusched.*} keys of the cluster's Flink configuration (its config.yaml and the {@code -D} properties
 * of the submission) set the job's options where neither a flag nor a {@code --config} file does.
 */
public final class FlinkJob {
    private FlinkJob() {}

    public static void main(String[] args) {
        int code = commandLine(
                        StreamExecutionEnvironment.getExecutionEnvironment().getConfiguration())
                .execute(runArgs(args));
        if (code != 0)
            throw new IllegalStateException(
                    "gpusched run failed (exit code " + code + "; the reason is printed above)");
    }

    /** The launcher's command line, its {@code run} reading the {@code gpusched.*} keys of {@code cluster}. */
    static CommandLine commandLine(ReadableConfig cluster) {
        CommandLine cl = GpuSched.commandLine();
        ((RunCommand) cl.getSubcommands().get("run").getCommand()).clusterConfiguration(cluster);
        return cl;
    }

    /** The arguments with {@code run} in front when it was left out. */
    static String[] runArgs(String[] args) {
        List<String> run = new ArrayList<>(List.of(args));
        if (run.isEmpty() || !run.get(0).equals("run")) run.add(0, "run");
        return run.toArray(String[]::new);
    }
}
