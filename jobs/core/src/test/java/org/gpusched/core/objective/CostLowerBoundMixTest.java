package org.gpusched.core.objective;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.gpusched.core.model.Job;

/**
 * The bound's due-date term against a brute force: on random jobs of the {@link CostLowerBoundTest} cluster, the
 * least of share + lateness over every mix of two configurations (a fine grid of the fraction of work in each, pure
 * configurations included) is never below the bound and is within the grid's step of it. The least over the hull
 * lies on such a mix (a configuration, or the lower edge where the job ends at its due date), so the two must meet.
 */
class CostLowerBoundMixTest {
    private static final int STEPS = 4000;

    @Property(tries = 400)
    void theBoundIsTheLeastOverMixesOfConfigurations(@ForAll long seed) {
        Random random = new Random(seed);
        Map<String, Map<Integer, Double>> times = new HashMap<>();
        int configurations = 1 + random.nextInt(6);
        for (int c = 0; c < configurations; c++) {
            boolean whole = random.nextBoolean();
            int gpus = whole ? 1 + random.nextInt(8) : 1 + random.nextInt(2);
            times.computeIfAbsent(whole ? "W" : "E", k -> new HashMap<>()).put(gpus, 600.0 + random.nextInt(20_000));
        }
        double submit = random.nextInt(10_000);
        double due = submit + random.nextInt(25_000);
        double weight = random.nextBoolean() ? 0 : random.nextDouble() * 20;
        double factor = 0.5 + random.nextDouble();
        Job job = new Job("R", submit, due, weight, times);

        int n = 0;
        double[] time = new double[12], share = new double[12];
        for (var byType : times.entrySet()) {
            double gpuHour = byType.getKey().equals("W") ? 1.0 : 1.2;
            for (var e : byType.getValue().entrySet()) {
                time[n] = e.getValue() * factor;
                share[n] = time[n] / 3600 * e.getKey() * gpuHour;
                n++;
            }
        }
        double least = Double.POSITIVE_INFINITY, steepest = 0;
        for (int a = 0; a < n; a++)
            for (int b = 0; b < n; b++) {
                steepest =
                        Math.max(steepest, Math.abs(share[a] - share[b]) + weight * Math.abs(time[a] - time[b]) / 3600);
                for (int k = 0; k <= STEPS; k++) {
                    double x = (double) k / STEPS;
                    double t = x * time[a] + (1 - x) * time[b];
                    double c = x * share[a] + (1 - x) * share[b];
                    least = Math.min(least, c + RealCost.tardinessCost(weight, submit + t, due));
                }
            }
        double bound = CostLowerBound.ofJob(CostLowerBoundTest.CLUSTER, job, factor);
        assertTrue(bound <= least + 1e-9, "bound " + bound + " above a mix's " + least);
        assertTrue(least <= bound + steepest / STEPS + 1e-9, "bound " + bound + " below every mix, least " + least);
    }
}
