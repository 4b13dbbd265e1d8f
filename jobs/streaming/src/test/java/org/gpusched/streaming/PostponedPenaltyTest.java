package org.gpusched.streaming;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class PostponedPenaltyTest {
    @Test
    void theKeptSumIsTheJobByJobSumAsJobsComeLeaveAndBecomeLate() {
        Random random = new Random(3);
        double rho = 100;
        PostponedPenalty kept = new PostponedPenalty(rho);
        List<double[]> figures = new ArrayList<>();
        List<PostponedPenalty.Term> terms = new ArrayList<>();
        double now = 0;
        for (int step = 0; step < 2000; step++) {
            now += random.nextDouble() * 50;
            if (random.nextInt(3) > 0 || terms.isEmpty()) {
                double weight = random.nextInt(10) == 0 ? 0 : random.nextDouble() * 5;
                double offset = random.nextDouble() * 20_000 - 30_000 - now * 0.5;
                figures.add(new double[] {weight, offset});
                terms.add(kept.add(weight, offset));
            } else {
                int i = random.nextInt(terms.size());
                kept.remove(terms.remove(i));
                figures.remove(i);
            }
            double direct = 0;
            for (double[] f : figures) {
                double late = now + f[1];
                if (late > 0) direct += rho * f[0] * late / 3600.0;
            }
            assertEquals(direct, kept.total(now), 1e-9 * Math.max(1, direct), "at step " + step);
        }
    }
}
