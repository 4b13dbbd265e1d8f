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
                .contains("controllers (3)"));
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
                .contains("watermark interval"));
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
        conf.set(SchedulerConfig.CLUSTER_FILE, cluster.toString());
        conf.set(SchedulerConfig.POLICIES, List.of("fifo", "andreas-rg"));
        conf.set(SchedulerConfig.CONTROLLERS, 2);
        conf.set(SchedulerConfig.PERIOD_SECONDS, 120.0);
        conf.set(SchedulerConfig.MODE, SchedulerConfig.Mode.LIVE);
        conf.set(SchedulerConfig.CHECKPOINT_INTERVAL, Duration.ofSeconds(10));
        conf.set(SchedulerConfig.WATERMARK_INTERVAL, Duration.ofMillis(50));
        SchedulerConfig cfg = SchedulerConfig.fromConfiguration(conf);
        assertEquals(List.of("fifo", "andreas-rg"), cfg.policies());
        assertEquals(2, cfg.controllers());
        assertEquals(1, cfg.controllerOfNode(3));
        assertEquals(120, cfg.periodSeconds());
        assertEquals(SchedulerConfig.Mode.LIVE, cfg.mode());
        assertEquals(Duration.ofSeconds(10), cfg.checkpointInterval());
        assertEquals(Duration.ofMillis(50), cfg.watermarkInterval());
        Configuration unset = new Configuration(conf);
        unset.removeConfig(SchedulerConfig.WATERMARK_INTERVAL);
        assertEquals(
                Duration.ofMillis(20), SchedulerConfig.fromConfiguration(unset).watermarkInterval());
        assertEquals(4, cfg.nodes().size());
        assertThrows(IllegalArgumentException.class, () -> SchedulerConfig.fromConfiguration(new Configuration()));
    }
}
