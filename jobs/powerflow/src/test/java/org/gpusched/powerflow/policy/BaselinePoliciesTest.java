package org.gpusched.powerflow.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class BaselinePoliciesTest {
    private static final double[] LIMITS = {100, 150, 200, 250};

    private static JobView request(long id, double submit, int gpus, double attained, boolean running) {
        return job(id, submit, gpus, attained, running, submit);
    }

    /** A job of model (0.01, 0, 200) running or waiting since {@code sinceSeconds}. */
    private static JobView job(
            long id, double submit, int gpus, double attained, boolean running, double sinceSeconds) {
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
                running ? new Assignment(gpus, 250) : Assignment.WAITING,
                false,
                sinceSeconds);
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

    private static JobView since(long id, double submit, int gpus, boolean running, double sinceSeconds) {
        return job(id, submit, gpus, running ? 1 : 0, running, sinceSeconds);
    }

    @Test
    void gandivaTimeSlicedSuspendsTheJobThatRanLongestForTheLongestWaiting() {
        ClusterView c = new ClusterView(4, 4, LIMITS, 200);
        GandivaPolicy g = new GandivaPolicy(LimitChoice.fixed(250), TimeSlicing.GANDIVA);
        JobView ranLong = since(1, 0, 2, true, 0); // running since 0: 120 s at the boundary
        JobView ranShort = since(2, 5, 2, true, 100); // started 20 s ago: keeps its quantum
        JobView suspendedEarly = since(3, 50, 2, false, 10); // waiting since 10
        JobView submittedFirst = since(4, 1, 2, false, 60); // suspended at 60, submitted before 3
        Map<Long, Assignment> d = g.decideAtQuantum(c, List.of(ranLong, ranShort, suspendedEarly, submittedFirst), 120);
        assertEquals(2, d.get(2L).gpus(), "ran less than a quantum since it started");
        assertEquals(2, d.get(3L).gpus(), "waited longest");
        assertEquals(0, d.get(1L).gpus(), "ran longest since its last resume: suspended");
        assertEquals(0, d.get(4L).gpus(), "back of the queue since its suspension");
        // between boundaries nothing is suspended: the waiting jobs wait
        Map<Long, Assignment> between = g.decide(c, List.of(ranLong, ranShort, suspendedEarly, submittedFirst));
        assertEquals(2, between.get(1L).gpus());
        assertEquals(2, between.get(2L).gpus());
        // without time-slicing a boundary changes nothing either
        Map<Long, Assignment> fifo = new GandivaPolicy(LimitChoice.fixed(250), TimeSlicing.NONE)
                .decideAtQuantum(c, List.of(ranLong, ranShort, suspendedEarly, submittedFirst), 120);
        assertEquals(2, fifo.get(1L).gpus());
        assertEquals(2, fifo.get(2L).gpus());
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
    void zeusKeepsTheLimitOfLeastZeusCostOverItsMeasuredWindows() {
        double[] limits = {100, 150, 200, 250};
        // n = 2: cost = 0.5 E + 0.5 x (250 x 2) x T per iteration
        double[] step = {2.0, 1.4, 1.1, 1.0}, energy = {500, 560, 600, 700};
        // 100 W: 250 + 500 = 750; 150 W: 280 + 350 = 630; 200 W: 300 + 275 = 575; 250 W: 350 + 250 = 600
        assertEquals(200, LimitChoice.zeusOptimum(limits, step, energy, 2));
        // on one GPU time weighs half as much: 100 W: 250 + 250 = 500; 150 W: 280 + 175 = 455; 200 W: 300 + 137.5
        assertEquals(200, LimitChoice.zeusOptimum(limits, step, energy, 1));
        assertEquals(100, LimitChoice.zeusOptimum(limits, new double[] {1, 1, 1, 1}, energy, 1));
        ClusterView c = new ClusterView(4, 4, limits, 200);
        // the job's own optimizer sets the limit: the scheduler starts it at the largest, as Zeus does before profiling
        assertTrue(LimitChoice.zeus().jobControlled());
        assertEquals(250, LimitChoice.zeus().limit(c, request(1, 0, 2, 0, false), 2));
        assertEquals(Profiling.ZEUS, new TiresiasPolicy(LimitChoice.zeus()).profiling());
        assertEquals(Profiling.NONE, new TiresiasPolicy(LimitChoice.fixed(175)).profiling());
        assertEquals(175, LimitChoice.fixed(175).limit(c, request(1, 0, 2, 0, false), 2));
    }
}
