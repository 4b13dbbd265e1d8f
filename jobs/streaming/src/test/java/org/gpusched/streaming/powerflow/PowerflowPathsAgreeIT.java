package org.gpusched.streaming.powerflow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.gpusched.powerflow.policy.PowerFlowPolicy;
import org.gpusched.powerflow.sim.Experiment;
import org.gpusched.powerflow.sim.PolicySet;
import org.gpusched.powerflow.sim.RandomTraceSampler;
import org.gpusched.powerflow.sim.TraceFiles;
import org.gpusched.powerflow.sim.TraceJob;
import org.gpusched.powerflow.truth.GroundTruth;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * One PowerFlow, two paths: the streaming replay ({@code replay --policy powerflow}, the Flink job on a mini cluster)
 * and the simulator ({@code gpusched powerflow}) run the same trace, eta and seed to the same decisions, the same
 * per-job JCT and energy and the same totals, under either budget check. They share the simulated cluster
 * ({@code ClusterRun}); before, the replay sampled telemetry at every timer (submissions and stale completion timers
 * included), refitted at every new power limit and derived its noise from the submission index, and the two differed
 * by 10% and more.
 */
class PowerflowPathsAgreeIT {
    @TempDir
    Path tmp;

    @ParameterizedTest
    @EnumSource(PowerFlowPolicy.BudgetCheck.class)
    void theReplayAndTheSimulatorGiveTheSameRun(PowerFlowPolicy.BudgetCheck check) throws Exception {
        assertThePathsAgree(check, PowerFlowPolicy.StartLimit.EFFICIENT, "efficient");
    }

    @org.junit.jupiter.api.Test
    void theyAgreeWithTheLeastEnergyStartTooWhichDecidesOtherwise() throws Exception {
        List<String> leastEnergy = assertThePathsAgree(
                PowerFlowPolicy.BudgetCheck.NODE_BOUNDARY, PowerFlowPolicy.StartLimit.LEAST_ENERGY, "least");
        List<String> efficient = assertThePathsAgree(
                PowerFlowPolicy.BudgetCheck.NODE_BOUNDARY, PowerFlowPolicy.StartLimit.EFFICIENT, "efficient");
        org.junit.jupiter.api.Assertions.assertNotEquals(efficient, leastEnergy, "the start limit reaches both paths");
    }

    /** The replay's decisions, once they are checked against the simulator's. */
    private List<String> assertThePathsAgree(
            PowerFlowPolicy.BudgetCheck check, PowerFlowPolicy.StartLimit start, String name) throws Exception {
        Path tmp = this.tmp.resolve(name);
        GroundTruth truth = GroundTruth.defaults();
        List<TraceJob> jobs = RandomTraceSampler.sample(30, 400, RandomTraceSampler.JobSize.MEDIUM, 3, truth);
        Path trace = tmp.resolve("trace.jsonl");
        TraceFiles.write(trace, jobs);
        double eta = 0.5;
        int gpus = 16;
        long seed = 3;

        PowerflowSettings cfg = PowerflowTestData.replaySettings(eta, gpus, seed)
                .withBudgetCheck(check)
                .withStartLimit(start);
        Path replay = tmp.resolve("replay");
        PowerflowRunDirectory.Written written = PowerflowTestData.replay(trace, cfg, replay);
        assertNotNull(written.run(), written.noAccounting());

        Path sim = tmp.resolve("sim");
        List<Experiment.Row> rows = Experiment.run(
                truth,
                jobs,
                gpus,
                seed,
                PolicySet.expand(
                        List.of("powerflow"),
                        List.of(eta),
                        List.of(),
                        PowerFlowPolicy.Normalizer.CLUSTER,
                        check,
                        start,
                        org.gpusched.powerflow.policy.TimeSlicing.NONE),
                sim,
                null);
        Experiment.Row s = rows.get(0), r = written.run();
        String run = Experiment.powerflowRun(eta);
        assertEquals(s.run(), run);
        assertEquals(30, s.jobs());
        assertTrue(s.refits() > 0, "the runs profile new GPU counts");
        assertEquals(
                Files.readAllLines(sim.resolve("decisions-" + run + ".csv")),
                Files.readAllLines(replay.resolve("decisions-" + run + ".csv")),
                "the same decisions at the same times");
        assertEquals(
                Files.readAllLines(sim.resolve("jobs-" + run + ".csv")),
                Files.readAllLines(replay.resolve("jobs-" + run + ".csv")),
                "each job's JCT and energy");
        assertEquals(s.meanJctSeconds(), r.meanJctSeconds(), 1e-9 * s.meanJctSeconds());
        assertEquals(s.energyKWh(), r.energyKWh(), 1e-9 * s.energyKWh());
        assertEquals(s.idleKWh(), r.idleKWh(), 1e-9 + 1e-9 * s.idleKWh());
        assertEquals(s.refits(), r.refits());
        assertTrue(
                Files.readString(replay.resolve("setup.json")).contains("\"startLimit\":\"" + start.label() + "\""),
                "the run directory says which start limit decided");
        return Files.readAllLines(replay.resolve("decisions-" + run + ".csv"));
    }
}
