package org.gpusched.streaming.placement;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.apache.flink.api.common.eventtime.SerializableTimestampAssigner;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.CloseableIterator;
import org.gpusched.placement.experiment.PolicySpec;
import org.gpusched.placement.model.NodeSpec;

/**
 * The time-driven placement replay as a bounded Flink stream: the trace's pods (ordered by creation time, event time =
 * creation time) -> keyBy cluster -> {@link ReplayPlacementFunction}, which places each task at its creation time with
 * the policy and frees it at its deletion time -> {@link ReplayEvent}s in trace-time order. {@link #define} builds the
 * pipeline on a given source (tests call it); {@link #run} runs it on a local mini cluster.
 */
public final class PlacementReplay {
    private PlacementReplay() {}

    /** The single key: the whole cluster is one placement state. */
    public static final String CLUSTER_KEY = "cluster";

    public record Config(List<NodeSpec> nodes, ReplayTrace trace, PolicySpec policy, long seed) {
        public Config {
            if (nodes.isEmpty()) throw new IllegalArgumentException("no nodes");
        }
    }

    /** Key of a pod: the cluster. A named class, so Flink needs no lambda type extraction. */
    public static final class ClusterKey implements KeySelector<ReplayPod, String> {
        private static final long serialVersionUID = 1L;

        @Override public String getKey(ReplayPod p) { return CLUSTER_KEY; }
    }

    /** Event time of a pod: its creation time (trace seconds). */
    public static final class CreationTime implements SerializableTimestampAssigner<ReplayPod> {
        private static final long serialVersionUID = 1L;

        @Override public long extractTimestamp(ReplayPod p, long previous) { return p.creationTime; }
    }

    public static DataStream<ReplayEvent> define(DataStream<ReplayPod> pods, Config config) {
        return pods
                .assignTimestampsAndWatermarks(WatermarkStrategy.<ReplayPod>forBoundedOutOfOrderness(Duration.ZERO)
                        .withTimestampAssigner(new CreationTime()))
                .uid("replay-pod-times").name("replay pod times")
                .keyBy(new ClusterKey())
                .process(new ReplayPlacementFunction(config.nodes(), config.trace().tasks(), config.policy(), config.seed(),
                        config.trace().endTime()))
                .uid("replay-placement").name("replay placement");
    }

    /** Runs the replay on a local mini cluster; {@code each} sees every event in trace-time order. */
    public static void run(Config config, Consumer<ReplayEvent> each) throws Exception {
        org.apache.logging.log4j.core.config.Configurator.setLevel("org.apache.flink.streaming.api.operators.collect",
                org.apache.logging.log4j.Level.ERROR);
        Configuration conf = new Configuration();
        conf.set(PipelineOptions.GENERIC_TYPES, false);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(1); // one key: the cluster
        DataStream<ReplayPod> pods = env.fromData(new ArrayList<>(config.trace().pods())).uid("replay-pods").name("replay pods");
        try (CloseableIterator<ReplayEvent> it = define(pods, config).executeAndCollect("gpusched place-replay")) {
            while (it.hasNext()) each.accept(it.next());
        }
    }
}
