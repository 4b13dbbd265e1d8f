package org.gpusched.placement.experiment;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Consumer;
import org.gpusched.placement.model.ClusterState;
import org.gpusched.placement.model.NodeSpec;
import org.gpusched.placement.model.TargetWorkload;
import org.gpusched.placement.model.Task;

/**
 * The PWR paper's experiment: for every seed, one inflation sequence; for every policy, one {@link InflationRun} of it.
 * The target workload of the fragmentation measure is the trace itself ({@link TargetWorkload#fromTasks}). Runs are
 * independent and may go on several threads; results come back in (policy, seed) order whatever the threads did, so
 * the output is deterministic.
 */
public final class InflationExperiment {
    public record Config(
            List<NodeSpec> nodes,
            List<Task> trace,
            List<PolicySpec> policies,
            List<Long> seeds,
            double load,
            double step,
            int threads) {
        public Config {
            if (nodes.isEmpty()) throw new IllegalArgumentException("no nodes");
            if (policies.isEmpty()) throw new IllegalArgumentException("no policies");
            if (seeds.isEmpty()) throw new IllegalArgumentException("no seeds");
            if (!(load > 0 && load <= 5)) throw new IllegalArgumentException("load must be in (0, 5], got " + load);
            if (!(step > 0 && step <= load))
                throw new IllegalArgumentException("step must be in (0, load], got " + step);
            if (threads < 1) throw new IllegalArgumentException("threads must be >= 1");
            nodes = List.copyOf(nodes);
            trace = List.copyOf(trace);
            policies = List.copyOf(policies);
            seeds = List.copyOf(seeds);
        }
    }

    public record Result(Config config, List<InflationRun.Result> runs) {
        public List<CurvePoint> curve() {
            List<CurvePoint> all = new ArrayList<>();
            runs.forEach(r -> all.addAll(r.curve()));
            return all;
        }
    }

    private InflationExperiment() {}

    /** Runs everything; {@code progress} receives each finished run (from worker threads, one at a time). */
    public static Result run(Config config, Consumer<InflationRun.Result> progress) {
        TargetWorkload workload = TargetWorkload.fromTasks(config.trace());
        long capacity = new ClusterState(config.nodes(), null).gpuMilliCapacity();
        if (capacity == 0) throw new IllegalArgumentException("the cluster has no GPU");
        ExecutorService pool = Executors.newFixedThreadPool(config.threads(), r -> {
            Thread t = new Thread(r, "inflation");
            t.setDaemon(true);
            return t;
        });
        try {
            List<Future<InflationRun.Result>> futures = new ArrayList<>();
            for (long seed : config.seeds()) {
                int[] sequence = TaskSequence.sample(config.trace(), capacity, config.load(), seed);
                for (PolicySpec spec : config.policies()) {
                    futures.add(pool.submit(() -> {
                        InflationRun.Result r = InflationRun.run(
                                config.nodes(),
                                workload,
                                config.trace(),
                                sequence,
                                spec,
                                seed,
                                config.step(),
                                config.load());
                        synchronized (progress) {
                            progress.accept(r);
                        }
                        return r;
                    }));
                }
            }
            List<InflationRun.Result> runs = new ArrayList<>();
            for (Future<InflationRun.Result> f : futures) runs.add(f.get());
            runs.sort(Comparator.comparingInt(
                            (InflationRun.Result r) -> config.policies().indexOf(r.policy()))
                    .thenComparingLong(InflationRun.Result::seed));
            return new Result(config, runs);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException re) throw re;
            throw new IllegalStateException(e.getCause());
        } finally {
            pool.shutdownNow();
        }
    }
}
