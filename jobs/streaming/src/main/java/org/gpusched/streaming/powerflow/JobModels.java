package org.gpusched.streaming.powerflow;

import java.util.ArrayList;
import java.util.List;
import org.gpusched.powerflow.model.Configuration;
import org.gpusched.powerflow.model.EnergyModel;
import org.gpusched.powerflow.model.Observation;
import org.gpusched.powerflow.model.ObservationLog;
import org.gpusched.powerflow.model.PerformanceModel;
import org.gpusched.powerflow.model.ThroughputModel;
import org.gpusched.powerflow.sim.ModelFitting;
import org.gpusched.streaming.avro.JobModelFit;
import org.gpusched.streaming.state.JobModelState;
import org.gpusched.streaming.state.ObservedConfiguration;

/**
 * A job's telemetry and fitted model as Avro state: samples are averaged per configuration (GPU count, GPUs per node,
 * local batch, frequency), in the order the configurations were first seen, and the model is fitted with
 * the simulator's {@link ModelFitting} on those averages: afresh the first time, warm-started from the previous fit afterwards (afresh
 * again when the warm start does not converge).
 * Records are replaced, never changed in place, so a snapshot taken meanwhile stays consistent.
 */
public final class JobModels {
    private JobModels() {}

    public static JobModelState empty(String job) {
        return JobModelState.newBuilder()
                .setJob(job)
                .setConfigurations(List.of())
                .setFit(null)
                .setWorkload(null)
                .setGlobalBatch(null)
                .build();
    }

    /** The state with one more sample; whether it is the first at its GPU count is {@link #newGpuCount}. */
    public static JobModelState observe(JobModelState state, Configuration c, double stepSeconds, double energyJoules) {
        List<ObservedConfiguration> configs = new ArrayList<>(state.getConfigurations());
        boolean found = false;
        for (int i = 0; i < configs.size(); i++) {
            ObservedConfiguration o = configs.get(i);
            if (same(o, c)) {
                configs.set(
                        i,
                        ObservedConfiguration.newBuilder(o)
                                .setStepSecondsSum(o.getStepSecondsSum() + stepSeconds)
                                .setEnergyJoulesSum(o.getEnergyJoulesSum() + energyJoules)
                                .setSamples(o.getSamples() + 1)
                                .build());
                found = true;
                break;
            }
        }
        if (!found)
            configs.add(ObservedConfiguration.newBuilder()
                    .setGpus(c.gpus())
                    .setGpusPerNode(c.gpusPerNode())
                    .setLocalBatch(c.localBatch())
                    .setFreq(c.freq())
                    .setStepSecondsSum(stepSeconds)
                    .setEnergyJoulesSum(energyJoules)
                    .setSamples(1)
                    .build());
        return JobModelState.newBuilder(state).setConfigurations(configs).build();
    }

    /** Whether {@code state} has no sample at {@code gpus} GPUs yet. */
    public static boolean newGpuCount(JobModelState state, int gpus) {
        for (ObservedConfiguration o : state.getConfigurations()) if (o.getGpus() == gpus) return false;
        return true;
    }

    /**
     * The state with its model fitted to every sample so far by {@code fitting} (the simulator's: with the scale-out
     * prior of the job's workload when the submission named one); {@code time} (s) and the flag go on the fit record.
     */
    public static JobModelState fit(
            JobModelState state, double time, ModelFitting fitting, int maxGpus, boolean newGpuCount) {
        ObservationLog log = log(state);
        JobModelFit previous = state.getFit();
        double batch = state.getGlobalBatch() == null ? 1 : state.getGlobalBatch();
        PerformanceModel model = (PerformanceModel)
                fitting.fit(state.getWorkload(), batch, maxGpus, log, previous == null ? null : model(previous));
        JobModelFit fit = fitRecord(
                state.getJob(), time, model, log, previous == null ? 1 : previous.getRefits() + 1, newGpuCount);
        return JobModelState.newBuilder(state).setFit(fit).build();
    }

    /** The samples of a state as the shared {@link ObservationLog}. */
    public static ObservationLog log(JobModelState state) {
        List<ObservationLog.Entry> entries = new ArrayList<>();
        for (ObservedConfiguration o : state.getConfigurations())
            entries.add(new ObservationLog.Entry(
                    new Configuration(o.getGpus(), o.getGpusPerNode(), o.getLocalBatch(), o.getFreq()),
                    o.getStepSecondsSum(),
                    o.getEnergyJoulesSum(),
                    o.getSamples()));
        return new ObservationLog(entries);
    }

    /** A state holding {@code log}'s samples and {@code fit}. */
    public static JobModelState state(String job, ObservationLog log, JobModelFit fit) {
        List<ObservedConfiguration> configs = new ArrayList<>();
        for (ObservationLog.Entry e : log.entries())
            configs.add(ObservedConfiguration.newBuilder()
                    .setGpus(e.config().gpus())
                    .setGpusPerNode(e.config().gpusPerNode())
                    .setLocalBatch(e.config().localBatch())
                    .setFreq(e.config().freq())
                    .setStepSecondsSum(e.stepSecondsSum())
                    .setEnergyJoulesSum(e.energyJoulesSum())
                    .setSamples(e.samples())
                    .build());
        return JobModelState.newBuilder()
                .setJob(job)
                .setConfigurations(configs)
                .setFit(fit)
                .setWorkload(null)
                .setGlobalBatch(null)
                .build();
    }

    /** The fit record of {@code model}, the {@code refits}-th fit of the job, on {@code log}'s samples. */
    public static JobModelFit fitRecord(
            String job, double time, PerformanceModel model, ObservationLog log, int refits, boolean newGpuCount) {
        double f0 = model.energy().breakFreq();
        return JobModelFit.newBuilder()
                .setTime(time)
                .setJob(job)
                .setObservations(log.size())
                .setSamples(log.samples())
                .setRefits(refits)
                .setThroughput(boxed(model.time().parameters()))
                .setEnergy(boxed(model.energy().parameters()))
                .setBreakFreq(Double.isFinite(f0) ? f0 : null)
                .setNewGpuCount(newGpuCount)
                .build();
    }

    /** The performance model of a fit record. */
    public static PerformanceModel model(JobModelFit fit) {
        return new PerformanceModel(
                new ThroughputModel(unboxed(fit.getThroughput())),
                new EnergyModel(
                        unboxed(fit.getEnergy()),
                        fit.getBreakFreq() == null ? Double.POSITIVE_INFINITY : fit.getBreakFreq()));
    }

    static List<Observation> observations(JobModelState state) {
        List<Observation> obs = new ArrayList<>();
        for (ObservedConfiguration o : state.getConfigurations())
            obs.add(new Observation(
                    new Configuration(o.getGpus(), o.getGpusPerNode(), o.getLocalBatch(), o.getFreq()),
                    o.getStepSecondsSum() / o.getSamples(),
                    o.getEnergyJoulesSum() / o.getSamples()));
        return obs;
    }

    private static boolean same(ObservedConfiguration o, Configuration c) {
        return o.getGpus() == c.gpus()
                && o.getGpusPerNode() == c.gpusPerNode()
                && o.getLocalBatch() == c.localBatch()
                && o.getFreq() == c.freq();
    }

    private static List<Double> boxed(double[] a) {
        List<Double> l = new ArrayList<>(a.length);
        for (double v : a) l.add(v);
        return l;
    }

    private static double[] unboxed(List<Double> l) {
        double[] a = new double[l.size()];
        for (int i = 0; i < a.length; i++) a[i] = l.get(i);
        return a;
    }
}
