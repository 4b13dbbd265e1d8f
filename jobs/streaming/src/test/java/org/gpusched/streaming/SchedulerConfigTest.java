package org.gpusched.streaming;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.ObjectOutputStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.apache.flink.configuration.Configuration;
import org.gpusched.core.model.MoveCost;
import org.junit.jupiter.api.Test;

class SchedulerConfigTest {
    @Test
    void invalidValuesAreRejectedWithAMessageNamingThem() {
        var cluster = TestData.oneGpuNodes(2, 600);
        assertTrue(assertThrows(
                        IllegalArgumentException.class,
                        () -> TestData.config(cluster, "nope").build())
                .getMessage()
                .contains("unknown policy 'nope'"));
        assertTrue(assertThrows(
                        IllegalArgumentException.class,
                        () -> TestData.config(cluster, "fifo").controllers(3).build())
                .getMessage()
                .contains("gpusched.controllers must not exceed the cluster's nodes (2)"));
        assertTrue(assertThrows(
                        IllegalArgumentException.class,
                        () -> TestData.config(cluster, "fifo").noise(1.5).build())
                .getMessage()
                .contains("noise"));
        assertTrue(assertThrows(
                        IllegalArgumentException.class,
                        () -> TestData.config(cluster, "fifo").periodSeconds(0).build())
                .getMessage()
                .contains("period"));
        assertTrue(assertThrows(
                        IllegalArgumentException.class,
                        () -> TestData.config(cluster, "fifo")
                                .policies(List.of("fifo", "fifo"))
                                .build())
                .getMessage()
                .contains("twice"));
        assertTrue(assertThrows(
                        IllegalArgumentException.class,
                        () -> TestData.config(cluster, "fifo")
                                .watermarkInterval(Duration.ZERO)
                                .build())
                .getMessage()
                .contains("gpusched.watermark-interval must be >= 0.001 seconds (1 ms), got 0"));
    }

    @Test
    void defaultsComeFromTheClusterFileAndTheConfigIsSerializable() throws Exception {
        SchedulerConfig cfg =
                TestData.config(TestData.oneGpuNodes(2, 600), "fifo").build();
        assertEquals(600, cfg.periodSeconds());
        assertEquals(600, cfg.objective().horizonSeconds());
        assertEquals(100, cfg.objective().rho());
        new ObjectOutputStream(new ByteArrayOutputStream()).writeObject(cfg);
        assertEquals(2, cfg.toBuilder().build().cluster().nodeCount());
    }

    @Test
    void fromFlinkConfiguration() throws Exception {
        Path cluster = Path.of(SchedulerConfigTest.class
                .getResource("/replay/small-cluster.yaml")
                .toURI());
        Configuration conf = new Configuration();
        conf.set(SchedulerOptions.CLUSTER_FILE, cluster.toString());
        conf.set(SchedulerOptions.POLICIES, List.of("fifo", "andreas-rg"));
        conf.set(SchedulerOptions.CONTROLLERS, 2);
        conf.set(SchedulerOptions.PERIOD_SECONDS, 120.0);
        conf.set(SchedulerOptions.MODE, SchedulerConfig.Mode.LIVE);
        conf.set(SchedulerOptions.CHECKPOINT_INTERVAL, Duration.ofSeconds(10));
        conf.set(SchedulerOptions.WATERMARK_INTERVAL, Duration.ofMillis(50));
        SchedulerConfig cfg = SchedulerConfig.fromConfiguration(conf);
        assertEquals(List.of("fifo", "andreas-rg"), cfg.policies());
        assertEquals(2, cfg.controllers());
        assertEquals(1, cfg.controllerOfNode(3));
        assertEquals(120, cfg.periodSeconds());
        assertEquals(SchedulerConfig.Mode.LIVE, cfg.mode());
        assertEquals(Duration.ofSeconds(10), cfg.checkpointInterval());
        assertEquals(Duration.ofMillis(50), cfg.watermarkInterval());
        Configuration unset = new Configuration(conf);
        unset.removeConfig(SchedulerOptions.WATERMARK_INTERVAL);
        assertEquals(
                Duration.ofMillis(20), SchedulerConfig.fromConfiguration(unset).watermarkInterval());
        assertEquals(4, cfg.nodes().size());
        assertThrows(IllegalArgumentException.class, () -> SchedulerConfig.fromConfiguration(new Configuration()));
    }

    @Test
    void unsetOptionsTakeTheirConfigOptionsDefaults() {
        SchedulerConfig cfg = SchedulerConfig.builder()
                .cluster(TestData.oneGpuNodes(2, 600))
                .policy("fifo")
                .build();
        assertEquals(SchedulerOptions.SEED.defaultValue(), cfg.seed());
        assertEquals(SchedulerOptions.MAX_ITERATIONS.defaultValue(), cfg.maxIterations());
        assertEquals(SchedulerOptions.CONTROLLERS.defaultValue(), cfg.controllers());
        assertEquals(SchedulerOptions.DISPATCH.defaultValue(), cfg.dispatch());
        assertEquals(SchedulerOptions.NOISE.defaultValue(), cfg.noise());
        assertEquals(SchedulerOptions.STABILITY.defaultValue(), cfg.stability());
        assertEquals(SchedulerOptions.MOVE_OVERHEAD_SECONDS.defaultValue(), cfg.moveOverheadSeconds());
        assertEquals(SchedulerOptions.SNAPSHOT_INTERVAL_SECONDS.defaultValue(), cfg.snapshotIntervalSeconds());
        assertEquals(SchedulerOptions.MODE.defaultValue(), cfg.mode());
        assertEquals(SchedulerOptions.CHECKPOINT_INTERVAL.defaultValue(), cfg.checkpointInterval());
        assertEquals(SchedulerOptions.IDLE_TIMEOUT.defaultValue(), cfg.idleTimeout());
        assertEquals(SchedulerOptions.WATERMARK_INTERVAL.defaultValue(), cfg.watermarkInterval());
        assertEquals(new MoveCost(600, 300), cfg.moveCost());
    }

    @Test
    void aRandomizedCallStopsWithoutGainAfterThreeTenthsOfMaxItOnlyWithLocalControllersOnVmsUnlessTold() {
        var cluster = TestData.rightsizableNodes(4, 600);
        assertEquals(SchedulerOptions.AUTO, SchedulerOptions.ITERATIONS_WITHOUT_GAIN.defaultValue());
        assertEquals(
                0, TestData.config(cluster, "andreas-rg").build().policyConfig().iterationsWithoutGain());
        SchedulerConfig local = TestData.config(cluster, "andreas-rg")
                .controllers(2)
                .maxIterations(1000)
                .build();
        assertEquals(300, local.policyConfig().iterationsWithoutGain());
        assertEquals(SchedulerOptions.AUTO, local.toBuilder().build().iterationsWithoutGainSetting());
        assertEquals(
                0,
                TestData.config(TestData.oneGpuNodes(4, 600), "andreas-rg")
                        .controllers(2)
                        .maxIterations(1000)
                        .build()
                        .iterationsWithoutGain(),
                "fixed nodes run every iteration");
        assertEquals(
                60,
                TestData.config(cluster, "andreas-rg")
                        .controllers(2)
                        .maxIterations(200)
                        .build()
                        .iterationsWithoutGain());
        assertEquals(
                0,
                TestData.config(cluster, "andreas-rg")
                        .controllers(2)
                        .iterationsWithoutGain("0")
                        .build()
                        .iterationsWithoutGain());
        assertEquals(
                120,
                TestData.config(cluster, "andreas-rg")
                        .iterationsWithoutGain("120")
                        .build()
                        .policyConfig()
                        .iterationsWithoutGain());
        assertEquals(
                "gpusched.iterations-without-gain must be auto or a count >= 0 (0: every iteration), got -1",
                refusal("gpusched.iterations-without-gain", "-1"));
        assertEquals(
                "gpusched.iterations-without-gain must be auto or a count >= 0 (0: every iteration), got often",
                refusal("gpusched.iterations-without-gain", "often"));
    }

    /** The message of the configuration {@code key: value} fails with. */
    private static String refusal(String key, String value) {
        Configuration conf = new Configuration();
        conf.setString(key, value);
        return assertThrows(
                        IllegalArgumentException.class,
                        () -> TestData.config(TestData.oneGpuNodes(2, 600), "fifo")
                                .options(conf)
                                .build())
                .getMessage();
    }

    @Test
    void aValueOfTheWrongTypeOrAnUnknownKeyIsNamedByItsKey() {
        var cluster = TestData.oneGpuNodes(2, 600);
        assertEquals(
                "gpusched.max-iterations must be an integer, got 'many'", refusal("gpusched.max-iterations", "many"));
        assertEquals(
                "gpusched.dispatch must be one of round-robin, gpu-weighted, got 'nearest'",
                refusal("gpusched.dispatch", "nearest"));
        assertEquals("gpusched.noise must be in [0, 1), got 1", refusal("gpusched.noise", "1"));
        assertTrue(refusal("gpusched.controlers", "2").startsWith("unknown option gpusched.controlers"));
        Configuration gpuWeighted = new Configuration();
        gpuWeighted.setString("gpusched.dispatch", "gpu_weighted");
        assertEquals(
                SchedulerConfig.Dispatch.GPU_WEIGHTED,
                TestData.config(cluster, "fifo").options(gpuWeighted).build().dispatch());
    }
}
