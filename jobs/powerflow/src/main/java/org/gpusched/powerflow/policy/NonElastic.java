package org.gpusched.powerflow.policy;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Shared by the non-elastic baselines: jobs in a given order get their requested GPUs while GPUs are free. */
final class NonElastic {
    private NonElastic() {}

    static Map<Long, Assignment> startInOrder(ClusterView cluster, List<JobView> order, LimitChoice limits) {
        Map<Long, Assignment> out = new HashMap<>();
        int free = cluster.totalGpus();
        for (JobView j : order) {
            int n = Math.min(j.requestedGpus(), cluster.totalGpus());
            if (n <= free) {
                out.put(j.id(), new Assignment(n, limits.limit(cluster, j, n)));
                free -= n;
            } else {
                out.put(j.id(), Assignment.WAITING);
            }
        }
        return out;
    }
}
