package org.gpusched.placement.model;

import static org.gpusched.placement.model.Nodes.node;
import static org.gpusched.placement.model.Nodes.task;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.gpusched.placement.model.TargetWorkload.TaskClass;
import org.junit.jupiter.api.Test;

class FragmentationTest {
    /** A: 1 vCPU + half a GPU (p .5), B: 1 vCPU + one whole GPU (p .25), C: 2 vCPU, no GPU (p .25). */
    private static final TargetWorkload M = new TargetWorkload(List.of(
            new TaskClass(1000, 1, 500, Set.of(), 2),
            new TaskClass(1000, 1, 1000, Set.of(), 1),
            new TaskClass(2000, 0, 0, Set.of(), 1)));

    private static double f(TargetWorkload w, long cpuFree, int... gpuFree) {
        return w.bind(new String[] {"G2"}).fragmentation(cpuFree, gpuFree, gpuFree.length, 0);
    }

    @Test
    void classesThatFitSeeOnlyGpusTooSmallForThem() {
        // free 2300 milli: A and B can both run; for both only the 300-milli GPU is unusable.
        assertEquals(0.5 * 300 + 0.25 * 300 + 0.25 * 2300, f(M, 8000, 1000, 1000, 300, 0), 1e-9);
    }

    @Test
    void aCpuOnlyClassCountsEveryIdleGpuEvenWhenItsCpuFits() {
        // the simulator's XL (CPU fits) and XR (CPU lacking) cases: a task using no GPU leaves all free GPU milli idle
        TargetWorkload cpuOnly = new TargetWorkload(List.of(new TaskClass(2000, 0, 0, Set.of(), 1)));
        assertEquals(2300, f(cpuOnly, 8000, 1000, 1000, 300, 0), 1e-9);
        assertEquals(2300, f(cpuOnly, 1000, 1000, 1000, 300, 0), 1e-9);
        assertEquals(0, f(cpuOnly, 8000, 0, 0), 1e-9);
    }

    @Test
    void classesThatCannotRunSeeEveryFreeMilliAsFragment() {
        assertEquals(2300, f(M, 500, 1000, 1000, 300, 0), 1e-9); // no class has its CPU
        // cpu 1500: A and B fit (300 unusable each), C lacks CPU and sees all 2300
        assertEquals(0.5 * 300 + 0.25 * 300 + 0.25 * 2300, f(M, 1500, 1000, 1000, 300, 0), 1e-9);
    }

    @Test
    void mixedCpuAndGpuShortage() {
        // cpu 1500: A, B fit on CPU; C (2 vCPU) cannot run -> all 2300 for C. GPUs [400, 300]: A (500) cannot, B
        // cannot.
        assertEquals(0.25 * 700 + 0.5 * 700 + 0.25 * 700, f(M, 1500, 400, 300), 1e-9);
        // cpu 1500, GPUs [600, 300]: A fits, unusable 300; B cannot (no whole GPU): 900; C lacks CPU: 900.
        assertEquals(0.5 * 300 + 0.25 * 900 + 0.25 * 900, f(M, 1500, 600, 300), 1e-9);
    }

    @Test
    void noFreeGpuMeansNoFragment() {
        assertEquals(0, f(M, 0, 0, 0), 1e-9);
    }

    @Test
    void aModelConstrainedClassCannotRunOnOtherModels() {
        TargetWorkload w = new TargetWorkload(List.of(new TaskClass(0, 1, 1000, Set.of("T4"), 1)));
        TargetWorkload.Meter meter = w.bind(new String[] {"G2", "T4"});
        assertEquals(1500, meter.fragmentation(1000, new int[] {1000, 500}, 2, 0), 1e-9);
        assertEquals(500, meter.fragmentation(1000, new int[] {1000, 500}, 2, 1), 1e-9);
    }

    @Test
    void theTargetWorkloadKeepsThePopularClassesCovering95PercentOfTasks() {
        // 100 tasks in 5 classes of 50, 30, 12, 5 and 3 tasks: 50+30+12 = 92% < 95%, so the 5-task class is kept too
        // (97%); the 3-task class is dropped and the kept popularity renormalised over 97 tasks.
        List<Task> tasks = new ArrayList<>();
        int[][] classes = {{3, 100}, {5, 200}, {50, 300}, {12, 400}, {30, 500}};
        for (int[] c : classes) for (int i = 0; i < c[0]; i++) tasks.add(task(1000L * c[1], 0, 1, c[1]));
        TargetWorkload w = TargetWorkload.fromTasks(tasks);
        assertEquals(
                List.of(300, 500, 400, 200),
                w.classes().stream().map(TaskClass::gpuMilliPerGpu).toList());
        assertEquals(50 / 97.0, w.classes().get(0).popularity(), 1e-12);
        assertEquals(5, TargetWorkload.fromTasks(tasks, 1.0).classes().size());
        assertEquals(1, TargetWorkload.fromTasks(tasks, 0.5).classes().size(), "the first class alone reaches 50%");
    }

    @Test
    void popularityComesFromTheTraceCounts() {
        TargetWorkload w = TargetWorkload.fromTasks(
                List.of(task(1000, 1, 1, 500), task(1000, 2, 1, 500), task(0, 0, 1, 1000), task(1000, 0, 0, 0)));
        assertEquals(3, w.classes().size(), "memory is not part of a class");
        assertEquals(0.5, w.classes().get(0).popularity(), 1e-12);
        assertEquals(3, w.gpuDemandGroups());
    }

    @Test
    void clusterStateCachesNodeFragmentationAndItsHypotheticalValuesAgree() {
        ClusterState c =
                new ClusterState(List.of(node("a", 8000, 1 << 20, 4, "G2"), node("b", 8000, 1 << 20, 2, "G2")), M);
        assertEquals(0.5 * 0 + 0.25 * 0 + 0.25 * 4000, c.nodeFragmentationMilli(0), 1e-9);
        Task share = task(1000, 0, 1, 700);
        double predicted = c.fragmentationAfter(share, 0, 2);
        c.place(share, c.placementOf(share, 0, 2));
        assertEquals(predicted, c.nodeFragmentationMilli(0), 1e-9);
        // GPUs [1000,1000,300,1000], cpu 7000: A unusable 300, B unusable 300, C all 3300 -> 0.75 * 300 + 0.25 * 3300
        assertEquals(0.75 * 300 + 0.25 * 3300, c.nodeFragmentationMilli(0), 1e-9);
        assertEquals(c.nodeFragmentationMilli(0) + c.nodeFragmentationMilli(1), c.fragmentationMilli(), 1e-9);
    }
}
