package org.gpusched.core.objective;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.gpusched.core.model.Cluster;
import org.gpusched.core.model.Job;
import org.gpusched.core.model.Node;
import org.gpusched.core.model.NodeType;
import org.junit.jupiter.api.Test;

/** The lower bound on a hand-worked instance. */
class CostLowerBoundTest {
    /** A VM leased whole: 8 $/h for its 8 GPUs, so 1 $ per GPU-hour. */
    static final NodeType WHOLE = NodeType.priced("W", "1080Ti", 8, 8.0);
    /** Priced per busy GPU, dearest per GPU when full: 1.2 $/h with one busy, 3.0 with two (1.5 each). */
    static final NodeType PER_GPU = new NodeType("E", "T4", 2, new double[] {0.5, 1.2, 3.0});
    /** Cheapest of all, but no node of the cluster can run as it. */
    static final NodeType ABSENT = NodeType.priced("X", "P600", 1, 0.1);

    static final Cluster CLUSTER = new Cluster(
            List.of(WHOLE, PER_GPU, ABSENT), List.of(Node.fixed("e1", "E"), new Node("r1", null, List.of("W"))));

    static Job job(String id, Map<String, Map<Integer, Double>> times) {
        return new Job(id, 0, 100_000, 1, times);
    }

    /** A: W x1 3600 s (1 $), W x8 900 s (2 $), E x1 2700 s (0.75 h x 1.2 = 0.9 $), E x2 2000 s (1.33 $), X ignored. */
    static final Job A = job(
            "A",
            Map.of(
                    "W", Map.of(1, 3600.0, 8, 900.0),
                    "E", Map.of(1, 2700.0, 2, 2000.0),
                    "X", Map.of(1, 100.0)));
    /** B: only W x2 for 2 h: 2 GPUs x 2 h x 1 $. */
    static final Job B = job("B", Map.of("W", Map.of(2, 7200.0)));
    /** C: only on the type no node takes. */
    static final Job C = job("C", Map.of("X", Map.of(1, 3600.0)));

    @Test
    void aBusyGpuCostsAtLeastItsTypesCheapestShare() {
        assertEquals(1.0, WHOLE.cheapestGpuHour(), 1e-15);
        assertEquals(1.2, PER_GPU.cheapestGpuHour(), 1e-15); // 1.2 / 1 < 3.0 / 2
        assertEquals(0.1, ABSENT.cheapestGpuHour(), 1e-15);
    }

    @Test
    void eachJobPaysItsCheapestConfigurationOnTheTypesTheClusterHas() {
        assertEquals(0.9, CostLowerBound.ofJob(CLUSTER, A), 1e-12);
        assertEquals(4.0, CostLowerBound.ofJob(CLUSTER, B), 1e-12);
        assertEquals(1.8, CostLowerBound.ofJob(CLUSTER, A, 2.0), 1e-12);
        assertEquals(4.9, CostLowerBound.of(CLUSTER, List.of(A, B)), 1e-12);
        assertTrue(Double.isNaN(CostLowerBound.ofJob(CLUSTER, C)));
        assertTrue(Double.isNaN(CostLowerBound.of(CLUSTER, List.of(A, B, C))));
    }

    @Test
    void noScheduleOfTheHandWorkedInstancePaysLess() {
        // A alone on e1 with one GPU (2700 s at 1.2 $/h), B on r1 as W with two GPUs (2 h at 8 $/h): 0.9 + 16
        double cheapestRun = RealCost.nodeCost(PER_GPU, 1, 2700) + RealCost.nodeCost(WHOLE, 2, 7200);
        assertEquals(16.9, cheapestRun, 1e-12);
        assertTrue(CostLowerBound.of(CLUSTER, List.of(A, B)) <= cheapestRun);
        // A and B together on r1 as W: a whole VM for 2 h costs 16, which the bound's 1 $ per GPU-hour shares out
        assertTrue(CostLowerBound.of(CLUSTER, List.of(A, B)) <= RealCost.nodeCost(WHOLE, 3, 7200));
    }

    /**
     * A's configurations for a job due 1800 s after its submission at {@code weightPerHour} $ per hour late: only W x8
     * (900 s, 2 $) is on time; E x1 (2700 s, 0.9 $) is 900 s late, E x2 (2000 s, 1.33 $) 200 s, W x1 (3600 s, 1 $)
     * 1800 s.
     */
    static Job dueSoon(double weightPerHour) {
        return new Job("D", 1000, 2800, weightPerHour, A.times());
    }

    @Test
    void aJobWhoseCheapestShareEndsLatePaysItsLatenessOrAFasterMix() {
        // 2 $/h: E x1 and 0.25 h late, 0.9 + 0.5 = 1.4, is least (E x2: 1.33 + 0.11; the mixes below: 1.45 and more)
        assertEquals(1.4, CostLowerBound.ofJob(CLUSTER, dueSoon(2)), 1e-12);
        // 10 $/h: every configuration late pays more (E x2: 1.33 + 0.56 = 1.89) than W x8 (2.0) mixed with E x1 to
        // end at 1800 s: half the work each (0.5 x 900 + 0.5 x 2700 s), 0.5 x 2.0 + 0.5 x 0.9 = 1.45 $
        assertEquals(1.45, CostLowerBound.ofJob(CLUSTER, dueSoon(10)), 1e-12);
        // with no weight, or with the cheapest share on time, due dates change nothing
        assertEquals(0.9, CostLowerBound.ofJob(CLUSTER, dueSoon(0)), 1e-12);
        assertEquals(0.9, CostLowerBound.ofJob(CLUSTER, new Job("D", 1000, 3700, 10, A.times())), 1e-12);
        // a time factor of 2 leaves W x8 (1800 s, 4 $) the only one on time, just, so no mix ends earlier; the others
        // late: E x1 1.8 + 10 x 1.0, E x2 2.67 + 10 x 0.61, W x1 2 + 10 x 1.5
        assertEquals(4.0, CostLowerBound.ofJob(CLUSTER, dueSoon(10), 2.0), 1e-12);
    }

    @Test
    void noConfigurationRunWholeFromSubmissionPaysLessThanTheBound() {
        for (double weight : new double[] {0, 0.5, 2, 10, 100}) {
            Job d = dueSoon(weight);
            double bound = CostLowerBound.ofJob(CLUSTER, d);
            for (var byType : d.times().entrySet()) {
                if (byType.getKey().equals("X")) continue;
                NodeType type = byType.getKey().equals("W") ? WHOLE : PER_GPU;
                for (var e : byType.getValue().entrySet()) {
                    double seconds = e.getValue();
                    double alone = RealCost.nodeCost(type, e.getKey(), seconds)
                            + RealCost.tardinessCost(weight, d.submitSeconds() + seconds, d.dueSeconds());
                    assertTrue(bound <= alone + 1e-12, weight + " $/h, " + byType.getKey() + " x" + e.getKey());
                }
            }
        }
    }
}
