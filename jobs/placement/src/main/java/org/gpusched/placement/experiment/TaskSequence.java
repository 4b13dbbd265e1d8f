package org.gpusched.placement.experiment;

import java.util.Arrays;
import java.util.List;
import org.gpusched.core.random.RandomState;
import org.gpusched.placement.model.Task;

/**
 * The Monte-Carlo inflation workload: trace tasks drawn uniformly with replacement, in draw order (= arrival order),
 * until the GPU milli they request reaches {@code load} times the cluster's GPU capacity. Depends only on the trace,
 * capacity, load and seed, so every policy of a seed sees the same arrivals.
 */
public final class TaskSequence {
    private TaskSequence() {}

    /** Stream index of the sampling generator under a seed (policies' tie-breaking uses another stream). */
    static final long SAMPLING_STREAM = 0x5A4D_504CL;

    public static int[] sample(List<Task> trace, long capacityMilli, double load, long seed) {
        if (trace.isEmpty()) throw new IllegalArgumentException("empty trace");
        if (trace.stream().allMatch(t -> t.gpuMilliTotal() == 0))
            throw new IllegalArgumentException("the trace requests no GPU: inflation by requested GPU capacity cannot end");
        RandomState random = RandomState.derive(seed, SAMPLING_STREAM);
        double target = load * capacityMilli;
        int[] seq = new int[1024];
        int n = 0;
        long requested = 0;
        while (requested < target) {
            int i = random.nextInt(trace.size());
            if (n == seq.length) seq = Arrays.copyOf(seq, n * 2);
            seq[n++] = i;
            requested += trace.get(i).gpuMilliTotal();
        }
        return Arrays.copyOf(seq, n);
    }
}
