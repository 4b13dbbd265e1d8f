package org.gpusched.workloads;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.gpusched.formats.FormatException;
import org.gpusched.workloads.ApplicationCatalog.TimeModel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ApplicationCatalogTest {
    /** The earlier model, kept reachable and unchanged: the tests below up to the profiled ones pin it. */
    final ApplicationCatalog catalog = ApplicationCatalog.defaults().withTimeModel(TimeModel.AMDAHL);

    final ApplicationCatalog profiled = ApplicationCatalog.defaults();

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

    @Test
    void theBundledModelIsProfiledAndAFileWithoutProfilesIsAmdahl(@TempDir Path dir) throws Exception {
        assertEquals(TimeModel.PROFILED, profiled.timeModel());
        Path f = dir.resolve("apps.yaml");
        Files.writeString(f, """
                referenceGpu: V100
                gpuModels:
                  V100: {tflops: 14.0, bandwidthGBs: 900, idleWatts: 30, maxWatts: 250}
                applications:
                  VGG:
                    samplesPerEpoch: 1000
                    msPerSample: 1.0
                    stepOverheadMs: 10
                    computeBound: 0.9
                    parallelFraction: 0.9
                    epochs: [1, 2]
                    batchSizes: [10]
                """);
        ApplicationCatalog old = ApplicationCatalog.read(f);
        assertEquals(TimeModel.AMDAHL, old.timeModel());
        var e = assertThrows(FormatException.class, () -> old.withTimeModel(TimeModel.PROFILED));
        assertTrue(e.getMessage().contains("applications.VGG has no profile"), e.getMessage());
        assertEquals(TimeModel.AMDAHL, TimeModel.parse("Amdahl"));
        assertThrows(FormatException.class, () -> TimeModel.parse("guessed"));
    }

    @Test
    void amdahlIsTheSameFormulaUnderEitherEntryPoint() {
        var vgg = catalog.application("VGG");
        var ti = catalog.gpu("1080Ti");
        for (int g = 1; g <= 8; g++) {
            double byHand = 7 * catalog.epochSeconds(vgg, ti, 64) / (1 / (0.1 + 0.9 / g));
            assertEquals(byHand, catalog.executionSeconds(vgg, ti, g, 7, 64), 1e-6);
            assertEquals(byHand, profiled.amdahlSeconds(vgg, ti, g, 7, 64), 1e-6);
        }
    }

    @Test
    void profiledTimeWorkedOutByHand() {
        // ResNet, K80 (12 GB, 6 GB/s all-reduce), 2 GPUs, 10 epochs, batch 256: 128 samples per GPU; memory fits
        // floor((12 x 1024 - 500) / 90) = 131 per micro-step, so one micro-step; compute 128 x 2.8 / 0.14 ms; step
        // overhead 10 ms; ring all-reduce 2 x 1/2 x 102 MB / 6 GB/s; 1,281,167 / 256 -> 5,005 steps an epoch.
        double step = 128 * 2.8 / 0.14 / 1000 + 0.010 + 2 * 0.5 * 102 / 1000 / 6;
        assertEquals(
                10 * 5005 * step,
                profiled.executionSeconds(profiled.application("ResNet"), profiled.gpu("K80"), 2, 10, 256),
                1e-6);
        // On a P600 (2 GB) the per-GPU batch of 64 needs micro-steps of floor((2048 - 500) / 90) = 17 samples: 4 of
        // them, each paying the step overhead.
        double p600Step = 64 * 2.8 / 0.06 / 1000 + 4 * 0.010 + 2 * 0.75 * 102 / 1000 / 4;
        assertEquals(
                5005 * p600Step,
                profiled.executionSeconds(profiled.application("ResNet"), profiled.gpu("P600"), 4, 1, 256),
                1e-6);
        // VGG's weights, gradients and momentum (2.4 GB) do not fit a P600: no time.
        assertTrue(
                Double.isNaN(profiled.executionSeconds(profiled.application("VGG"), profiled.gpu("P600"), 8, 1, 32)));
        // DeepSpeech's input pipeline (400 utterances/s) bounds a fast node.
        var ds = profiled.application("DeepSpeech");
        double ceiling = 5 * Math.ceil(281241 / 64.0) * 64 / 400.0;
        assertEquals(ceiling, profiled.executionSeconds(ds, profiled.gpu("V100"), 8, 5, 64), 1e-6);
    }

    /** Speed-up on the GTX 1080 Ti node (Custom2) of the hierarchical catalog, at the application's middle batch. */
    private double speedupOn1080Ti(String app, int gpus) {
        var a = profiled.application(app);
        int batch = a.batchSizes().get(a.batchSizes().size() / 2);
        var ti = profiled.gpu("1080Ti");
        return profiled.executionSeconds(a, ti, 1, 1, batch) / profiled.executionSeconds(a, ti, gpus, 1, batch);
    }

    @Test
    void profiledScalingShapeDiffersPerApplication() {
        // AlexNet (61 M parameters, light compute per sample) is bound by its gradient exchange over PCIe: past two
        // GPUs more GPUs do not help; ResNet-50 (25.6 M parameters, heavy compute) keeps scaling; VGG-16 (138 M
        // parameters) scales in between; DeepSpeech runs into its input pipeline.
        assertTrue(speedupOn1080Ti("AlexNet", 8) < 1.5, "AlexNet x8: " + speedupOn1080Ti("AlexNet", 8));
        assertTrue(speedupOn1080Ti("ResNet", 8) > 4.5, "ResNet x8: " + speedupOn1080Ti("ResNet", 8));
        double vgg = speedupOn1080Ti("VGG", 8);
        assertTrue(vgg > 1.5 && vgg < speedupOn1080Ti("ResNet", 8), "VGG x8: " + vgg);
        for (String app : new String[] {"ResNet", "VGG", "DeepSpeech"}) {
            double previous = 1;
            for (int g = 2; g <= 8; g++) {
                double s = speedupOn1080Ti(app, g);
                assertTrue(s >= previous && s < g, app + " x" + g + ": " + s);
                previous = s;
            }
        }
        // The Amdahl model gave every application the same shape: growing, AlexNet's too.
        assertTrue(ApplicationCatalog.speedup(catalog.application("AlexNet"), 8) > 3);
    }

    @Test
    void profiledGpuSpeedsDependOnTheApplication() {
        // Relative single-GPU speeds differ per application (public measurements, see conf/applications.yaml):
        // DeepSpeech loses more than ResNet on a GTX 1080 Ti against a V100.
        var ti = profiled.gpu("1080Ti");
        var v100 = profiled.gpu("V100");
        double resnet = profiled.executionSeconds(profiled.application("ResNet"), ti, 1, 1, 32)
                / profiled.executionSeconds(profiled.application("ResNet"), v100, 1, 1, 32);
        double deepspeech = profiled.executionSeconds(profiled.application("DeepSpeech"), ti, 1, 1, 16)
                / profiled.executionSeconds(profiled.application("DeepSpeech"), v100, 1, 1, 16);
        assertTrue(deepspeech > resnet * 1.4, "DeepSpeech " + deepspeech + " vs ResNet " + resnet);
    }
}
