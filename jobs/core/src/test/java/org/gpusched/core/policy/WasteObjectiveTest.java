package org.gpusched.core.policy;

import static org.gpusched.core.policy.Instances.PAPER;
import static org.gpusched.core.policy.Instances.job;
import static org.gpusched.core.policy.Instances.times;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.gpusched.core.model.Cluster;
import org.gpusched.core.model.JobState;
import org.gpusched.core.model.Node;
import org.gpusched.core.model.NodeType;
import org.gpusched.core.model.Placement;
import org.gpusched.core.model.SchedulingProblem;
import org.gpusched.core.objective.ObjectiveFunction;
import org.gpusched.core.objective.WasteObjective;
import org.junit.jupiter.api.Test;

/** The waste objective f_W that {@code andreas-rg} ranks its constructions by, worked by hand. */
class WasteObjectiveTest {
    private static final double EPS = 1e-9;
    /** A VM leased whole: 2 GPUs at 2 $/h however many are busy, so one GPU-hour costs at least 1 $. */
    private static final NodeType VM = NodeType.priced("A", "V100", 2, 2.0);
    /** 4 GPUs at 4 $/h, leased whole. */
    private static final NodeType BIG = NodeType.priced("B", "V100", 4, 4.0);

    @Test
    void wasteRanksByWhatTheNodeCostsToTheEndWhereFObjSeesOnlyTheFirstJobsEnd() {
        // One VM of 4 GPUs leased whole at 4 $/h (1 $ per GPU-hour at best), two jobs due late:
        // j1 {1 GPU: 3600 s, 2: 2000 s, 3: 1500 s}, cheapest share 1 $; j2 {1 GPU: 7200 s, 2: 3700 s}, 2 $.
        Cluster cluster = new Cluster(List.of(BIG), List.of(Node.fixed("n0", "B")));
        SchedulingProblem problem = new SchedulingProblem(
                0,
                cluster,
                List.of(
                        JobState.waiting(job("j1", 0, 100_000, 1, times("B", 1, 3600, 2, 2000, 3, 1500))),
                        JobState.waiting(job("j2", 0, 100_000, 1, times("B", 1, 7200, 2, 3700)))),
                null,
                PAPER);
        assertEquals(1.0, problem.cheapestShare(0), EPS);
        assertEquals(2.0, problem.cheapestShare(1), EPS);
        Placement[] halves = {new Placement(0, 0, 2), new Placement(0, 0, 2)};
        Placement[] rushFirst = {new Placement(0, 0, 3), new Placement(0, 0, 1)};
        int[] on = {0};

        // f_OBJ: the node until its first job ends. Halves: 2000 s x 4 $/h = 2.222; rushing j1 on 3 GPUs: 1500 s x
        // 4 $/h = 1.667, so f_OBJ prefers the rush.
        assertEquals(2000 * 4 / 3600.0, ObjectiveFunction.evaluate(problem, halves, on), EPS);
        assertEquals(1500 * 4 / 3600.0, ObjectiveFunction.evaluate(problem, rushFirst, on), EPS);
        // f_W: 4 $ spent over H = 1 h less the progress earned at the cheapest shares. Halves: 4 - 3600 x 1 / 2000 -
        // 3600 x 2 / 3700 = 0.254; rush: 4 - 3600 x 1 / 1500 - 3600 x 2 / 7200 = 0.6, so f_W prefers the halves.
        assertEquals(4 - 1.8 - 7200.0 / 3700, WasteObjective.evaluate(problem, halves, on), EPS);
        assertEquals(4 - 2.4 - 1.0, WasteObjective.evaluate(problem, rushFirst, on), EPS);
        // And so does the real cost: the VM is paid until its last job ends, 3700 s (4.11 $) against 7200 s (8 $).
    }

    @Test
    void wasteCountsAMovedJobsRestoreAndLostProgressOnceAtItsCheapestShare() {
        // One VM, j0 half done on 1 GPU {1 GPU: 7200 s, 2 GPUs: 4000 s}: 3600 s left there, 2000 s on 2 GPUs without
        // a move, cheapest share min(1 x 3600, 2 x 2000) s x 1 $/GPU-hour = 1 $.
        SchedulingProblem free = runningOnOneGpu(0.5, 0);
        assertEquals(1.0, free.cheapestShare(0), EPS);
        Placement twoGpus = new Placement(0, 0, 2);
        assertEquals(0, WasteObjective.moveWaste(free, 0, 0, 2, free.remainingAt(0, twoGpus)), EPS);
        // Charged: a quarter done at the last snapshot and 360 s to restore, so on 2 GPUs 4000 x 0.75 + 360 = 3360 s
        // instead of 2000: 1360 / 2000 of its work wasted once, at its cheapest share of 1 $: 0.68.
        SchedulingProblem charged = runningOnOneGpu(0.25, 360);
        assertEquals(3360, charged.remainingAt(0, twoGpus), EPS);
        assertEquals(0.68, WasteObjective.moveWaste(charged, 0, 0, 2, charged.remainingAt(0, twoGpus)), EPS);
        // Staying where it runs wastes nothing, and f_W adds the move's waste only to the moved plan.
        Placement stays = new Placement(0, 0, 1);
        assertEquals(0, WasteObjective.moveWaste(charged, 0, 0, 1, charged.remainingAt(0, stays)), EPS);
        double moved = WasteObjective.evaluate(charged, new Placement[] {twoGpus}, new int[] {0});
        double unchargedMove = WasteObjective.evaluate(free, new Placement[] {twoGpus}, new int[] {0});
        // 2 $ spent over H, progress 3600 x 1 / 3360 earned, plus the move's 0.68.
        assertEquals(2 - 3600.0 / 3360 + 0.68, moved, EPS);
        assertEquals(2 - 3600.0 / 2000, unchargedMove, EPS);
    }

    private static SchedulingProblem runningOnOneGpu(double doneIfRestarted, double restartSeconds) {
        Cluster one = new Cluster(List.of(VM), List.of(Node.fixed("n0", "A")));
        JobState running = new JobState(
                job("j0", 0, 100_000, 1, times("A", 1, 7200, 2, 4000)),
                0.5,
                new Placement(0, 0, 1),
                doneIfRestarted,
                restartSeconds);
        return new SchedulingProblem(1800, one, List.of(running), new int[] {0}, PAPER);
    }
}
