package org.gpusched.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.util.concurrent.TimeUnit;
import org.gpusched.core.model.Schedule;
import org.gpusched.core.model.SchedulingProblem;
import org.gpusched.core.policy.Policies;
import org.gpusched.core.policy.PolicyConfig;
import org.gpusched.core.policy.SchedulingPolicy;
import org.gpusched.core.random.RandomState;
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
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One optimizer call, as a controller makes it on every rescheduling event: {@code policy.schedule(problem, random)}
 * on an ANDREAS-like instance ({@link BenchInstances}, fixed seed) of {@code nodes} nodes and {@code jobs} queued jobs,
 * MaxIt = 1000. The policy instance and its random state live across calls, as in the streaming job, so scratch
 * memory is reused. SampleTime reports the median (p0.50) and p0.99 per call.
 *
 * <p>Memory across calls: run with {@code -prof gc} (gc.alloc.rate.norm = bytes allocated per call, gc.count); and
 * after every iteration the heap still in use after a full GC is printed ("heap after GC"), which stays flat when
 * calls leak nothing. Issue target: nodes=100, jobs=1000, andreas-rg, median <= 10 ms on one core.
 *
 * <p>Run: {@code bin/bench-optimizer} (short settings for a small box), or
 * {@code java -jar jobs/bench/target/benchmarks.jar OptimizerBenchmark -p nodes=100 -p jobs=1000 -prof gc}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2, time = 3)
@Measurement(iterations = 3, time = 5)
@Fork(
        value = 1,
        jvmArgsAppend = {"-Xmx4g"})
public class OptimizerBenchmark {
    /** Fixed instance seed: every run benchmarks the same instances. */
    public static final long INSTANCE_SEED = 20_260_101L;

    @Param({"andreas-rg", "greedy", "rg-ls"})
    public String policy;

    @Param({"10", "100", "1000"})
    public int nodes;

    @Param({"100", "1000", "10000"})
    public int jobs;

    @Param("1000")
    public int maxIterations;

    /** free: the papers' moves; charged: moves cost a restore and lost progress, as in the product's default. */
    @Param({"free", "charged"})
    public String moves;

    private SchedulingProblem problem;
    private SchedulingPolicy optimizer;
    private RandomState random;
    private final MemoryMXBean memory = ManagementFactory.getMemoryMXBean();

    @Setup(Level.Trial)
    public void setUp() {
        problem = BenchInstances.andreasLike(INSTANCE_SEED, nodes, jobs, moves.equals("charged"));
        optimizer = Policies.create(policy, PolicyConfig.DEFAULTS.withMaxIterations(maxIterations));
        random = RandomState.derive(INSTANCE_SEED, 1);
    }

    @Benchmark
    public Schedule optimizerCall() {
        return optimizer.schedule(problem, random);
    }

    @TearDown(Level.Iteration)
    public void reportHeap() {
        System.gc();
        long used = memory.getHeapMemoryUsage().getUsed();
        System.out.printf("%nheap after GC: %.1f MB (%s, nodes=%d, jobs=%d)%n", used / 1048576.0, policy, nodes, jobs);
    }
}
