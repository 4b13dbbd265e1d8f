package org.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.gpusched.powerflow.sim.TraceJob;
import org.gpusched.powerflow.truth.GroundTruth;
import org.junit.jupiter.api.Test;

class PowerflowScenariosTest {
    private static final GroundTruth TRUTH = GroundTruth.defaults();

    /** A job that runs {@code hours} on its GPUs at full clock. */
    private static TraceJob job(long id, double submitHours, int gpus, double hours) {
        double step =
                TRUTH.at("resnet50", gpus, 256, TRUTH.config().gpu().maxLimit()).stepTime();
        return new TraceJob(id, submitHours * 3600, "resnet50", 256, gpus, hours * 3600 / step);
    }

    @Test
    void demandIsTheGpusHeldWithNoQueueOverTheDayAndAtThePeak() {
        // 4 GPUs for 12 h from 0 h, 8 GPUs for 6 h from 6 h (overlap 6-12 h: 12 GPUs), 2 GPUs from 20 h for 10 h,
        // of which 4 h fall in the day
        List<TraceJob> jobs = List.of(job(1, 0, 4, 12), job(2, 6, 8, 6), job(3, 20, 2, 10));
        double[] demand = PowerflowScenarios.demand(jobs, TRUTH);
        assertEquals((4 * 12 + 8 * 6 + 2 * 4) / 24.0, demand[0], 1e-6, "GPU-hours within the 24 h over 24 h");
        assertEquals(12, demand[1], 1e-9, "the most GPUs held at once");
    }
}
