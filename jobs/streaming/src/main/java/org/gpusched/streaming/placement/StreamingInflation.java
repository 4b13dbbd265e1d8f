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
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
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
 * curve points and run ends. {@link #define} builds the pipeline on given sources and sinks (tests call it);
 * {@link #run} runs it on a local mini cluster and assembles the same {@link InflationExperiment.Result} as the plain-Java path.
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

    /** Where the runs of an experiment come from (the descriptors the arrivals are expanded from). */
    public interface Sources {
        DataStream<InflationRunStart> runs(StreamExecutionEnvironment env);
    }

    /** Where the curve points and run ends go. */
    public interface Sinks {
        void outputs(DataStream<InflationOutput> outputs);
    }

    /** The runs given as a bounded collection. */
    public record RunList(List<InflationRunStart> starts) implements Sources {
        @Override
        public DataStream<InflationRunStart> runs(StreamExecutionEnvironment env) {
            return env.fromData(starts).uid("inflation-runs").name("inflation runs");
        }
    }

    /** The outputs collected by the client ({@link #outputs} is the iterator once the job is defined). */
    public static final class Collected implements Sinks {
        CloseableIterator<InflationOutput> outputs;

        @Override
        public void outputs(DataStream<InflationOutput> stream) {
            outputs = stream.collectAsync();
        }
    }

    /**
     * The experiment's data flow on {@code env}, as the scheduler's and the placement job's {@code define}: runs ->
     * arrivals -> keyBy run -> placement -> sinks. Generic types are off: every record is a Flink POJO or basic type and
     * the state is Avro.
     */
    public static SingleOutputStreamOperator<InflationOutput> define(
            StreamExecutionEnvironment env, Sources sources, Sinks sinks, InflationExperiment.Config config) {
        Configuration pipeline = new Configuration();
        pipeline.set(PipelineOptions.GENERIC_TYPES, false);
        env.configure(pipeline);
        long capacity = new ClusterState(config.nodes(), null).gpuMilliCapacity();
        SingleOutputStreamOperator<InflationOutput> outputs = sources.runs(env)
                .flatMap(new ArrivalGenerator(config.trace(), capacity, config.load()))
                .uid("inflation-arrivals")
                .name("inflation arrivals")
                .keyBy(new RunKey())
                .process(new InflationPlacementFunction(
                        config.nodes(), config.trace(), config.policies(), config.step(), config.load()))
                .uid("inflation-placement")
                .name("inflation placement");
        sinks.outputs(outputs);
        return outputs;
    }

    /** Runs the experiment on a local Flink mini cluster with {@code config.threads()} parallelism. */
    public static InflationExperiment.Result run(
            InflationExperiment.Config config, Consumer<InflationRun.Result> progress) throws Exception {
        // Closing the collect iterator after a bounded job has finished races with the mini cluster's shutdown and logs
        // harmless "Broken pipe"/"job has terminated" warnings; every run's end record is checked below instead.
        org.apache.logging.log4j.core.config.Configurator.setLevel(
                "org.apache.flink.streaming.api.operators.collect", org.apache.logging.log4j.Level.ERROR);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(new Configuration());
        env.setParallelism(config.threads());
        List<InflationRunStart> starts = new ArrayList<>();
        for (int p = 0; p < config.policies().size(); p++)
            for (long seed : config.seeds()) starts.add(new InflationRunStart(p, seed));
        Collected sink = new Collected();
        define(env, new RunList(starts), sink, config);
        JobClient job = env.executeAsync("gpusched inflate");
        Map<String, List<CurvePoint>> curves = new HashMap<>();
        List<InflationRun.Result> results = new ArrayList<>();
        try (CloseableIterator<InflationOutput> it = sink.outputs) {
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
        job.getJobExecutionResult().get();
        if (results.size() != starts.size())
            throw new IllegalStateException(
                    "the stream ended with " + results.size() + " of " + starts.size() + " runs finished");
        results.sort(Comparator.comparingInt(
                        (InflationRun.Result r) -> config.policies().indexOf(r.policy()))
                .thenComparingLong(InflationRun.Result::seed));
        return new InflationExperiment.Result(config, results);
    }
}
