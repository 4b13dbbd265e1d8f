package org.gpusched.workloads;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.gpusched.formats.FormatException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ApplicationCatalogTest {
    final ApplicationCatalog catalog = ApplicationCatalog.defaults();

    @Test
    void bundledModelHasEveryApplicationAndGpuOfThePapers() {
        for (String app : new String[] {
            "AlexNet", "ResNet", "VGG", "DeepSpeech", "EfficientNet", "ConvNet", "LSTM-big", "LSTM-small"
        }) {
            catalog.application(app);
        }
        for (String gpu : new String[] {
            "K80", "M60", "P600", "1080Ti", "V100", "T4", "P100", "V100M16", "V100M32", "A10", "G2", "G3"
        }) {
            assertTrue(catalog.hasGpu(gpu), gpu);
        }
        assertEquals(4, catalog.applicationsFor("hierarchical").size());
        assertEquals(4, catalog.applicationsFor("andreas").size());
    }

    @Test
    void speedUpIsSublinearAndIncreasing() {
        for (String name : new String[] {
            "AlexNet", "ResNet", "VGG", "DeepSpeech", "EfficientNet", "ConvNet", "LSTM-big", "LSTM-small"
        }) {
            var app = catalog.application(name);
            double previous = 1;
            assertEquals(1.0, ApplicationCatalog.speedup(app, 1), 1e-12);
            for (int g = 2; g <= 8; g++) {
                double s = ApplicationCatalog.speedup(app, g);
                assertTrue(s > previous, name + " speed-up must grow with GPUs");
                assertTrue(s < g, name + " speed-up must stay below linear, got " + s + " with " + g);
                previous = s;
            }
        }
    }

    @Test
    void timeGrowsWithEpochsAndShrinksWithBatchSizeAndFasterGpus() {
        var vgg = catalog.application("VGG");
        var k80 = catalog.gpu("K80");
        double t10 = catalog.executionSeconds(vgg, k80, 1, 10, 64);
        assertEquals(2 * t10, catalog.executionSeconds(vgg, k80, 1, 20, 64), 1e-6);
        assertTrue(
                catalog.executionSeconds(vgg, k80, 1, 10, 128) < t10, "larger batches amortise the per-step overhead");
        assertTrue(catalog.executionSeconds(vgg, catalog.gpu("1080Ti"), 1, 10, 64) < t10);
        assertTrue(catalog.executionSeconds(vgg, catalog.gpu("P600"), 1, 10, 64) > t10);
        // The model's own numbers, worked out: VGG on K80: slowdown = 0.9 x 14/4.37 + 0.1 x 900/240.
        double slowdown = 0.9 * 14.0 / 4.37 + 0.1 * 900.0 / 240.0;
        double epoch = 1281167 * 4.3 * slowdown / 1000 + Math.ceil(1281167 / 64.0) * 0.040;
        assertEquals(10 * epoch, t10, 1e-6);
    }

    @Test
    void computeBoundApplicationsGainMoreFromFlopsThanMemoryBoundOnes() {
        // VGG is compute bound, DeepSpeech memory bound: the 1080Ti's FLOPS edge over the M60 matters more to VGG.
        var m60 = catalog.gpu("M60");
        var ti = catalog.gpu("1080Ti");
        double vggGain =
                catalog.slowdown(catalog.application("VGG"), m60) / catalog.slowdown(catalog.application("VGG"), ti);
        double dsGain = catalog.slowdown(catalog.application("DeepSpeech"), m60)
                / catalog.slowdown(catalog.application("DeepSpeech"), ti);
        assertTrue(vggGain > 2.0 && dsGain > 2.0);
        assertTrue(Math.abs(vggGain - dsGain) > 0.1);
    }

    @Test
    void badModelFileIsRejectedWithFileAndField(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("apps.yaml");
        Files.writeString(f, """
                referenceGpu: V100
                gpuModels:
                  V100: {tflops: 14, bandwidthGBs: 900, idleWatts: 30, maxWatts: 250}
                applications:
                  X: {scenarios: [s], samplesPerEpoch: 10, msPerSample: 1, stepOverheadMs: 0, computeBound: 0.5,
                      parallelFraction: 1.0, epochs: [1, 2], batchSizes: [1]}
                """);
        FormatException e = assertThrows(FormatException.class, () -> ApplicationCatalog.read(f));
        assertTrue(e.getMessage().contains("apps.yaml") && e.getMessage().contains("parallelFraction"), e.getMessage());
        Files.writeString(f, "referenceGpu: V100\ngpuModels: {V100: {tflops: 14, bandwidth: 900}}\napplications: {}\n");
        e = assertThrows(FormatException.class, () -> ApplicationCatalog.read(f));
        assertTrue(e.getMessage().startsWith(f + ":2"), e.getMessage());
        assertThrows(FormatException.class, () -> ApplicationCatalog.read(dir.resolve("none.yaml")));
    }
}
