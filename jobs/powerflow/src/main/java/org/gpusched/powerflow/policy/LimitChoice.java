package org.gpusched.powerflow.policy;

/**
 * The power limit a non-PowerFlow baseline runs a job at: one cluster-wide limit (the clock sweep of the paper's
 * Figure 7), or Zeus' per-job choice.
 */
public interface LimitChoice {
    double limit(ClusterView cluster, JobView job, int gpus);

    String label();

    static LimitChoice fixed(double watts) {
        return new LimitChoice() {
            @Override
            public double limit(ClusterView cluster, JobView job, int gpus) {
                return watts;
            }

            @Override
            public String label() {
                return String.valueOf((int) Math.round(watts));
            }
        };
    }

    /** Whether the job sets its own limit (Zeus' optimizer in the job); then {@link #limit} is where it starts. */
    default boolean jobControlled() {
        return false;
    }

    /**
     * Zeus (NSDI'23) as its own code runs it: the job's power-limit optimizer, not the scheduler, sets the limit
     * ({@link Profiling#ZEUS}: JIT profiling on the job's GPUs, then the limit of least
     * {@code 0.5 x E + 0.5 x n x max limit x T}; {@code ClusterRun} plays it). The scheduler starts a job at the
     * largest limit, as the optimizer does before it profiles. Zeus also tunes the batch size across recurrences of a
     * job; PowerFlow keeps the developer's global batch, and so does this reading.
     */
    static LimitChoice zeus() {
        return new LimitChoice() {
            @Override
            public double limit(ClusterView cluster, JobView job, int gpus) {
                return cluster.maxLimit();
            }

            @Override
            public String label() {
                return "zeus";
            }

            @Override
            public boolean jobControlled() {
                return true;
            }
        };
    }

    /**
     * Zeus' optimum selector ({@code ZeusCost} with its default eta_knob 0.5): the limit of least
     * {@code 0.5 x E + 0.5 x (largest limit x gpus) x T} over the measured windows, E and T per iteration (the windows
     * all hold the same number of iterations). Ties go to the lower limit.
     */
    static double zeusOptimum(double[] limits, double[] stepTimes, double[] energies, int gpus) {
        double max = 0;
        for (double l : limits) max = Math.max(max, l);
        double best = Double.NaN, bestCost = Double.POSITIVE_INFINITY;
        for (int i = 0; i < limits.length; i++) {
            double cost = 0.5 * energies[i] + 0.5 * max * gpus * stepTimes[i];
            if (cost < bestCost || (cost == bestCost && limits[i] < best)) {
                bestCost = cost;
                best = limits[i];
            }
        }
        return best;
    }
}
