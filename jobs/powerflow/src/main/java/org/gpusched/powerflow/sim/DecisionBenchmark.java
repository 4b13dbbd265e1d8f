package org.gpusched.powerflow.sim;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.gpusched.core.random.RandomState;
import org.gpusched.powerflow.model.Configuration;
import org.gpusched.powerflow.model.JobModel;
import org.gpusched.powerflow.model.ModelFitter;
import org.gpusched.powerflow.model.Observation;
import org.gpusched.powerflow.model.PerformanceModel;
import org.gpusched.powerflow.policy.Assignment;
import org.gpusched.powerflow.policy.ClusterView;
import org.gpusched.powerflow.policy.JobView;
import org.gpusched.powerflow.policy.PowerFlowPolicy;
import org.gpusched.powerflow.truth.GroundTruth;

/**
 * Times one PowerFlow decision on a large cluster: {@code java -cp jobs/cli/target/gpusched.jar
 * org.gpusched.powerflow.sim.DecisionBenchmark [GPUS] [JOBS] [ETA] [ROUNDS]} (defaults 1000 GPUs, 500 jobs, eta 0.5,
 * 200 rounds after 50 of warm-up). Jobs get models fitted on one-GPU profiles of the ground truth (one fit per workload
 * and batch size, shared), random remaining work and the largest GPU count their batch allows. Prints the median, p90
 * and max of the decision time twice: with a policy that remembers nothing between decisions (cold), and with one
 * policy across a sequence of decisions in which one job's model is refitted each time (event: what the simulator and
 * a streaming scheduler see). {@code bin/powerflow-benchmark} runs it.
 */
public final class DecisionBenchmark {
    private DecisionBenchmark() {}

    public static void main(String[] args) {
        int gpus = args.length > 0 ? Integer.parseInt(args[0]) : 1000;
        int jobs = args.length > 1 ? Integer.parseInt(args[1]) : 500;
        double eta = args.length > 2 ? Double.parseDouble(args[2]) : 0.5;
        int rounds = args.length > 3 ? Integer.parseInt(args[3]) : 200;
        GroundTruth truth = GroundTruth.defaults();
        double[] limits = truth.config().gpu().powerLimits().stream()
                .mapToDouble(Double::doubleValue)
                .toArray();
        ClusterView cluster = new ClusterView(gpus, truth.config().gpu().gpusPerNode(), limits, truth.maxPower());
        List<String> names = new ArrayList<>();
        List<Double> batches = new ArrayList<>();
        List<PerformanceModel> models = new ArrayList<>();
        for (var w : truth.config().workloads()) {
            double[] measured = truth.measuredBatches(w.name());
            for (double b : new double[] {measured[measured.length / 2], measured[measured.length - 1]}) {
                List<Observation> obs = new ArrayList<>();
                for (double l : limits) {
                    GroundTruth.Outcome o = truth.at(w.name(), 1, b, l);
                    obs.add(new Observation(
                            Configuration.of(1, cluster.gpusPerNode(), b, l / cluster.maxLimit()),
                            o.stepTime(),
                            o.energyPerIteration()));
                }
                names.add(w.name());
                batches.add(b);
                models.add(ModelFitter.fit(obs, truth.config().gpu().freqLevels()));
            }
        }
        RandomState r = new RandomState(42);
        List<JobView> views = new ArrayList<>();
        for (int i = 0; i < jobs; i++) {
            int k = r.nextInt(models.size());
            int max = Integer.highestOneBit((int) Math.max(1, batches.get(k) / truth.minLocalBatch(names.get(k))));
            views.add(new JobView(
                    i,
                    i,
                    names.get(k),
                    batches.get(k),
                    1,
                    1000 + r.nextInt(1_000_000),
                    0,
                    max,
                    models.get(k),
                    Assignment.WAITING));
        }
        System.out.println(measure("cold (every model new to the policy)", cluster, views, eta, rounds, true));
        System.out.println(
                measure("event (one job's model refitted per decision)", cluster, views, eta, rounds, false));
    }

    /**
     * Times {@code rounds} decisions after 50 of warm-up. Between two decisions every job's remaining work shrinks by
     * 1% and takes the previous decision's assignment as its current one, as between two scheduling events; one job
     * (in turn) gets a new model instance, as after a refit. {@code cold}: a new policy per decision, so nothing is
     * remembered between decisions.
     */
    static String measure(
            String label, ClusterView cluster, List<JobView> start, double eta, int rounds, boolean cold) {
        List<JobView> views = new ArrayList<>(start);
        PowerFlowPolicy kept = new PowerFlowPolicy(eta);
        long[] nanos = new long[rounds];
        int allocated = 0;
        for (int i = 0; i < 50 + rounds; i++) {
            PowerFlowPolicy policy = cold ? new PowerFlowPolicy(eta) : kept;
            long t0 = System.nanoTime();
            var d = policy.decide(cluster, views);
            long t = System.nanoTime() - t0;
            if (i >= 50) nanos[i - 50] = t;
            allocated = d.values().stream().mapToInt(Assignment::gpus).sum();
            int refitted = i % views.size();
            for (int k = 0; k < views.size(); k++) {
                JobView v = views.get(k);
                JobModel m = v.model();
                if (k == refitted && m instanceof PerformanceModel pm)
                    m = new PerformanceModel(pm.time(), pm.energy()); // a new instance with the same values
                views.set(
                        k,
                        new JobView(
                                v.id(),
                                v.submitTime(),
                                v.workload(),
                                v.globalBatch(),
                                v.requestedGpus(),
                                v.remainingIterations() * 0.99,
                                v.attainedGpuSeconds(),
                                v.maxGpus(),
                                m,
                                d.get(v.id())));
            }
        }
        Arrays.sort(nanos);
        return String.format(
                Locale.ROOT,
                "powerflow decision, %d GPUs, %d jobs, eta %.2f, %s: median %.3f ms, p90 %.3f ms, max %.3f ms"
                        + " (%d rounds; %d GPUs allocated)",
                cluster.totalGpus(),
                start.size(),
                eta,
                label,
                nanos[rounds / 2] / 1e6,
                nanos[(int) (rounds * 0.9)] / 1e6,
                nanos[rounds - 1] / 1e6,
                rounds,
                allocated);
    }
}
