package org.gpusched.workloads;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.gpusched.formats.FormatException;

/**
 * The execution-time model of the papers' applications over GPU models, read from {@code conf/applications.yaml}
 * (the formula is documented at the top of that file). Immutable once loaded.
 */
public final class ApplicationCatalog {
    /** Bundled copy of conf/applications.yaml (copied into the jar at build time). */
    public static final String DEFAULT_RESOURCE = "/org/gpusched/workloads/applications.yaml";

    public record GpuModel(String name, double tflops, double bandwidthGBs, double idleWatts, double maxWatts) {}

    public record Application(
            String name,
            List<String> scenarios,
            double samplesPerEpoch,
            double msPerSample,
            double stepOverheadMs,
            double computeBound,
            double parallelFraction,
            List<Integer> epochs,
            List<Integer> batchSizes) {
        public int minEpochs() {
            return epochs.get(0);
        }

        public int maxEpochs() {
            return epochs.get(1);
        }
    }

    record GpuDoc(double tflops, double bandwidthGBs, double idleWatts, double maxWatts) {}

    record AppDoc(
            List<String> scenarios,
            double samplesPerEpoch,
            double msPerSample,
            double stepOverheadMs,
            double computeBound,
            double parallelFraction,
            List<Integer> epochs,
            List<Integer> batchSizes) {}

    record Doc(String referenceGpu, Map<String, GpuDoc> gpuModels, Map<String, AppDoc> applications) {}

    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory())
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES);

    private final GpuModel reference;
    private final Map<String, GpuModel> gpus;
    private final Map<String, Application> apps;

    private ApplicationCatalog(GpuModel reference, Map<String, GpuModel> gpus, Map<String, Application> apps) {
        this.reference = reference;
        this.gpus = gpus;
        this.apps = apps;
    }

    /** The bundled model (conf/applications.yaml as of the build). */
    public static ApplicationCatalog defaults() {
        try (InputStream in = ApplicationCatalog.class.getResourceAsStream(DEFAULT_RESOURCE)) {
            if (in == null) throw new IllegalStateException("bundled " + DEFAULT_RESOURCE + " is missing from the jar");
            return parse(
                    new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8),
                    "applications.yaml (bundled)");
        } catch (IOException e) {
            throw new IllegalStateException("cannot read bundled applications.yaml", e);
        }
    }

    public static ApplicationCatalog read(Path file) {
        try {
            return parse(Files.readString(file), file.toString());
        } catch (NoSuchFileException e) {
            throw new FormatException(file + ": no such applications file", null);
        } catch (IOException e) {
            throw new FormatException(file + ": cannot read (" + e.getMessage() + ")", null, e);
        }
    }

    static ApplicationCatalog parse(String yaml, String where) {
        Doc doc;
        try {
            doc = YAML.readValue(yaml, Doc.class);
        } catch (JsonProcessingException e) {
            var loc = e.getLocation();
            throw new FormatException(
                    where + (loc == null ? "" : ":" + loc.getLineNr()) + ": " + e.getOriginalMessage(), null, e);
        }
        if (doc == null || doc.gpuModels() == null || doc.applications() == null || doc.referenceGpu() == null) {
            throw new FormatException(where + ": needs referenceGpu, gpuModels and applications", null);
        }
        Map<String, GpuModel> gpus = new LinkedHashMap<>();
        doc.gpuModels().forEach((name, g) -> {
            String path = where + ": gpuModels." + name;
            if (g == null
                    || !(g.tflops() > 0)
                    || !(g.bandwidthGBs() > 0)
                    || !(g.idleWatts() >= 0)
                    || !(g.maxWatts() >= g.idleWatts())) {
                throw new FormatException(
                        path + ": need tflops > 0, bandwidthGBs > 0, 0 <= idleWatts <= maxWatts", "gpuModels." + name);
            }
            gpus.put(name, new GpuModel(name, g.tflops(), g.bandwidthGBs(), g.idleWatts(), g.maxWatts()));
        });
        GpuModel reference = gpus.get(doc.referenceGpu());
        if (reference == null)
            throw new FormatException(
                    where + ": referenceGpu " + doc.referenceGpu() + " is not in gpuModels", "referenceGpu");
        Map<String, Application> apps = new LinkedHashMap<>();
        doc.applications().forEach((name, a) -> {
            String path = where + ": applications." + name;
            if (a == null) throw new FormatException(path + " is empty", "applications." + name);
            if (!(a.samplesPerEpoch() > 0) || !(a.msPerSample() > 0) || !(a.stepOverheadMs() >= 0)) {
                throw new FormatException(
                        path + ": need samplesPerEpoch > 0, msPerSample > 0, stepOverheadMs >= 0",
                        "applications." + name);
            }
            if (!(a.computeBound() >= 0 && a.computeBound() <= 1))
                throw new FormatException(
                        path + ".computeBound must be in [0, 1]", "applications." + name + ".computeBound");
            if (!(a.parallelFraction() >= 0 && a.parallelFraction() < 1))
                throw new FormatException(
                        path + ".parallelFraction must be in [0, 1) (speed-up sublinear)",
                        "applications." + name + ".parallelFraction");
            if (a.epochs() == null
                    || a.epochs().size() != 2
                    || a.epochs().get(0) < 1
                    || a.epochs().get(1) < a.epochs().get(0)) {
                throw new FormatException(
                        path + ".epochs must be [min, max] with 1 <= min <= max", "applications." + name + ".epochs");
            }
            if (a.batchSizes() == null
                    || a.batchSizes().isEmpty()
                    || a.batchSizes().stream().anyMatch(b -> b == null || b < 1)) {
                throw new FormatException(
                        path + ".batchSizes must be a non-empty list of positive integers",
                        "applications." + name + ".batchSizes");
            }
            List<String> scenarios = a.scenarios() == null ? List.of() : List.copyOf(a.scenarios());
            apps.put(
                    name,
                    new Application(
                            name,
                            scenarios,
                            a.samplesPerEpoch(),
                            a.msPerSample(),
                            a.stepOverheadMs(),
                            a.computeBound(),
                            a.parallelFraction(),
                            List.copyOf(a.epochs()),
                            List.copyOf(a.batchSizes())));
        });
        if (apps.isEmpty()) throw new FormatException(where + ": no applications", "applications");
        return new ApplicationCatalog(reference, Collections.unmodifiableMap(gpus), Collections.unmodifiableMap(apps));
    }

    public GpuModel gpu(String name) {
        GpuModel g = gpus.get(name);
        if (g == null)
            throw new FormatException("unknown GPU model '" + name + "' (known: " + gpus.keySet() + ")", "gpuModels");
        return g;
    }

    public boolean hasGpu(String name) {
        return gpus.containsKey(name);
    }

    public Application application(String name) {
        Application a = apps.get(name);
        if (a == null)
            throw new FormatException(
                    "unknown application '" + name + "' (known: " + apps.keySet() + ")", "applications");
        return a;
    }

    /** Applications tagged with the scenario, in file order. */
    public List<Application> applicationsFor(String scenario) {
        List<Application> out = new ArrayList<>();
        for (Application a : apps.values()) if (a.scenarios().contains(scenario)) out.add(a);
        if (out.isEmpty())
            throw new FormatException("no application is tagged for scenario '" + scenario + "'", "applications");
        return out;
    }

    /** How much slower than the reference GPU the application runs on {@code gpu} (1 = same speed). */
    public double slowdown(Application app, GpuModel gpu) {
        return app.computeBound() * reference.tflops() / gpu.tflops()
                + (1 - app.computeBound()) * reference.bandwidthGBs() / gpu.bandwidthGBs();
    }

    /** Amdahl speed-up with {@code gpus} GPUs: sublinear for parallelFraction < 1. */
    public static double speedup(Application app, int gpus) {
        double p = app.parallelFraction();
        return 1.0 / ((1 - p) + p / gpus);
    }

    /** Seconds one epoch takes on one GPU of the model. */
    public double epochSeconds(Application app, GpuModel gpu, int batchSize) {
        double compute = app.samplesPerEpoch() * app.msPerSample() * slowdown(app, gpu) / 1000.0;
        double steps = Math.ceil(app.samplesPerEpoch() / batchSize);
        return compute + steps * app.stepOverheadMs() / 1000.0;
    }

    /** Predicted training time in seconds: epochs x epoch time / speed-up. */
    public double executionSeconds(Application app, GpuModel gpu, int gpus, int epochs, int batchSize) {
        if (gpus < 1) throw new IllegalArgumentException("gpus must be >= 1");
        return epochs * epochSeconds(app, gpu, batchSize) / speedup(app, gpus);
    }
}
