package org.gpusched.cli;

import java.util.ArrayList;
import java.util.List;

/**
 * Entry point of the job jar (gpusched-job.jar) on a Flink cluster: {@code gpusched run} with the given options
 * ({@code run} itself may be given or left out). Unlike the launcher's {@link GpuSched#main} it never calls
 * {@code System.exit}: a submission through the REST API or the web UI runs {@code main} inside the JobManager, whose
 * JVM that would stop. A failure is thrown instead, for the submitter to see.
 */
public final class FlinkJob {
    private FlinkJob() {}

    public static void main(String[] args) {
        List<String> run = new ArrayList<>(List.of(args));
        if (run.isEmpty() || !run.get(0).equals("run")) run.add(0, "run");
        int code = GpuSched.commandLine().execute(run.toArray(String[]::new));
        if (code != 0)
            throw new IllegalStateException(
                    "gpusched run failed (exit code " + code + "; the reason is printed above)");
    }
}
