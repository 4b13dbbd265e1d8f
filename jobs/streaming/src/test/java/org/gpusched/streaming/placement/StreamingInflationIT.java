package org.gpusched.streaming.placement;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.concurrent.atomic.AtomicInteger;
import org.gpusched.placement.experiment.InflationExperiment;
import org.gpusched.placement.experiment.InflationRun;
import org.junit.jupiter.api.Test;

/** End to end on a Flink mini cluster: the bounded stream gives exactly the plain-Java experiment's curves. */
class StreamingInflationIT {
    @Test
    void theStreamReproducesThePlainJavaExperiment() throws Exception {
        InflationExperiment.Config config = InflationFixture.config(2);
        AtomicInteger ended = new AtomicInteger();
        InflationExperiment.Result streamed = StreamingInflation.run(config, r -> ended.incrementAndGet());
        InflationExperiment.Result plain = InflationExperiment.run(config, r -> {});
        assertEquals(6, ended.get());
        assertEquals(plain.curve(), streamed.curve());
        assertEquals(
                plain.runs().stream().map(InflationRun.Result::failed).toList(),
                streamed.runs().stream().map(InflationRun.Result::failed).toList());
    }
}
