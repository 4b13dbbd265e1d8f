package org.gpusched.powerflow.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class BaselinePoliciesTest {
    private static final double[] LIMITS = {100, 150, 200, 250};

    private static JobView request(long id, double submit, int gpus, double attained, boolean running) {
        return new JobView(
                id,
                submit,
                "w",
                64,
                gpus,
                1000,
                attained,
                64,
                Models.of(0.01, 0, 200),
                running ? new Assignment(gpus, 250) : Assignment.WAITING);
    }

    @Test
    void tiresiasRunsLeastAttainedServiceFirstAndSkipsWhatDoesNotFit() {
        ClusterView c = new ClusterView(4, 4, LIMITS, 200);
        JobView old = request(1, 0, 2, 40000, true); // third queue (>= 10 GPU-hours)
        JobView young = request(2, 10, 4, 100, false); // first queue, needs all four
        JobView small = request(3, 20, 1, 0, false); // first queue, arrives later
        Map<Long, Assignment> d = new TiresiasPolicy(LimitChoice.fixed(200)).decide(c, List.of(old, young, small));
        assertEquals(4, d.get(2L).gpus());
        assertEquals(0, d.get(1L).gpus(), "preempted by the job with less attained service");
        assertEquals(0, d.get(3L).gpus());
        assertEquals(200, d.get(2L).powerLimit());
    }

    @Test
    void gandivaNeverPreemptsARunningJob() {
        ClusterView c = new ClusterView(4, 4, LIMITS, 200);
        JobView running = request(5, 100, 3, 90000, true);
        JobView earlier = request(1, 0, 2, 0, false);
        Map<Long, Assignment> d = new GandivaPolicy(LimitChoice.fixed(250)).decide(c, List.of(earlier, running));
        assertEquals(3, d.get(5L).gpus());
        assertEquals(0, d.get(1L).gpus());
    }

    @Test
    void afsGivesEveryJobAGpuBeforeGrowingAnyAndGrowsInPowersOfTwo() {
        ClusterView c = new ClusterView(8, 8, LIMITS, 200);
        JobView a = request(1, 0, 1, 0, false), b = request(2, 0, 1, 0, false), e = request(3, 0, 1, 0, false);
        Map<Long, Assignment> d = new AfsPolicy(LimitChoice.fixed(250)).decide(c, List.of(a, b, e));
        int sum = 0;
        for (Assignment x : d.values()) {
            assertTrue(x.gpus() >= 1);
            assertEquals(1, Integer.bitCount(x.gpus()));
            sum += x.gpus();
        }
        assertTrue(sum <= 8 && sum >= 6, "spare GPUs used: " + sum);
    }

    @Test
    void zeusPicksALimitBelowTheMaximumWhenTheClockBarelyMattersForTime() {
        ClusterView c = new ClusterView(4, 4, LIMITS, 200);
        // step time dominated by sync (clock-insensitive here), power grows with f: the lowest limit is cheapest
        JobView j = new JobView(1, 0, "w", 64, 2, 1000, 0, 64, Models.of(0.0001, 1.0, 200), Assignment.WAITING);
        assertEquals(100, LimitChoice.zeus().limit(c, j, 2));
        assertEquals(175, LimitChoice.fixed(175).limit(c, j, 2));
    }
}
