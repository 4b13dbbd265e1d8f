package org.gpusched.streaming;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.gpusched.core.model.Cluster;
import org.gpusched.core.model.Node;
import org.gpusched.core.model.NodeType;
import org.gpusched.core.model.SchedulingProblem;
import org.gpusched.core.objective.ObjectiveParameters;
import org.gpusched.core.policy.Policies;
import org.gpusched.formats.ClusterSpec;
import org.gpusched.streaming.SchedulerConfig.OptimizerScope;
import org.gpusched.streaming.avro.DecisionAction;
import org.gpusched.streaming.avro.ExecutionTime;
import org.gpusched.streaming.avro.JobSubmitted;
import org.junit.jupiter.api.Test;

/** Which nodes and jobs an optimizer is asked about under {@code --optimizer-scope nodes-with-room}. */
class RoomScopeTest {
    private static final NodeType G4 = new NodeType("G4", "X", 4, new double[] {0.5, 1, 1.8, 2.5, 3.2});

    /** Five nodes of four GPUs, n0 to n4, fixed; or VMs that may also be of type G2 (two GPUs). */
    private static SchedulerConfig config(boolean vms) {
        List<Node> nodes = new ArrayList<>();
        for (int n = 0; n < 5; n++) nodes.add(vms ? Node.rightsizable("n" + n) : Node.fixed("n" + n, "G4"));
        List<NodeType> types =
                vms ? List.of(G4, new NodeType("G2", "X", 2, new double[] {0.5, 0.8, 1.4})) : List.of(G4);
        return TestData.config(
                        new ClusterSpec(new Cluster(types, nodes), new ObjectiveParameters(100, 3600, 0)), "andreas-rg")
                .optimizerScope(OptimizerScope.NODES_WITH_ROOM)
                .build();
    }

    /** Fixed nodes, unless a test asks for VMs. */
    private SchedulerConfig config = config(false);

    private final ActiveJobs jobs = new ActiveJobs();
    private final StepRecorder recorder = new StepRecorder();
    private ControllerFacts facts = recorder.facts(config, ControllerFacts.initialState(config, 0), jobs, 0);

    /** The scope by GPU counts alone, as {@link RoomScope#of} chooses it without a {@link ModelDemand}. */
    private static RoomScope scope(
            Topology topology, int[] fewest, List<ActiveJobs.Entry> candidates, double pressedBy, boolean[] rescue) {
        return RoomScope.of(topology, fewest, candidates, Double.NaN, pressedBy, rescue, null, null);
    }

    private static boolean[] none() {
        return new boolean[5];
    }

    /** A job of 1000 s that runs on {@code fewest} to 4 GPUs of G4, due at 5000. */
    private static JobSubmitted job(String id, int fewest) {
        return job(id, fewest, 5000);
    }

    private static JobSubmitted job(String id, int fewest, double due) {
        List<ExecutionTime> times = new ArrayList<>();
        for (int g = fewest; g <= 4; g++) times.add(new ExecutionTime("G4", g, 1000.0 / g));
        JobSubmitted spec = TestData.job(id, 0, due, 1, 1000);
        spec.setTimes(times);
        return spec;
    }

    private void running(String id, int fewest, String node, int gpus) {
        started(job(id, fewest), node, "G4", gpus);
    }

    /** Submits the job and starts it on the node as the type with that many GPUs. */
    private void started(JobSubmitted spec, String node, String type, int gpus) {
        jobs.add(EventApplier.waiting(spec, 0));
        ActiveJobs.Entry e = jobs.get(spec.getId());
        facts.writable(e);
        facts.place(e, DecisionAction.START, node, type, gpus);
    }

    private void waiting(String id, int fewest) {
        jobs.add(EventApplier.waiting(job(id, fewest), 0));
    }

    /** n0: one job on 4 GPUs that could run on 1 (3 to give back); n1: 4 GPUs it needs all of; n3: 2 to give back. */
    private void fullNodes() {
        running("a", 1, "n0", 4);
        running("b", 4, "n1", 4);
        running("c", 2, "n3", 4);
    }

    private static List<String> nodes(RoomScope scope) {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < scope.cluster.nodeCount(); i++)
            ids.add(scope.cluster.node(i).id());
        return ids;
    }

    private static List<String> ids(List<ActiveJobs.Entry> entries) {
        return entries.stream().map(e -> e.record.getSpec().getId()).toList();
    }

    private ProblemBuilder ranked(Topology topology) {
        ProblemBuilder builder = new ProblemBuilder(facts);
        builder.rankWaiting(topology, Policies.create("andreas-rg", config.policyConfig()));
        return builder;
    }

    @Test
    void withNothingToPlaceAndNoNodeWithRoomNothingIsAsked() {
        fullNodes();
        Topology topology = facts.topology();
        ProblemBuilder builder = ranked(topology);
        assertNull(scope(
                topology,
                builder.ask(topology, true).byNode().fewest(),
                builder.ask(topology, false).candidates(),
                0,
                none()));
        assertTrue(builder.keptObjective(topology) > 0, "the kept jobs still count in f_OBJ");
    }

    @Test
    void aWaitingJobBringsInTheFullNodesThatCanGiveBackMostUntilItsGpusAreCoveredTwice() {
        fullNodes();
        waiting("w", 1);
        Topology topology = facts.topology();
        ProblemBuilder builder = ranked(topology);
        ProblemBuilder.Asked asked = builder.ask(topology, true);
        List<ActiveJobs.Entry> all = asked.candidates();
        RoomScope scope = scope(topology, asked.byNode().fewest(), all, 0, none());
        // w needs 1 GPU, twice that is 2: n0 alone gives back 3, so no node is switched on for it
        assertEquals(List.of("n0"), nodes(scope));
        assertEquals(
                List.of("a", "w"), ids(builder.within(topology, scope, asked).candidates()));
        // b and c, left where they run (4 GPUs each, 250 s, on time), still count in f_OBJ: their nodes' run cost
        assertEquals(
                2 * 250 / 3600.0 * G4.costPerHour(4),
                builder.within(topology, scope, asked).keptRunning(),
                1e-12);
        SchedulingProblem problem = builder.problem(
                topology, scope, builder.within(topology, scope, asked).candidates());
        assertEquals(0, problem.job(0).current().node(), "a runs on n0, node 0 of the scope");
        assertNull(problem.job(1).current());
        assertEquals(-1, scope.scopeNode[topology.cluster.nodeIndex("n1")]);
        assertEquals(0, scope.scopeNode[topology.cluster.nodeIndex("n0")]);
    }

    @Test
    void nodesThatAreOffComeInWhenTheUsedNodesCannotHoldTheQueueTwice() {
        fullNodes();
        waiting("w", 2);
        waiting("v", 1);
        Topology topology = facts.topology();
        ProblemBuilder builder = ranked(topology);
        ProblemBuilder.Asked asked = builder.ask(topology, true);
        List<ActiveJobs.Entry> all = asked.candidates();
        RoomScope scope = scope(topology, asked.byNode().fewest(), all, 0, none());
        // (2 + 1) x 2 = 6 GPUs wanted; n0 and n3 give back 5: n2 and n4 are switched on if need be
        assertEquals(List.of("n0", "n2", "n3", "n4"), nodes(scope));
        assertEquals(
                List.of("a", "c", "v", "w"),
                ids(builder.within(topology, scope, asked).candidates()),
                "submission order, ids on ties");
    }

    @Test
    void aRunningJobLateWhereItRunsButNotOnItsFastestConfigurationBringsInItsNode() {
        fullNodes();
        started(job("late", 1, 600), "n2", "G4", 1); // 1000 s on 1 GPU, due at 600; 250 s on 4
        running("fill", 3, "n2", 3); // n2 is full at its jobs' fewest GPUs
        started(job("hopeless", 4, 100), "n4", "G4", 4); // 250 s on its only configuration, due at 100
        Topology topology = facts.topology();
        ProblemBuilder builder = ranked(topology);
        boolean[] rescue = builder.ask(topology, true).byNode().rescue();
        assertEquals(
                List.of(false, false, true, false, false),
                List.of(rescue[0], rescue[1], rescue[2], rescue[3], rescue[4]),
                "n2's late job could be on time on 4 GPUs; n4's could not be on any");
        ProblemBuilder.Asked asked = builder.ask(topology, true);
        List<ActiveJobs.Entry> all = asked.candidates();
        assertNull(scope(topology, asked.byNode().fewest(), all, 0, none()), "every node is full, nothing waits");
        RoomScope scope = scope(topology, asked.byNode().fewest(), all, 0, rescue);
        assertEquals(List.of("n2"), nodes(scope));
        assertEquals(
                List.of("fill", "late"),
                ids(builder.within(topology, scope, asked).candidates()));
    }

    @Test
    void aWaitingJobShortOfTimeWidensTheScopeAndBringsInTheNodesThatAreOff() {
        fullNodes();
        waiting("w", 1); // due 5000, 250 s on 4 GPUs: short of time once now + H passes 4750
        Topology topology = facts.topology();
        ProblemBuilder builder = ranked(topology);
        ProblemBuilder.Asked asked = builder.ask(topology, true);
        List<ActiveJobs.Entry> all = asked.candidates();
        assertEquals(List.of("n0"), nodes(scope(topology, asked.byNode().fewest(), all, 4750, none())));
        RoomScope pressed = scope(topology, asked.byNode().fewest(), all, 4750.5, none());
        // 1 GPU x 4: n0 gives back 3, n3 the fourth; n2 and n4 are off and come in; n1 has nothing to give back
        assertEquals(List.of("n0", "n2", "n3", "n4"), nodes(pressed));
        assertFalse(pressed.whole());
        assertEquals(
                List.of("a", "c", "w"),
                ids(builder.within(topology, pressed, asked).candidates()));
    }

    @Test
    void fullVmsWhoseJobsCouldGiveBackAQuarterOfTheirGpusAreAskedWhateverTheQueue() {
        config = config(true);
        facts = recorder.facts(config, ControllerFacts.initialState(config, 0), jobs, 0);
        fullNodes();
        Topology topology = facts.topology();
        ProblemBuilder builder = ranked(topology);
        ProblemBuilder.Asked asked = builder.ask(topology, true);
        List<ActiveJobs.Entry> all = asked.candidates();
        RoomScope scope = scope(topology, asked.byNode().fewest(), all, 0, none());
        // nothing waits: the jobs of n0 (3 of 4 GPUs to give back) and n3 (2) may share one VM; n1 gives back nothing
        assertEquals(List.of("n0", "n3"), nodes(scope));
        assertEquals(
                List.of("a", "c"), ids(builder.within(topology, scope, asked).candidates()));
    }

    @Test
    void theJobsOfAPartlyUsedNodeCountAsGpusToPlace() {
        fullNodes();
        running("d", 2, "n2", 2); // n2 has two free GPUs: d may move, so its 2 GPUs are wanted too
        waiting("w", 1);
        Topology topology = facts.topology();
        ProblemBuilder builder = ranked(topology);
        ProblemBuilder.Asked asked = builder.ask(topology, true);
        List<ActiveJobs.Entry> all = asked.candidates();
        RoomScope scope = scope(topology, asked.byNode().fewest(), all, 0, none());
        // (1 + 2) x 2 = 6 GPUs: n0 gives back 3, n3 gives back 2, then n1 has none to give; with n2's 2 free GPUs
        // the used nodes hold w twice over, so n4 stays off
        assertEquals(List.of("n0", "n2", "n3"), nodes(scope));
        assertEquals(
                List.of("a", "c", "d", "w"),
                ids(builder.within(topology, scope, asked).candidates()));
    }

    @Test
    void withEveryNodeFullAtItsFewestGpusAWaitingJobBringsInEveryNodeAndNothingElseAsksAnything() {
        for (int n = 0; n < 5; n++) running("r" + n, 4, "n" + n, 4);
        Topology topology = facts.topology();
        ProblemBuilder builder = ranked(topology);
        assertNull(scope(
                topology,
                builder.ask(topology, true).byNode().fewest(),
                builder.ask(topology, false).candidates(),
                0,
                none()));

        waiting("w", 1); // it fits nowhere without preempting one of the running jobs: the optimizer's choice
        topology = facts.topology();
        builder = ranked(topology);
        RoomScope scope = scope(
                topology,
                builder.ask(topology, true).byNode().fewest(),
                builder.ask(topology, false).candidates(),
                0,
                none());
        assertTrue(scope.whole());
    }
    /** A job due at {@code due}: 1000 s on one GPU of an F2, 600 s on two, and {@code onS1} on one GPU of an S4. */
    private static JobSubmitted modelJob(String id, double due, double onS1, ExecutionTime... more) {
        JobSubmitted spec = TestData.job(id, 0, due, 1, 1000);
        List<ExecutionTime> times = new ArrayList<>(List.of(
                new ExecutionTime("F2", 1, 1000.0),
                new ExecutionTime("F2", 2, 600.0),
                new ExecutionTime("S4", 1, onS1)));
        times.addAll(List.of(more));
        spec.setTimes(times);
        return spec;
    }

    private void runningModelJob(String id, double due, String node, String type, int gpus) {
        started(modelJob(id, due, 1500, new ExecutionTime("S4", 4, 500.0)), node, type, gpus);
    }

    private RoomScope scopeWithModelDemand(Topology topology, ProblemBuilder builder) {
        ProblemBuilder.Asked asked = builder.ask(topology, true);
        ProblemBuilder.RunningByNode byNode = asked.byNode();
        return RoomScope.of(
                topology, byNode.fewest(), asked.candidates(), 0, 0, byNode.rescue(), byNode.slack(), byNode.demand());
    }

    /**
     * Fixed nodes of two GPU models, F2 (f0-f2) and S4 (s0, s1): every F2 full with a job that could run on one GPU (1
     * to give back each), f1's with most time to spare; s0 full with a job that could run on 1 of its 4 GPUs.
     */
    private void twoModels() {
        NodeType fast = new NodeType("F2", "F", 2, new double[] {0.5, 1, 1.5});
        NodeType slow = new NodeType("S4", "S", 4, new double[] {0.5, 1, 1.8, 2.5, 3.2});
        List<Node> nodes = List.of(
                Node.fixed("f0", "F2"),
                Node.fixed("f1", "F2"),
                Node.fixed("f2", "F2"),
                Node.fixed("s0", "S4"),
                Node.fixed("s1", "S4"));
        config = TestData.config(
                        new ClusterSpec(new Cluster(List.of(fast, slow), nodes), new ObjectiveParameters(100, 3600, 0)),
                        "andreas-rg")
                .optimizerScope(OptimizerScope.NODES_WITH_ROOM)
                .build();
        facts = recorder.facts(config, ControllerFacts.initialState(config, 0), jobs, 0);
        runningModelJob("f0job", 3000, "f0", "F2", 2);
        runningModelJob("f1job", 90000, "f1", "F2", 2);
        runningModelJob("f2job", 3000, "f2", "F2", 2);
        runningModelJob("s0job", 90000, "s0", "S4", 4);
    }

    @Test
    void aRunningJobLateOnItsModelButNotOnAnotherBringsInRoomOnThatModel() {
        twoModels();
        started(modelJob("late", 1200, 2000), "s1", "S4", 1); // 2000 s on an S4, due at 1200; 1000 s on one F2 GPU
        Topology topology = facts.topology();
        ProblemBuilder builder = ranked(topology);
        ProblemBuilder.Asked asked = builder.ask(topology, true);
        // nothing waits: by GPU counts s1 (rescued, 3 free GPUs) and s0 (3 to give back) hold s1's job twice over
        assertEquals(
                List.of("s0", "s1"),
                nodes(scope(
                        topology,
                        asked.byNode().fewest(),
                        asked.candidates(),
                        0,
                        asked.byNode().rescue())));
        // but it is on time only on an F2: f1, whose job has most time to spare, comes in whole
        assertEquals(List.of("f1", "s0", "s1"), nodes(scopeWithModelDemand(topology, builder)));
    }

    @Test
    void aJobOnTimeOnOneGpuModelOnlyBringsInThatModelsNodesWhoseJobsHaveMostTimeToSpare() {
        twoModels();
        jobs.add(EventApplier.waiting(modelJob("easy", 90000, 8000), 0)); // on time on both models
        Topology topology = facts.topology();
        // 1 GPU wanted twice over: s0's 3 cover it, whatever the model
        assertEquals(List.of("s0"), nodes(scopeWithModelDemand(topology, ranked(topology))));

        jobs.add(EventApplier.waiting(modelJob("tight", 800, 8000), 0)); // on time on both GPUs of an F2 only
        topology = facts.topology();
        ProblemBuilder builder = ranked(topology);
        ProblemBuilder.Asked asked = builder.ask(topology, true);
        // by GPUs alone, 2 x 2 = 4: s0 gives back 3 and f0 (lowest index) the fourth
        assertEquals(
                List.of("f0", "s0"), nodes(scope(topology, asked.byNode().fewest(), asked.candidates(), 0, none())));
        // tight wants 2 GPUs of an F2: f0 gives back 1, and f1, whose job can wait longest, comes in whole
        RoomScope scope = scopeWithModelDemand(topology, builder);
        assertEquals(List.of("f0", "f1", "s0"), nodes(scope));
        assertEquals(
                List.of("easy", "f0job", "f1job", "s0job", "tight"),
                ids(builder.within(topology, scope, asked).candidates()));
    }
}
