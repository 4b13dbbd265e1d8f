package org.gpusched.streaming;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.gpusched.core.model.Cluster;
import org.gpusched.core.model.Node;
import org.gpusched.core.model.NodeType;
import org.gpusched.core.objective.ObjectiveParameters;
import org.gpusched.core.random.RandomState;
import org.gpusched.formats.ClusterSpec;
import org.gpusched.streaming.avro.DecisionAction;
import org.gpusched.streaming.avro.ExecutionTime;
import org.gpusched.streaming.avro.JobSubmitted;
import org.gpusched.streaming.state.ControllerState;
import org.junit.jupiter.api.Test;

/** The running jobs' f_OBJ share kept as they change, against the walk over them it stands for. */
class RunningTermsTest {
    private static final double MU = 0.25;
    private static final int NODES = 6;

    /** Nodes n0..n5 of a 2-GPU type (0.5/h idle, 1/h with one GPU busy, 1.8/h with two), idle GPUs charged. */
    private static final SchedulerConfig CONFIG = SchedulerConfig.builder()
            .cluster(cluster())
            .policy("fifo")
            .seed(7)
            .moveOverheadSeconds(120)
            .snapshotIntervalSeconds(600)
            .build();

    private static ClusterSpec cluster() {
        NodeType g2 = new NodeType("G2", "X", 2, new double[] {0.5, 1.0, 1.8});
        List<Node> nodes = new ArrayList<>();
        for (int i = 0; i < NODES; i++) nodes.add(Node.fixed("n" + i, "G2"));
        return new ClusterSpec(new Cluster(List.of(g2), nodes), new ObjectiveParameters(100, 3600, MU));
    }

    private final ActiveJobs jobs = new ActiveJobs();
    private final StepRecorder recorder = new StepRecorder();
    private final ControllerState state = ControllerFacts.initialState(CONFIG, 0);
    private Topology topology;

    private ControllerFacts step(long nowMillis) {
        ControllerFacts facts = recorder.facts(CONFIG, state, jobs, topology, nowMillis);
        topology = facts.topology();
        return facts;
    }

    /**
     * Random starts, moves (progress resumes after the restart overhead), preemptions, completions and progress
     * corrections, one job to a node, with clock jumps that carry jobs past their due dates and past their predicted
     * ends (their done fraction held at the cap), and a queue past {@link ProblemBuilder#EXACT_PRICING_QUEUE}: at every
     * step the kept terms give the walk's sum to rounding and the nodes it finds held, from a cluster's first call on.
     */
    @Test
    void theKeptTermsFollowStartsMovesStopsEndsAndCorrectionsAsTheWalkSumsThem() {
        RandomState r = new RandomState(11);
        for (int i = 0; i < ProblemBuilder.EXACT_PRICING_QUEUE + 200; i++) {
            double submit = i * 0.01;
            double onOne = 600 + r.nextInt(5000);
            JobSubmitted spec =
                    TestData.job(String.format("j%05d", i), submit, submit + 500 + r.nextInt(200_000), 1, 0);
            spec.setWeight(r.nextInt(4) * 0.5);
            spec.setTimes(List.of(new ExecutionTime("G2", 1, onOne), new ExecutionTime("G2", 2, onOne * 0.6)));
            jobs.add(EventApplier.waiting(spec, 0));
        }
        long now = 0;
        int nextWaiting = 0;
        int incremental = 0;
        for (int stepNo = 0; stepNo < 400; stepNo++) {
            now += r.nextInt(4) == 0 ? 0 : 1000L * r.nextInt(1500);
            ControllerFacts facts = step(now);
            List<ActiveJobs.Entry> running = new ArrayList<>(jobs.runningInOrder());
            List<String> free = new ArrayList<>();
            for (int n = 0; n < NODES; n++)
                if (!topology.load.used(n)) free.add(topology.cluster.node(n).id());
            int action = r.nextInt(6);
            if (action <= 1 && !free.isEmpty()) {
                ActiveJobs.Entry e = jobs.get(String.format("j%05d", nextWaiting++));
                facts.writable(e);
                facts.place(e, DecisionAction.START, free.get(r.nextInt(free.size())), "G2", 1 + r.nextInt(2));
            } else if (action == 2 && !running.isEmpty() && !free.isEmpty()) {
                ActiveJobs.Entry e = running.get(r.nextInt(running.size()));
                facts.writable(e);
                facts.place(e, DecisionAction.MIGRATE, free.get(r.nextInt(free.size())), "G2", 1 + r.nextInt(2));
            } else if (action == 3 && !running.isEmpty()) {
                ActiveJobs.Entry e = running.get(r.nextInt(running.size()));
                facts.writable(e);
                facts.stop(e);
            } else if (action == 4 && !running.isEmpty()) {
                ActiveJobs.Entry e = running.get(r.nextInt(running.size()));
                facts.moved(e.record.getNode(), e.record.getType(), -e.record.getGpus());
                jobs.remove(e.record.getSpec().getId());
            } else if (!running.isEmpty()) {
                ActiveJobs.Entry e = running.get(r.nextInt(running.size()));
                facts.writable(e).setModelDone(r.nextInt(100) / 100.0);
            }
            facts.updateNodeTypes(topology, n -> topology.load.type(n));
            assertTrue(jobs.size() - jobs.runningCount() > ProblemBuilder.EXACT_PRICING_QUEUE);
            double walked = new ProblemBuilder(facts, false).keptObjective(topology);
            double kept = new ProblemBuilder(facts, true).keptObjective(topology);
            RunningTerms terms = jobs.runningTerms(topology.cluster, facts.catalog.index(), MU, facts.nowSeconds());
            assertEquals(jobs.runningCount(), terms.size(), "every running job is counted");
            assertEquals(walked, kept, 1e-9 * Math.max(1, Math.abs(walked)), "step " + stepNo + " at " + now);
            ProblemBuilder.HeldNodes walkedHeld = new ProblemBuilder(facts, false).heldNodes(topology);
            ProblemBuilder.HeldNodes keptHeld = new ProblemBuilder(facts, true).heldNodes(topology);
            assertArrayEquals(walkedHeld.types(), keptHeld.types());
            assertArrayEquals(walkedHeld.empty(), keptHeld.empty(), "the empty nodes kept as the walk finds them");
            assertEquals(walked, terms.total() + jobs.postponedPenalty(facts.nowSeconds()), 1e-9 * Math.max(1, walked));
            if (jobs.runningCount() > 0) incremental++;
        }
        assertTrue(incremental > 300, "most steps price running jobs: " + incremental);
    }

    /**
     * One job, 1,000 s on one GPU of n0 (1/h), due at 1,500 s, weight 3.6/h, one GPU idle (0.25): its cost falls
     * while it runs, stays put once its predicted end passes (done held at the cap), and its tardiness grows from its
     * due date on.
     */
    @Test
    void aJobPastItsPredictedEndCostsNoMoreUntilItsDueDateAndThenGrowsLate() {
        JobSubmitted spec = TestData.job("a", 0, 1500, 3.6, 0);
        spec.setTimes(List.of(new ExecutionTime("G2", 1, 1000.0)));
        jobs.add(EventApplier.waiting(spec, 0));
        ControllerFacts start = step(0);
        ActiveJobs.Entry a = jobs.get("a");
        start.writable(a);
        start.place(a, DecisionAction.START, "n0", "G2", 1);
        double rem = 1000 * (1 - ControllerFacts.MAX_MODEL_DONE);
        double[][] expected = {
            {0, 1000 / 3600.0 + MU},
            {500, 500 / 3600.0 + MU},
            {1000, rem / 3600.0 + MU},
            {1499, rem / 3600.0 + MU},
            {2000, rem / 3600.0 + MU + 0.001 * (2000 + rem - 1500)},
            {3000, rem / 3600.0 + MU + 0.001 * (3000 + rem - 1500)}
        };
        for (double[] e : expected) {
            ControllerFacts f = step((long) (e[0] * 1000));
            RunningTerms terms = jobs.runningTerms(topology.cluster, f.catalog.index(), MU, f.nowSeconds());
            assertEquals(e[1], terms.total(), 1e-12, "at " + e[0] + " s");
        }
    }
}
