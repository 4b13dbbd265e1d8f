package org.gpusched.streaming.placement;

import java.util.Set;
import org.gpusched.placement.model.Task;

/**
 * One task of a time-driven placement replay as parsed from its pod-list row: the demand, its life in trace seconds and
 * its line in the file (its identity, and the order of arrivals at one instant). {@code deletionTime} is
 * {@link #CUT_OFF} when the trace ends before the task does (it then leaves at the end of the replay). {@code run} is
 * the replay run ({@link ReplayRun#key()}) this copy is for, empty before the fan-out. Flink POJO.
 */
public class ReplayPod {
    public static final long CUT_OFF = -1;

    public String run = "";
    public long line;
    public String name;
    public long cpuMilli;
    public long memoryMiB;
    public int gpuCount;
    public int gpuMilliPerGpu;
    public String[] gpuModels = new String[0];
    public long creationTime;
    public long deletionTime;

    public ReplayPod() {}

    public ReplayPod(long line, Task task, long creationTime, long deletionTime) {
        this.line = line;
        this.name = task.name();
        this.cpuMilli = task.cpuMilli();
        this.memoryMiB = task.memoryMiB();
        this.gpuCount = task.gpuCount();
        this.gpuMilliPerGpu = task.gpuMilliPerGpu();
        this.gpuModels = task.gpuModels().stream().sorted().toArray(String[]::new);
        this.creationTime = creationTime;
        this.deletionTime = deletionTime;
    }

    public Task task() {
        return new Task(name, cpuMilli, memoryMiB, gpuCount, gpuMilliPerGpu, Set.of(gpuModels), Set.of());
    }

    /** The same pod for another run. */
    public ReplayPod forRun(String runKey) {
        ReplayPod p = new ReplayPod(line, task(), creationTime, deletionTime);
        p.run = runKey;
        return p;
    }
}
