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
 * The execution-time models of the papers' applications over GPU models, read from {@code conf/applications.yaml}
 * (both formulas are documented at the top of that file and in docs/scheduling-fidelity.md): {@link
 * TimeModel#PROFILED}, the default, and {@link TimeModel#AMDAHL}, the earlier model, kept for comparison. Immutable
 * once loaded; {@link #withTimeModel} gives a copy that computes times with the other model.
 */
public final class ApplicationCatalog {
    /** Bundled copy of conf/applications.yaml (copied into the jar at build time). */
    public static final String DEFAULT_RESOURCE = "/org/gpusched/workloads/applications.yaml";

    /** How {@link #executionSeconds} turns an application, a GPU model and a configuration into seconds. */
    public enum TimeModel {
        /**
         * Per application and GPU model: the measured single-GPU speed relative to the reference GPU, data-parallel
         * steps that split the batch over the GPUs, a ring all-reduce of the gradients over the node's GPU
         * interconnect, micro-steps when the per-GPU batch does not fit in GPU memory (a configuration whose model
         * alone does not fit has no time), and a node's input-pipeline ceiling.
         */
        PROFILED,
        /** The earlier analytical model: a data-sheet compute/bandwidth mix and an Amdahl speed-up. */
        AMDAHL;

        public static TimeModel parse(String name) {
            for (TimeModel m : values()) if (m.name().equalsIgnoreCase(name)) return m;
            throw new FormatException("unknown time model '" + name + "' (known: profiled, amdahl)", "timeModel");
        }

        public String label() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /**
     * @param memoryGB GPU memory (profiled model; 0 when not given)
     * @param allReduceGBs bus bandwidth of a ring all-reduce among the GPUs of one node (profiled model; 0 when not
     *     given)
     */
    public record GpuModel(
            String name,
            double tflops,
            double bandwidthGBs,
            double idleWatts,
            double maxWatts,
            double memoryGB,
            double allReduceGBs) {}

    /**
     * The profiled model's figures of one application.
     *
     * @param relativeSpeed single-GPU training throughput relative to the reference GPU, per GPU model
     * @param gradientMB gradients exchanged per step (FP32 parameters)
     * @param memoryMB GPU memory the training takes before activations (weights, gradients, optimizer state,
     *     workspace)
     * @param activationMBPerSample GPU memory per sample of the per-GPU batch
     * @param inputSamplesPerSecond what a node's input pipeline (disk, decoding) delivers; 0 = no ceiling
     * @param stepOverheadMs fixed cost of each (micro-)step on every GPU, not shortened by more GPUs (optimizer
     *     update, launches, synchronisation)
     */
    public record Profile(
            Map<String, Double> relativeSpeed,
            double gradientMB,
            double memoryMB,
            double activationMBPerSample,
            double inputSamplesPerSecond,
            double stepOverheadMs) {}

    public record Application(
            String name,
            List<String> scenarios,
            double samplesPerEpoch,
            double msPerSample,
            double stepOverheadMs,
            double computeBound,
            double parallelFraction,
            List<Integer> epochs,
            List<Integer> batchSizes,
            Profile profile) {
        /** An application the Amdahl model alone can time (no profile). */
        public Application(
                String name,
                List<String> scenarios,
                double samplesPerEpoch,
                double msPerSample,
                double stepOverheadMs,
                double computeBound,
                double parallelFraction,
                List<Integer> epochs,
                List<Integer> batchSizes) {
            this(
                    name,
                    scenarios,
                    samplesPerEpoch,
                    msPerSample,
                    stepOverheadMs,
                    computeBound,
                    parallelFraction,
                    epochs,
                    batchSizes,
                    null);
        }

        public int minEpochs() {
            return epochs.get(0);
        }

        public int maxEpochs() {
            return epochs.get(1);
        }
    }

    record GpuDoc(
            double tflops,
            double bandwidthGBs,
            double idleWatts,
            double maxWatts,
            Double memoryGB,
            Double allReduceGBs) {}

    record ProfileDoc(
            Map<String, Double> relativeSpeed,
            double gradientMB,
            double memoryMB,
            double activationMBPerSample,
            Double inputSamplesPerSecond,
            Double stepOverheadMs) {}

    record AppDoc(
            List<String> scenarios,
            double samplesPerEpoch,
            double msPerSample,
            double stepOverheadMs,
            double computeBound,
            double parallelFraction,
            List<Integer> epochs,
            List<Integer> batchSizes,
            ProfileDoc profile) {}

    record Doc(String referenceGpu, Map<String, GpuDoc> gpuModels, Map<String, AppDoc> applications) {}

    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory())
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES);

    private final GpuModel reference;
    private final Map<String, GpuModel> gpus;
    private final Map<String, Application> apps;
    private final TimeModel timeModel;

    private ApplicationCatalog(
            GpuModel reference, Map<String, GpuModel> gpus, Map<String, Application> apps, TimeModel timeModel) {
        this.reference = reference;
        this.gpus = gpus;
        this.apps = apps;
        this.timeModel = timeModel;
    }

    /** The same applications and GPUs, with times computed by {@code model}. */
    public ApplicationCatalog withTimeModel(TimeModel model) {
        if (model == TimeModel.PROFILED) {
            for (Application a : apps.values()) requireProfile(a);
        }
        return new ApplicationCatalog(reference, gpus, apps, model);
    }

    public TimeModel timeModel() {
        return timeModel;
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
            double memory = g.memoryGB() == null ? 0 : g.memoryGB();
            double allReduce = g.allReduceGBs() == null ? 0 : g.allReduceGBs();
            if (!(memory >= 0) || !(allReduce >= 0))
                throw new FormatException(path + ": memoryGB and allReduceGBs must be >= 0", "gpuModels." + name);
            gpus.put(
                    name,
                    new GpuModel(name, g.tflops(), g.bandwidthGBs(), g.idleWatts(), g.maxWatts(), memory, allReduce));
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
            Profile profile = a.profile() == null
                    ? null
                    : profile(a.profile(), a.stepOverheadMs(), gpus, path, "applications." + name);
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
                            List.copyOf(a.batchSizes()),
                            profile));
        });
        if (apps.isEmpty()) throw new FormatException(where + ": no applications", "applications");
        TimeModel model =
                apps.values().stream().allMatch(a -> a.profile() != null) ? TimeModel.PROFILED : TimeModel.AMDAHL;
        return new ApplicationCatalog(
                reference, Collections.unmodifiableMap(gpus), Collections.unmodifiableMap(apps), model);
    }

    private static Profile profile(
            ProfileDoc p, double appStepOverheadMs, Map<String, GpuModel> gpus, String path, String field) {
        String at = path + ".profile";
        if (p.relativeSpeed() == null || p.relativeSpeed().isEmpty())
            throw new FormatException(at + ".relativeSpeed must map GPU models to speeds", field + ".profile");
        p.relativeSpeed().forEach((gpu, speed) -> {
            GpuModel g = gpus.get(gpu);
            if (g == null)
                throw new FormatException(at + ".relativeSpeed: unknown GPU model '" + gpu + "'", field + ".profile");
            if (speed == null || !(speed > 0))
                throw new FormatException(at + ".relativeSpeed." + gpu + " must be > 0", field + ".profile");
            if (!(g.memoryGB() > 0) || !(g.allReduceGBs() > 0))
                throw new FormatException(
                        path + ": GPU model " + gpu + " needs memoryGB > 0 and allReduceGBs > 0 for the profiled model",
                        "gpuModels." + gpu);
        });
        if (!(p.gradientMB() >= 0) || !(p.memoryMB() >= 0) || !(p.activationMBPerSample() > 0))
            throw new FormatException(
                    at + ": need gradientMB >= 0, memoryMB >= 0, activationMBPerSample > 0", field + ".profile");
        double input = p.inputSamplesPerSecond() == null ? 0 : p.inputSamplesPerSecond();
        if (!(input >= 0)) throw new FormatException(at + ".inputSamplesPerSecond must be >= 0", field + ".profile");
        double overhead = p.stepOverheadMs() == null ? appStepOverheadMs : p.stepOverheadMs();
        if (!(overhead >= 0)) throw new FormatException(at + ".stepOverheadMs must be >= 0", field + ".profile");
        return new Profile(
                Collections.unmodifiableMap(new LinkedHashMap<>(p.relativeSpeed())),
                p.gradientMB(),
                p.memoryMB(),
                p.activationMBPerSample(),
                input,
                overhead);
    }

    private static Profile requireProfile(Application app) {
        if (app.profile() == null)
            throw new FormatException(
                    "applications." + app.name() + " has no profile, which the profiled time model needs"
                            + " (or use --time-model amdahl)",
                    "applications." + app.name() + ".profile");
        return app.profile();
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

    /**
     * Predicted training time in seconds under this catalog's {@link #timeModel()}; NaN when the configuration cannot
     * run the job (profiled model: the application's model does not fit in the GPU's memory).
     */
    public double executionSeconds(Application app, GpuModel gpu, int gpus, int epochs, int batchSize) {
        if (gpus < 1) throw new IllegalArgumentException("gpus must be >= 1");
        return timeModel == TimeModel.PROFILED
                ? profiledSeconds(app, gpu, gpus, epochs, batchSize)
                : amdahlSeconds(app, gpu, gpus, epochs, batchSize);
    }

    /** The earlier model: epochs x epoch time / Amdahl speed-up. */
    public double amdahlSeconds(Application app, GpuModel gpu, int gpus, int epochs, int batchSize) {
        return epochs * epochSeconds(app, gpu, batchSize) / speedup(app, gpus);
    }

    /**
     * The profiled model. One step of the global batch b on g GPUs: each GPU computes b/g samples at the
     * application's measured speed on its model, in as many micro-steps as the per-GPU batch needs to fit in memory
     * (each paying the per-step overhead), then the GPUs exchange gradients by a ring all-reduce (2 (g-1)/g x
     * gradient size over the node's all-reduce bandwidth); the step never beats the node's input pipeline. An epoch
     * is ceil(samples / b) steps.
     */
    public double profiledSeconds(Application app, GpuModel gpu, int gpus, int epochs, int batchSize) {
        Profile p = requireProfile(app);
        Double speed = p.relativeSpeed().get(gpu.name());
        if (speed == null)
            throw new FormatException(
                    "applications." + app.name() + ".profile.relativeSpeed has no figure for GPU model " + gpu.name(),
                    "applications." + app.name() + ".profile");
        int fit = (int) Math.floor((gpu.memoryGB() * 1024 - p.memoryMB()) / p.activationMBPerSample());
        if (fit < 1) return Double.NaN;
        double perGpu = (double) batchSize / gpus;
        double microSteps = Math.ceil(perGpu / fit);
        double compute = perGpu * app.msPerSample() / speed / 1000.0;
        double overhead = microSteps * p.stepOverheadMs() / 1000.0;
        double allReduce = 2.0 * (gpus - 1) / gpus * p.gradientMB() / 1000.0 / gpu.allReduceGBs();
        double step = compute + overhead + allReduce;
        if (p.inputSamplesPerSecond() > 0) step = Math.max(step, batchSize / p.inputSamplesPerSecond());
        return epochs * Math.ceil(app.samplesPerEpoch() / batchSize) * step;
    }
}
