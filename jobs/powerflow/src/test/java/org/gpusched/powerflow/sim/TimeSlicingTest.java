package org.gpusched.powerflow.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.List;
import org.gpusched.powerflow.policy.GandivaPolicy;
import org.gpusched.powerflow.policy.LimitChoice;
import org.gpusched.powerflow.policy.TimeSlicing;
import org.gpusched.powerflow.truth.GroundTruth;
import org.junit.jupiter.api.Test;

/**
 * Gandiva's time-slicing in the shared event loop, on a noiseless ground truth so that every figure can be worked out
 * by hand: one node of 8 GPUs, resnet50 jobs at batch 256 on all 8 at 250 W; work is given in seconds of running.
 */
class TimeSlicingTest {
    private static final GroundTruth QUIET = NoiselessTruth.TRUTH;
    private static final GroundTruth.Outcome RUN = QUIET.at("resnet50", 8, 256, 250);
    private static final TimeSlicing MINUTE = TimeSlicing.GANDIVA;

    /** A job on all 8 GPUs whose work takes {@code seconds} of running. */
    private static TraceJob job(long id, double submit, double seconds) {
        return new TraceJob(id, submit, "resnet50", 256, 8, seconds / RUN.stepTime());
    }

    private static Simulation.Result run(TimeSlicing slicing, TraceJob... jobs) {
        return new Simulation(QUIET, 8, 1, new HashMap<>())
                .run(new GandivaPolicy(LimitChoice.fixed(250), slicing), List.of(jobs));
    }

    private static Simulation.JobResult result(Simulation.Result r, long id) {
        return r.jobs().stream().filter(j -> j.id() == id).findFirst().orElseThrow();
    }

    @Test
    void twoJobsWantingEveryGpuTakeTurnsInQuantaAndPayEachResume() {
        Simulation.Result r = run(MINUTE, job(1, 0, 150), job(2, 0, 150));
        // 1 runs [0, 60], 2 [60, 120] (a first start is free), 1 resumes [120, 180] with 1 s lost (59 s of work),
        // 2 likewise [180, 240], 1 resumes at 240: 31 s left after its second overhead, done at 272; 2 resumes when 1
        // completes (272), 1 s lost, done at 304 (no boundary at 300: nobody waits)
        assertEquals(272, result(r, 1).jct(), 0.002);
        assertEquals(304, result(r, 2).jct(), 0.002);
        // each job's GPUs drew its power for 152 s: 150 of work and two resumes
        assertEquals(152 * RUN.power(), result(r, 1).energyJoules(), 1e-6 * 152 * RUN.power());
        assertEquals(152 * RUN.power(), result(r, 2).energyJoules(), 1e-6 * 152 * RUN.power());
        double[] times = r.changes().stream()
                .mapToDouble(Simulation.Change::time)
                .distinct()
                .toArray();
        assertEquals(
                List.of(0.0, 60.0, 120.0, 180.0, 240.0, 272.0),
                java.util.Arrays.stream(times).boxed().toList());
        assertEquals(0, r.idleEnergyJoules(), 1e-9, "the node is full throughout");
    }

    @Test
    void withoutTimeSlicingTheSecondJobWaitsForTheFirst() {
        Simulation.Result r = run(TimeSlicing.NONE, job(1, 0, 150), job(2, 0, 150));
        assertEquals(150, result(r, 1).jct(), 0.002);
        assertEquals(300, result(r, 2).jct(), 0.002);
        assertEquals(150 * RUN.power(), result(r, 2).energyJoules(), 1e-6 * 150 * RUN.power());
        // the default policy is the same first come, first served
        Simulation.Result d = new Simulation(QUIET, 8, 1, new HashMap<>())
                .run(new GandivaPolicy(LimitChoice.fixed(250)), List.of(job(1, 0, 150), job(2, 0, 150)));
        assertEquals(r.changes(), d.changes());
        assertEquals(r.jobs(), d.jobs());
    }

    @Test
    void aJobArrivingToAFullClusterStartsAtTheNextQuantumBoundary() {
        Simulation.Result r = run(MINUTE, job(1, 0, 1000), job(2, 20, 100));
        Simulation.Change start = r.changes().stream()
                .filter(c -> c.job() == 2 && c.gpus() > 0)
                .findFirst()
                .orElseThrow();
        assertEquals(60, start.time(), 1e-9);
        // 2 runs [60, 120], 1 [120, 180] (resumed: 59 s of work), 2 resumes at 180: 40 s left after 1 s, done at 221
        assertEquals(221 - 20, result(r, 2).jct(), 0.002);
        // 1 had 60 + 59 s of work by 180, resumes when 2 completes at 221: 881 s left after 1 s, done at 1103
        assertEquals(1103, result(r, 1).jct(), 0.002);
        Simulation.Result fifo = run(TimeSlicing.NONE, job(1, 0, 1000), job(2, 20, 100));
        assertEquals(1000, result(fifo, 1).jct(), 0.002);
        assertEquals(1100 - 20, result(fifo, 2).jct(), 0.002);
    }

    @Test
    void aJobThatFitsStartsAtOnceAndNoBoundaryIsAnEventWhileNobodyWaits() {
        TraceJob half1 = new TraceJob(
                1,
                0,
                "resnet50",
                256,
                4,
                200 / QUIET.at("resnet50", 4, 256, 250).stepTime());
        TraceJob half2 = new TraceJob(
                2,
                20,
                "resnet50",
                256,
                4,
                200 / QUIET.at("resnet50", 4, 256, 250).stepTime());
        Simulation.Result r = run(MINUTE, half1, half2);
        assertEquals(200, result(r, 1).jct(), 0.002);
        assertEquals(200, result(r, 2).jct(), 0.002);
        assertTrue(
                r.power().stream().noneMatch(p -> p.time() == 60 || p.time() == 120),
                "no quantum event while nobody waits: " + r.power());
    }

    @Test
    void theResumeOverheadMustBeShorterThanTheQuantum() {
        org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class, () -> new TimeSlicing(60, 60));
        org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class, () -> new TimeSlicing(-1, 0));
    }

    @Test
    void theCommandLinesQuantumOfZeroIsNoTimeSlicingWhateverTheResume() {
        org.junit.jupiter.api.Assertions.assertSame(TimeSlicing.NONE, TimeSlicing.of(0, 5));
        assertEquals(new TimeSlicing(60, 5), TimeSlicing.of(60, 5));
        org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class, () -> TimeSlicing.of(60, 60));
    }
}
