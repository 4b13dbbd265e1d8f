package org.gpusched.core.policy;

import org.gpusched.core.model.*;
import org.gpusched.core.random.RandomState;
import org.junit.jupiter.api.Test;

class TmpDiagTest {
    static void dump(String name, SchedulingProblem p, Schedule s) {
        double tard = 0, post = 0, node = 0;
        StringBuilder sb = new StringBuilder();
        double[] least = new double[p.cluster().nodeCount()];
        java.util.Arrays.fill(least, Double.POSITIVE_INFINITY);
        for (int j = 0; j < p.jobCount(); j++) {
            var job = p.job(j).job();
            Placement pl = s.placement(j);
            if (pl == null) {
                double late = p.now() + 3600 + p.slowestRemaining(j) - job.dueSeconds();
                double c = late > 0 ? 100 * job.weightPerHour() * late / 3600 : 0;
                post += c;
                sb.append(String.format(" j%d:P(%.0f)", j, c));
            } else {
                double r = p.remaining(j, pl.type(), pl.gpus());
                double late = p.now() + r - job.dueSeconds();
                double c = late > 0 ? job.weightPerHour() * late / 3600 : 0;
                tard += c;
                least[pl.node()] = Math.min(least[pl.node()], r / 3600 * p.cluster().type(pl.type()).costPerHour(pl.gpus()));
                sb.append(String.format(" j%d:n%d/%s/%d(%.0f)", j, pl.node(), p.cluster().type(pl.type()).name(), pl.gpus(), c));
            }
        }
        for (double l : least) if (l < Double.POSITIVE_INFINITY) node += l;
        System.out.printf("DIAG %s f=%.1f tard=%.1f post=%.1f node=%.1f%n  %s%n", name, s.objective(), tard, post, node, sb);
    }

    @Test
    void diag() {
        SchedulingProblem p = MilpPolicyInstances.rightsizable(1, 10, 30, 0);
        PolicyConfig cfg = PolicyConfig.DEFAULTS.withMaxIterations(1000);
        dump("ls", p, new LocalSearchPolicy(cfg).schedule(p, new RandomState(1)));
        dump("milp", p, new MilpPolicy(new PolicyConfig(1000, true, 10, 5, 20)).schedule(p, new RandomState(1)));
    }
}
