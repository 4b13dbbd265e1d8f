package org.gpusched.streaming.placement;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.CloseableIterator;
import org.gpusched.placement.experiment.CurvePoint;
import org.gpusched.placement.experiment.InflationExperiment;
import org.gpusched.placement.experiment.InflationRun;
import org.gpusched.placement.experiment.PolicySpec;
import org.gpusched.placement.model.ClusterState;

/**
 * The inflation experiment as a bounded Flink stream: run descriptors -> {@link ArrivalGenerator} (each seed's task
 * sequence) -> keyBy run -> {@link InflationPlacementFunction} (the same placement step as the plain-Java loop) ->
 * curve points and run ends. {@link #define} builds the pipeline on given sources (tests call it); {@link #run} runs it
 * on a local mini cluster and assembles the same {@link InflationExperiment.Result} as the plain-Java path.
 */
public final class StreamingInflation {
    private StreamingInflation() {}

    /** Key of an arrival: its run. A named class, so Flink needs no lambda type extraction. */
    public static final class RunKey implements KeySelector<InflationArrival, String> {
        private static final long serialVersionUID = 1L;

        @Override
        public String getKey(InflationArrival a) {
            return a.runKey();
        }
    }

    public static DataStream<InflationOutput> define(
            DataStream<InflationRunStart> runs, InflationExperiment.Config config) {
        long capacity = new ClusterState(config.nodes(), null).gpuMilliCapacity();
        return runs.flatMap(new ArrivalGenerator(config.trace(), capacity, config.load()))
                .uid("inflation-arrivals")
                .name("inflation arrivals")
                .keyBy(new RunKey())
                .process(new InflationPlacementFunction(
                        config.nodes(), config.trace(), config.policies(), config.step(), config.load()))
                .uid("inflation-placement")
                .name("inflation placement");
    }

    /** Runs the experiment on a local Flink mini cluster with {@code config.threads()} parallelism. */
    public static InflationExperiment.Result run(
            InflationExperiment.Config config, Consumer<InflationRun.Result> progress) throws Exception {
        // Closing the collect iterator after a bounded job has finished races with the mini cluster's shutdown and logs
        // harmless "Broken pipe"/"job has terminated" warnings; every run's end record is checked below instead.
        org.apache.logging.log4j.core.config.Configurator.setLevel(
                "org.apache.flink.streaming.api.operators.collect", org.apache.logging.log4j.Level.ERROR);
        Configuration conf = new Configuration();
        conf.set(
                PipelineOptions.GENERIC_TYPES, false); // every record and state type must be a POJO/basic type, no Kryo
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(config.threads());
        List<InflationRunStart> starts = new ArrayList<>();
        for (int p = 0; p < config.policies().size(); p++)
            for (long seed : config.seeds()) starts.add(new InflationRunStart(p, seed));
        DataStream<InflationRunStart> runs =
                env.fromData(starts).uid("inflation-runs").name("inflation runs");
        Map<String, List<CurvePoint>> curves = new HashMap<>();
        List<InflationRun.Result> results = new ArrayList<>();
        try (CloseableIterator<InflationOutput> it = define(runs, config).executeAndCollect("gpusched inflate")) {
            while (it.hasNext()) {
                InflationOutput o = it.next();
                PolicySpec spec = config.policies().get(o.policyIndex);
                String key = o.policyIndex + "#" + o.seed;
                List<CurvePoint> curve = curves.computeIfAbsent(key, k -> new ArrayList<>());
                if (!o.end) {
                    curve.add(new CurvePoint(
                            spec,
                            o.seed,
                            o.requestedGpuFraction,
                            o.arrivedTasks,
                            o.eopcCpuWatts,
                            o.eopcGpuWatts,
                            o.grar,
                            o.fragmentedGpus,
                            o.failedTasks,
                            o.allocatedGpuFraction));
                    continue;
                }
                curve.sort(Comparator.comparingDouble(CurvePoint::requestedGpuFraction));
                InflationRun.Result r = new InflationRun.Result(
                        spec, o.seed, List.copyOf(curve), o.arrivedTasks, o.failedTasks, o.placeNanos);
                results.add(r);
                progress.accept(r);
            }
        }
        if (results.size() != starts.size())
            throw new IllegalStateException(
                    "the stream ended with " + results.size() + " of " + starts.size() + " runs finished");
        results.sort(Comparator.comparingInt(
                        (InflationRun.Result r) -> config.policies().indexOf(r.policy()))
                .thenComparingLong(InflationRun.Result::seed));
        return new InflationExperiment.Result(config, results);
    }
}
