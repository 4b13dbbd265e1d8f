package org.gpusched.streaming.placement;

import java.util.ArrayList;
import java.util.List;
import org.gpusched.placement.experiment.InflationExperiment;
import org.gpusched.placement.experiment.PolicySpec;
import org.gpusched.placement.model.NodeSpec;
import org.gpusched.placement.model.PowerCatalog;
import org.gpusched.placement.model.Task;

/** A small cluster (6 G2 x 8 GPUs, 4 T4 x 2) and a 30-task trace mixing shares, whole and 4-GPU and CPU-only tasks. */
final class InflationFixture {
    private InflationFixture() {}

    static List<NodeSpec> nodes() {
        List<NodeSpec> nodes = new ArrayList<>();
        for (int i = 0; i < 6; i++)
            nodes.add(new NodeSpec("g2-" + i, 96000, 393216, 8, PowerCatalog.gpu("G2"), PowerCatalog.XEON_E5_2682_V4));
        for (int i = 0; i < 4; i++)
            nodes.add(new NodeSpec("t4-" + i, 104000, 524288, 2, PowerCatalog.gpu("T4"), PowerCatalog.XEON_E5_2682_V4));
        return nodes;
    }

    static List<Task> trace() {
        int[] milli = {1000, 500, 250, 800, 1000, 1000};
        List<Task> trace = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            int m = milli[i % milli.length];
            trace.add(
                    i % 10 == 9
                            ? Task.of("w" + i, 8000, 1024, 4, 1000)
                            : i % 7 == 3
                                    ? Task.of("c" + i, 4000, 1024, 0, 0)
                                    : Task.of("s" + i, 2000 + 1000L * (i % 5), 4096, 1, m));
        }
        return trace;
    }

    static InflationExperiment.Config config(int threads) {
        return new InflationExperiment.Config(
                nodes(),
                trace(),
                List.of(
                        new PolicySpec("fgd", Double.NaN),
                        new PolicySpec("pwr-fgd", 0.1),
                        new PolicySpec("random", Double.NaN)),
                List.of(4L, 5L),
                1.3,
                0.05,
                threads);
    }
}
