package org.gpusched.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.gpusched.core.random.RandomState;
import org.gpusched.placement.io.AlibabaTraceCsv;
import org.gpusched.placement.model.ClusterState;
import org.gpusched.placement.model.NodeSpec;
import org.gpusched.placement.model.Placement;
import org.gpusched.placement.model.TargetWorkload;
import org.gpusched.placement.model.Task;
import org.gpusched.placement.policy.PlacementPolicies;
import org.gpusched.placement.policy.PlacementPolicy;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One placement decision on the real 1213-node Alibaba cluster (6212 GPUs): the policy scores every feasible node for
 * a task drawn from the Default trace, on a cluster pre-filled by FGD to {@code load} of its GPU capacity. The state is
 * not changed by the measured call, so every sample sees the same cluster. Target: median under 1 ms.
 *
 * <p>Run: {@code java -jar jobs/bench/target/benchmarks.jar PlacementBenchmark -p traces=../shared/traces/alibaba-gpu-2023}
 * (the default path assumes the working directory is the repository root, with shared/ beside it).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 2)
@Fork(1)
public class PlacementBenchmark {
    @Param({"fgd", "pwr-fgd", "pwr", "bestfit"})
    public String policy;

    @Param({"0.5", "0.9"})
    public double load;

    @Param("../shared/traces/alibaba-gpu-2023")
    public String traces;

    private ClusterState cluster;
    private PlacementPolicy chosen;
    private List<Task> trace;
    private RandomState random;
    private RandomState taskDraw;

    @Setup(Level.Trial)
    public void setUp() {
        Path dir = Path.of(traces);
        if (!Files.isDirectory(dir))
            throw new IllegalStateException("trace folder not found: " + dir.toAbsolutePath() + " (-p traces=...)");
        List<NodeSpec> nodes = AlibabaTraceCsv.readNodes(dir.resolve("openb_node_list_gpu_node.csv"));
        trace = AlibabaTraceCsv.readPods(dir.resolve("openb_pod_list_default.csv"));
        cluster = new ClusterState(nodes, TargetWorkload.fromTasks(trace));
        PlacementPolicy filler = PlacementPolicies.byName("fgd", 0).get();
        RandomState fill = new RandomState(7);
        long requested = 0;
        while (requested < load * cluster.gpuMilliCapacity()) {
            Task t = trace.get(fill.nextInt(trace.size()));
            requested += t.gpuMilliTotal();
            Placement p = filler.choose(t, cluster, fill);
            if (p != null) cluster.place(t, p);
        }
        chosen = PlacementPolicies.byName(policy, 0.1).get();
        random = new RandomState(11);
        taskDraw = new RandomState(13);
    }

    @Benchmark
    public Placement decide() {
        return chosen.choose(trace.get(taskDraw.nextInt(trace.size())), cluster, random);
    }
}
