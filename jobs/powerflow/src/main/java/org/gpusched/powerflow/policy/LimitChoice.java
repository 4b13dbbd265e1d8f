package org.gpusched.powerflow.policy;

import org.gpusched.powerflow.model.Configuration;

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

    /**
     * Zeus (NSDI'23) for a job with a fixed GPU count: the limit minimizing its cost per iteration
     * {@code eta_z x E + (1 - eta_z) x n x MAXPOWER x T}, with Zeus' default eta_z = 0.5 and MAXPOWER the largest limit,
     * on the job's fitted model. Zeus also tunes the batch size; PowerFlow keeps the developer's global batch, and so
     * does this reading.
     */
    static LimitChoice zeus() {
        return new LimitChoice() {
            @Override
            public double limit(ClusterView cluster, JobView job, int gpus) {
                double best = cluster.maxLimit(), bestCost = Double.POSITIVE_INFINITY;
                for (double l : cluster.powerLimits()) {
                    Configuration c = Configuration.of(gpus, cluster.gpusPerNode(), job.globalBatch(), cluster.freq(l));
                    double cost = 0.5 * job.model().energyPerIteration(c)
                            + 0.5 * gpus * cluster.maxLimit() * job.model().stepTime(c);
                    if (cost < bestCost) {
                        bestCost = cost;
                        best = l;
                    }
                }
                return best;
            }

            @Override
            public String label() {
                return "zeus";
            }
        };
    }
}
