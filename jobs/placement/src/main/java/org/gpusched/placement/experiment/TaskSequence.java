package org.gpusched.placement.experiment;

import java.util.Arrays;
import java.util.List;
import org.gpusched.core.random.RandomState;
import org.gpusched.placement.model.Task;

/**
 * The inflation workload as the FGD simulator builds it (workload tuning, ratio = {@code load}): the whole trace in a
 * random order (Fisher-Yates), then, while the GPU milli requested stays within {@code load} times the cluster's GPU
 * capacity, clones of tasks drawn uniformly with replacement appended; if the trace alone requests more, tasks drawn at
 * random are removed until it fits. As in the simulator (tuneUpPods) the stop test adds the drawn task's GPU milli per
 * GPU, not its total, and the first clone that would overshoot ends the sequence. Depends only on the trace, capacity,
 * load and seed, so every policy of a seed sees the same arrivals.
 */
public final class TaskSequence {
    private TaskSequence() {}

    /** Stream index of the sampling generator under a seed (policies' tie-breaking uses another stream). */
    static final long SAMPLING_STREAM = 0x5A4D_504CL;

    public static int[] sample(List<Task> trace, long capacityMilli, double load, long seed) {
        if (trace.isEmpty()) throw new IllegalArgumentException("empty trace");
        if (trace.stream().allMatch(t -> t.gpuMilliTotal() == 0))
            throw new IllegalArgumentException(
                    "the trace requests no GPU: inflation by requested GPU capacity cannot end");
        RandomState random = RandomState.derive(seed, SAMPLING_STREAM);
        double target = load * capacityMilli;
        int n = trace.size();
        int[] seq = new int[Math.max(n, 1024)];
        long requested = 0;
        for (int i = 0; i < n; i++) {
            int j = random.nextInt(i + 1);
            seq[i] = seq[j];
            seq[j] = i;
            requested += trace.get(i).gpuMilliTotal();
        }
        while (requested > target) { // tune down
            int k = random.nextInt(n);
            requested -= trace.get(seq[k]).gpuMilliTotal();
            System.arraycopy(seq, k + 1, seq, k, n - k - 1);
            n--;
        }
        while (true) { // tune up
            int i = random.nextInt(trace.size());
            if (requested + trace.get(i).gpuMilliPerGpu() > target) break;
            if (n == seq.length) seq = Arrays.copyOf(seq, n * 2);
            seq[n++] = i;
            requested += trace.get(i).gpuMilliTotal();
        }
        return Arrays.copyOf(seq, n);
    }
}
