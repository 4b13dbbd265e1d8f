package org.gpusched.placement.model;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.gpusched.core.random.RandomState;
import org.gpusched.placement.model.TargetWorkload.TaskClass;
import org.junit.jupiter.api.Test;

/** The grouped, binary-searched evaluation of F_n(M) equals the definition applied class by class. */
class FragmentationDefinitionTest {
    private static final String[] MODELS = {"G2", "T4"};
    private static final int[] MILLI = {100, 250, 460, 500, 810, 1000};

    /**
     * F_n(m) straight from the simulator's definition: all free milli for a CPU-only class or a class that cannot run,
     * else the GPUs too small for it.
     */
    private static double naive(List<TaskClass> classes, long cpuFree, int[] free, String model) {
        long total = 0;
        for (int f : free) total += f;
        double sum = 0;
        for (TaskClass m : classes) {
            boolean modelOk = m.gpuModels().isEmpty() || m.gpuModels().contains(model);
            int usable = 0;
            for (int f : free) if (f >= m.gpuMilliPerGpu() && m.gpuCount() > 0) usable++;
            boolean gpuOk = m.gpuCount() == 0 || usable >= m.gpuCount();
            boolean runs = modelOk && gpuOk && m.cpuMilli() <= cpuFree;
            double fm;
            if (!runs || m.gpuCount() == 0) fm = total;
            else {
                fm = 0;
                for (int f : free) if (f < Math.min(m.gpuMilliPerGpu(), 1000) && m.gpuCount() > 0) fm += f;
            }
            sum += m.popularity() * fm;
        }
        return sum;
    }

    @Test
    void groupedEvaluationMatchesTheDefinitionOnRandomNodesAndWorkloads() {
        RandomState r = new RandomState(2024);
        for (int trial = 0; trial < 3000; trial++) {
            List<TaskClass> classes = new ArrayList<>();
            int n = 1 + r.nextInt(12);
            for (int i = 0; i < n; i++) {
                int kind = r.nextInt(3);
                int gpus = kind == 0 ? 0 : kind == 1 ? 1 : 1 + r.nextInt(8);
                int milli = kind == 0 ? 0 : kind == 1 ? MILLI[r.nextInt(MILLI.length - 1)] : 1000;
                Set<String> models = r.nextInt(4) == 0 ? Set.of(MODELS[r.nextInt(2)]) : Set.of();
                classes.add(new TaskClass(1000L * r.nextInt(40), gpus, milli, models, 1 + r.nextInt(9)));
            }
            TargetWorkload w = new TargetWorkload(classes);
            int gpuCount = 1 + r.nextInt(8);
            int[] free = new int[gpuCount];
            for (int g = 0; g < gpuCount; g++)
                free[g] = r.nextInt(3) == 0 ? 1000 : r.nextInt(3) == 0 ? 0 : 10 * r.nextInt(101);
            long cpuFree = 500L * r.nextInt(80);
            int model = r.nextInt(2);
            double fast = w.bind(MODELS).fragmentation(cpuFree, free, gpuCount, model);
            assertEquals(naive(w.classes(), cpuFree, free, MODELS[model]), fast, 1e-6, "trial " + trial);
        }
    }
}
