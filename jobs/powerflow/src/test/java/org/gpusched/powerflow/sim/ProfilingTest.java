package org.gpusched.powerflow.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import org.gpusched.powerflow.policy.AfsPolicy;
import org.gpusched.powerflow.policy.ClusterView;
import org.gpusched.powerflow.policy.LimitChoice;
import org.gpusched.powerflow.policy.PowerFlowPolicy;
import org.gpusched.powerflow.policy.TiresiasPolicy;
import org.gpusched.powerflow.truth.GroundTruth;
import org.gpusched.powerflow.truth.PowerflowConfig;
import org.junit.jupiter.api.Test;

/**
 * Profiling as the papers book it, on a noiseless ground truth so that every figure can be worked out by hand:
 * PowerFlow's pre-run is JCT and energy without progress, a new GPU count is swept on the cluster at every limit before
 * the model is refitted, Zeus profiles in the job (progress counts) and keeps its cheapest limit, AFS is not charged.
 */
class ProfilingTest {
    private static final PowerflowConfig DEFAULTS = PowerflowConfig.defaults();
    private static final GroundTruth QUIET = NoiselessTruth.TRUTH;
    private static final double SLICE = DEFAULTS.telemetry().profileSecondsPerLimit();
    private static final List<Double> LIMITS = DEFAULTS.gpu().powerLimits();

    private static double preRunEnergy(String workload, double batch) {
        double e = 0;
        for (double l : LIMITS) e += SLICE * QUIET.at(workload, 1, batch, l).power();
        return e;
    }

    @Test
    void thePreRunIsJctAndEnergyAndNoProgress() {
        // bert-squad at its smallest measured batch: one GPU only, so PowerFlow never scales it out
        double batch = QUIET.minLocalBatch("bert-squad");
        TraceJob job = new TraceJob(1, 100, "bert-squad", batch, 1, 5000);
        Simulation.Result r = new Simulation(QUIET, 8, 1, new HashMap<>()).run(new PowerFlowPolicy(1.5), List.of(job));
        assertEquals(1, r.changes().size(), "one start, at the pre-run's end: " + r.changes());
        Simulation.Change start = r.changes().get(0);
        assertEquals(100 + 7 * SLICE, start.time(), 1e-9);
        GroundTruth.Outcome run = QUIET.at("bert-squad", 1, batch, start.powerLimit());
        Simulation.JobResult done = r.jobs().get(0);
        // every one of the 5,000 iterations runs on the cluster after the 210-s pre-run
        assertEquals(7 * SLICE + 5000 * run.stepTime(), done.jct(), 0.002);
        assertEquals(preRunEnergy("bert-squad", batch) + 5000 * run.energyPerIteration(), done.energyJoules(), 1.0);
        assertEquals(0, r.refits());
    }

    @Test
    void aNewGpuCountIsSweptAtEveryLimitOnTheClusterThenRefittedAndDecidedAgain() {
        // resnet50 at batch 256 may run on up to 32 workers; alone with a generous budget PowerFlow scales it out
        TraceJob job = new TraceJob(1, 0, "resnet50", 256, 1, 200_000);
        Simulation.Result r = new Simulation(QUIET, 8, 1, new HashMap<>()).run(new PowerFlowPolicy(1.5), List.of(job));
        Simulation.Change first = r.changes().get(0);
        assertTrue(first.gpus() >= 2, "scaled out at once: " + first);
        assertEquals(7 * SLICE, first.time(), 1e-9);
        // the sweep: every limit from the lowest, a slice each, on the same GPUs
        for (int k = 0; k < LIMITS.size(); k++) {
            Simulation.Change c = r.changes().get(k);
            assertEquals(first.gpus(), c.gpus());
            assertEquals(LIMITS.get(k), c.powerLimit());
            assertEquals(7 * SLICE + k * SLICE, c.time(), 1e-9);
        }
        assertTrue(r.refits() >= 1, "refitted at the sweep's end");
        // the work of the sweep counts: 30 s at each limit, then the rest at the decided configuration
        double swept = 0, sweptEnergy = 0;
        for (double l : LIMITS) {
            GroundTruth.Outcome o = QUIET.at("resnet50", first.gpus(), 256, l);
            swept += SLICE / o.stepTime();
            sweptEnergy += SLICE * o.power();
        }
        assertTrue(swept > 0 && swept < 200_000);
        assertTrue(r.jobs().get(0).energyJoules() > preRunEnergy("resnet50", 256) + sweptEnergy);
    }

    @Test
    void zeusProfilesInTheJobWithProgressAndKeepsItsCheapestLimit() {
        TraceJob job = new TraceJob(1, 50, "resnet50", 256, 2, 5000);
        Simulation.Result r =
                new Simulation(QUIET, 8, 1, new HashMap<>()).run(new TiresiasPolicy(LimitChoice.zeus()), List.of(job));
        // no pre-run: it starts at submission, at the largest limit, and trains 50-iteration windows downwards
        List<Double> down = new ArrayList<>(LIMITS);
        java.util.Collections.reverse(down);
        double t = 50, done = 0, energy = 0;
        double[] steps = new double[LIMITS.size()], energies = new double[LIMITS.size()];
        for (int k = 0; k < down.size(); k++) {
            Simulation.Change c = r.changes().get(k);
            assertEquals(down.get(k), c.powerLimit(), "window " + k);
            assertEquals(t, c.time(), 0.002);
            GroundTruth.Outcome o = QUIET.at("resnet50", 2, 256, down.get(k));
            t = c.time() + JobRun.millis(ClusterRun.ZEUS_WINDOW * o.stepTime()) / 1000.0;
            done += (JobRun.millis(ClusterRun.ZEUS_WINDOW * o.stepTime()) / 1000.0) / o.stepTime();
            energy += (JobRun.millis(ClusterRun.ZEUS_WINDOW * o.stepTime()) / 1000.0) * o.power();
            int i = LIMITS.indexOf(down.get(k));
            steps[i] = o.stepTime();
            energies[i] = o.energyPerIteration();
        }
        double chosen = LimitChoice.zeusOptimum(
                LIMITS.stream().mapToDouble(Double::doubleValue).toArray(), steps, energies, 2);
        Simulation.Change last = r.changes().get(LIMITS.size());
        assertEquals(chosen, last.powerLimit());
        assertEquals(t, last.time(), 0.002);
        GroundTruth.Outcome o = QUIET.at("resnet50", 2, 256, chosen);
        Simulation.JobResult j = r.jobs().get(0);
        assertEquals(t - 50 + (5000 - done) * o.stepTime(), j.jct(), 0.01);
        assertEquals(energy + (5000 - done) * o.energyPerIteration(), j.energyJoules(), 1e-5 * j.energyJoules());
    }

    @Test
    void afsIsNotPreRunAndSeesTheTruth() {
        TraceJob job = new TraceJob(1, 10, "bert-squad", QUIET.minLocalBatch("bert-squad"), 1, 3000);
        Simulation.Result r =
                new Simulation(QUIET, 8, 1, new HashMap<>()).run(new AfsPolicy(LimitChoice.fixed(200)), List.of(job));
        GroundTruth.Outcome o = QUIET.at("bert-squad", 1, job.batch(), 200);
        assertEquals(10, r.changes().get(0).time(), 1e-9);
        assertEquals(3000 * o.stepTime(), r.jobs().get(0).jct(), 0.002);
        assertEquals(3000 * o.energyPerIteration(), r.jobs().get(0).energyJoules(), 1.0);
    }

    /**
     * The overhead alone: under {@link ModelSource#TRUTH_PROFILED} the job is pre-run and swept as a fitted one is,
     * and each fit hands PowerFlow the ground truth, so it ends on the configuration the ideal case picks at once.
     */
    @Test
    void truthProfiledIsProfiledAsAFittedJobAndDecidedOnTheTruth() {
        TraceJob job = new TraceJob(1, 0, "resnet50", 256, 1, 200_000);
        Simulation.Result ideal = new Simulation(QUIET, 8, 1, new HashMap<>(), ModelSource.TRUTH)
                .run(new PowerFlowPolicy(1.5), List.of(job));
        Simulation.Result profiled = new Simulation(QUIET, 8, 1, new HashMap<>(), ModelSource.TRUTH_PROFILED)
                .run(new PowerFlowPolicy(1.5), List.of(job));
        Simulation.Change chosen = ideal.changes().get(0);
        assertEquals(0, chosen.time(), 1e-9, "the ideal case starts at submission");
        assertEquals(1, ideal.changes().size(), "and never changes: " + ideal.changes());
        assertTrue(chosen.gpus() >= 2, "scaled out: " + chosen);

        // the pre-run, then the sweep of every limit on the GPUs the truth chose, then the truth's configuration
        for (int k = 0; k < LIMITS.size(); k++) {
            Simulation.Change c = profiled.changes().get(k);
            assertEquals(chosen.gpus(), c.gpus(), "slice " + k);
            assertEquals(LIMITS.get(k), c.powerLimit(), "slice " + k);
            assertEquals(7 * SLICE + k * SLICE, c.time(), 1e-9, "slice " + k);
        }
        Simulation.Change after = profiled.changes().get(profiled.changes().size() - 1);
        assertEquals(chosen.gpus(), after.gpus());
        assertEquals(chosen.powerLimit(), after.powerLimit());
        assertTrue(profiled.refits() >= 1, "the sweep's end is a fit, as for a fitted job");
        // what PowerFlow saw at each fit: the truth, never a model fitted from the telemetry
        List<Object> seen = new ArrayList<>();
        ClusterView cluster = Simulation.cluster(QUIET, 8);
        ClusterRun direct = new ClusterRun(
                QUIET,
                cluster,
                new PowerFlowPolicy(1.5),
                ModelSource.TRUTH_PROFILED,
                (j, previous) -> {
                    throw new AssertionError("fitted from telemetry");
                },
                new ClusterRun.Listener() {
                    @Override
                    public void fitted(long millis, JobRun j, boolean newGpuCount) {
                        seen.add(j.model());
                    }
                });
        direct.submit(new JobRun(
                1, 1, 1, 0, "resnet50", 256, 1, 200_000, Simulation.maxGpus(QUIET, cluster, "resnet50", 256)));
        while (direct.hasWork()) direct.event(direct.nextEventMillis());
        assertEquals(2, seen.size(), "the pre-run's fit and the sweep's: " + seen);
        for (Object m : seen) assertTrue(m instanceof ClusterRun.TruthModel, "the truth: " + m);

        // worked out: the pre-run (no progress), the sweep's slices (progress at each limit's speed), then the rest
        double swept = 0, sweptEnergy = 0;
        for (double l : LIMITS) {
            GroundTruth.Outcome o = QUIET.at("resnet50", chosen.gpus(), 256, l);
            swept += SLICE / o.stepTime();
            sweptEnergy += SLICE * o.power();
        }
        GroundTruth.Outcome kept = QUIET.at("resnet50", chosen.gpus(), 256, chosen.powerLimit());
        Simulation.JobResult ideally = ideal.jobs().get(0),
                overhead = profiled.jobs().get(0);
        assertEquals(200_000 * kept.stepTime(), ideally.jct(), 0.01);
        assertEquals(14 * SLICE + (200_000 - swept) * kept.stepTime(), overhead.jct(), 0.01);
        assertEquals(
                preRunEnergy("resnet50", 256) + sweptEnergy + (200_000 - swept) * kept.energyPerIteration(),
                overhead.energyJoules(),
                1e-5 * overhead.energyJoules());
    }
}
