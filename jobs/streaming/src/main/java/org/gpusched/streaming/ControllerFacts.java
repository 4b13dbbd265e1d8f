package org.gpusched.streaming;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.IntConsumer;
import java.util.function.IntUnaryOperator;
import org.gpusched.core.model.Cluster;
import org.gpusched.core.model.JobState;
import org.gpusched.core.model.MoveCost;
import org.gpusched.core.model.Node;
import org.gpusched.core.model.NodeType;
import org.gpusched.core.model.Placement;
import org.gpusched.streaming.avro.DecisionAction;
import org.gpusched.streaming.avro.JobCompleted;
import org.gpusched.streaming.avro.JobMetrics;
import org.gpusched.streaming.avro.PlacementDecision;
import org.gpusched.streaming.avro.SchedulingMetrics;
import org.gpusched.streaming.state.ControllerState;
import org.gpusched.streaming.state.JobRecord;
import org.gpusched.streaming.state.NodeSlot;

/**
 * What one controller key knows during one step, plain Java: its {@link ControllerState} (nodes, clock, costs, random
 * state, decision sequence), its jobs' records with their working memory ({@link ActiveJobs}) and the {@link Topology}
 * of its up nodes. The same facts live in these three places, so a job's placement and progress change only through
 * this class ({@link #writable}, {@link #place}, {@link #stop}, {@link #moved}), which changes all of them together;
 * {@link #dirty} and {@link #removed} tell the Flink shell which records to write back.
 */
final class ControllerFacts {
    /** Largest done fraction the optimizer may see: the model requires done < 1 while a job still runs. */
    static final double MAX_MODEL_DONE = 1 - 1e-6;

    /** The configuration's node types, by position (the index {@code JobTimes} rows use) and by name. */
    record Catalog(List<NodeType> types, Map<String, NodeType> byName, Map<String, Integer> index) {
        static Catalog of(SchedulerConfig config) {
            List<NodeType> types = config.cluster().types();
            Map<String, Integer> index = new HashMap<>();
            for (int t = 0; t < types.size(); t++) index.put(types.get(t).name(), t);
            return new Catalog(types, config.cluster().typesByName(), index);
        }
    }

    /** Where the step's records go: decisions (main output) and the side outputs. */
    interface Output {
        void decision(PlacementDecision d);

        void jobMetrics(JobMetrics m);

        void completion(JobCompleted c);

        void schedulingMetrics(SchedulingMetrics m);
    }

    /** The key's event-time timers. */
    interface Timers {
        void register(long millis);

        void delete(long millis);

        /** Whether input events of the key are buffered for that time (their timer must stay). */
        boolean inputPendingAt(long millis) throws Exception;
    }

    final SchedulerConfig config;
    final Catalog catalog;
    /** What stopping a running job costs it: progress since its last snapshot and a restart. */
    final MoveCost moveCost;

    final String policy;
    final int controller;
    final ControllerState state;
    final ActiveJobs jobs;
    /** The step's time (ms): never before the controller's clock. */
    final long now;

    final Output output;
    final Timers timers;
    /** Jobs whose record this step replaced or created (their record goes to state at the end). */
    final Set<String> dirty;
    /** Jobs that completed in this step (their record leaves state). */
    final Set<String> removed = new java.util.HashSet<>();

    /** The cached topology of the key's up nodes, or null (none yet, or dropped by a node event). */
    private Topology topology;

    ControllerFacts(
            SchedulerConfig config,
            Catalog catalog,
            String policy,
            int controller,
            ControllerState state,
            ActiveJobs jobs,
            Set<String> dirty,
            Topology cachedTopology,
            long now,
            Output output,
            Timers timers) {
        this.config = config;
        this.catalog = catalog;
        this.moveCost = config.moveCost();
        this.policy = policy;
        this.controller = controller;
        this.state = state;
        this.jobs = jobs;
        this.dirty = dirty;
        this.topology = cachedTopology;
        this.now = now;
        this.output = output;
        this.timers = timers;
    }

    /** The state of a controller before its first event: its share of the configured nodes, all up. */
    static ControllerState initialState(SchedulerConfig config, int controller) {
        List<NodeSlot> nodes = new ArrayList<>();
        List<SchedulerConfig.NodeSpec> configured = config.nodes();
        for (int i = 0; i < configured.size(); i++) {
            if (config.controllerOfNode(i) != controller) continue;
            SchedulerConfig.NodeSpec n = configured.get(i);
            nodes.add(new NodeSlot(n.id(), n.fixedType(), new ArrayList<>(n.allowedTypes()), null, true));
        }
        return ControllerState.newBuilder()
                .setNowMillis(Long.MIN_VALUE)
                .setRandomState(org.gpusched.core.random.RandomState.derive(config.seed(), controller)
                        .state())
                .setAccruedExecutionCost(0)
                .setAccruedTardinessCost(0)
                .setCompletedJobs(0)
                .setNextPeriodMillis(-1)
                .setSeq(0)
                .setNextEndMillis(-1)
                .setNodes(nodes)
                .build();
    }

    double nowSeconds() {
        return now / 1000.0;
    }

    // ---------------------------------------------------------------- progress

    /** The predicted done fraction now: the recorded one plus linear progress on the current placement since. */
    double modelDone(ActiveJobs.Entry e) {
        JobRecord j = e.record;
        if (j.getNode() == null || now <= j.getProgressMillis()) return j.getModelDone();
        return j.getModelDone() + (now - j.getProgressMillis()) / 1000.0 / e.predictedSeconds(catalog.index());
    }

    /**
     * The fraction of its work a waiting job has left as the optimizer sees it: 1 less {@link #optimizerDone}, which for
     * a job not running is its recorded done fraction kept below 1.
     */
    static double leftWhileWaiting(ActiveJobs.Entry e) {
        return 1 - Math.min(e.record.getModelDone(), MAX_MODEL_DONE);
    }

    /** The done fraction the optimizer sees: the predicted one, kept below 1 while the job still runs. */
    double optimizerDone(ActiveJobs.Entry e) {
        return Math.min(modelDone(e), MAX_MODEL_DONE);
    }

    /**
     * {@link #optimizerDone} of a running job from its walk figures ({@link ActiveJobs.Entry#walked}, derived for the
     * record as it is), to the bit: the same figures in the same operations, read off the entry alone.
     */
    double walkedOptimizerDone(ActiveJobs.Entry e) {
        double done = now <= e.walkProgressMillis
                ? e.walkModelDone
                : e.walkModelDone + (now - e.walkProgressMillis) / 1000.0 / e.predictedSeconds;
        return Math.min(done, MAX_MODEL_DONE);
    }

    /**
     * The job as the optimizer sees it, with what moving it would cost ({@link MoveCost}): a running job would lose its
     * progress since its last snapshot and restore it; a job preempted before would restore its snapshot.
     */
    JobState jobState(ActiveJobs.Entry e, Placement current) {
        double done = optimizerDone(e);
        if (e.record.getFirstStart() == null || moveCost.isFree()) return new JobState(e.model(), done, current);
        double ifRestarted = done;
        if (current != null && e.record.getRunStartMillis() >= 0) {
            long lost = moveCost.lostMillis(now - e.record.getRunStartMillis());
            ifRestarted = Math.max(0, done - lost / 1000.0 / e.predictedSeconds(catalog.index()));
        }
        return new JobState(e.model(), done, current, ifRestarted, moveCost.restartOverheadSeconds());
    }

    /** Restart seconds a waiting job pays when it starts: a job preempted before restores its snapshot. */
    double restartSeconds(ActiveJobs.Entry e) {
        return e.record.getFirstStart() == null ? 0 : moveCost.restartOverheadSeconds();
    }

    /** The true done fraction now (replay: the actual duration is the predicted one times actualFactor). */
    double done(ActiveJobs.Entry e) {
        JobRecord j = e.record;
        if (j.getNode() == null || now <= j.getProgressMillis()) return j.getDone();
        return j.getDone()
                + (now - j.getProgressMillis()) / 1000.0 / (e.predictedSeconds(catalog.index()) * e.actualFactor());
    }

    /**
     * The job's record, writable: a copy replacing it on its first change in this step (the stored one may be in an
     * asynchronous snapshot), with its progress written down to now on the placement it had until now.
     */
    JobRecord writable(ActiveJobs.Entry e) {
        String id = e.record.getSpec().getId();
        if (dirty.add(id)) {
            JobRecord j = copy(e.record);
            j.setDone(done(e));
            j.setModelDone(modelDone(e));
            // a job still restoring its snapshot starts progressing later than now
            j.setProgressMillis(Math.max(now, e.record.getProgressMillis()));
            jobs.replace(e, j);
        }
        e.changed();
        return e.record;
    }

    /** A shallow copy of a job's record: its spec is never changed, every other field is a value. */
    static JobRecord copy(JobRecord j) {
        return new JobRecord(
                j.getSpec(),
                j.getDone(),
                j.getModelDone(),
                j.getProgressMillis(),
                j.getNode(),
                j.getType(),
                j.getGpus(),
                j.getEndMillis(),
                j.getFirstStart(),
                j.getPreemptions(),
                j.getMigrations(),
                j.getResizes(),
                j.getRunStartMillis());
    }

    // ---------------------------------------------------------------- placements

    /**
     * A job starts, resizes or migrates to {@code node} as {@code type} with {@code gpus} GPUs (its record is writable
     * already): the record, the running index, the nodes' load and (replay) its end timer follow. A job leaving a
     * placement falls back to its last snapshot, and any but a first start restores it first.
     *
     * @return when the job begins progressing there (ms): now, or after the restart overhead
     */
    long place(ActiveJobs.Entry e, DecisionAction action, String node, String type, int gpus) {
        JobRecord j = e.record;
        boolean moving = j.getNode() != null;
        if (moving) {
            loseSinceSnapshot(e);
            moved(j.getNode(), j.getType(), -j.getGpus());
        }
        moved(node, type, gpus);
        boolean restart = moving || j.getFirstStart() != null;
        long progressFrom = now + (restart ? moveCost.restartOverheadMillis() : 0);
        j.setNode(node);
        j.setType(type);
        j.setGpus(gpus);
        j.setProgressMillis(progressFrom);
        j.setRunStartMillis(progressFrom);
        e.changed();
        if (j.getFirstStart() == null) j.setFirstStart(nowSeconds());
        if (action == DecisionAction.RESIZE) j.setResizes(j.getResizes() + 1);
        if (action == DecisionAction.MIGRATE) j.setMigrations(j.getMigrations() + 1);
        if (config.mode() == SchedulerConfig.Mode.REPLAY) setEnd(e);
        jobs.reindex(e);
        return progressFrom;
    }

    /** A running job stops where it is and waits (its record is writable already). */
    void stop(ActiveJobs.Entry e) {
        JobRecord j = e.record;
        loseSinceSnapshot(e);
        moved(j.getNode(), j.getType(), -j.getGpus());
        j.setNode(null);
        j.setType(null);
        j.setGpus(0);
        j.setEndMillis(-1L);
        j.setRunStartMillis(-1L);
        j.setPreemptions(j.getPreemptions() + 1);
        jobs.reindex(e);
    }

    /**
     * A running job leaving its placement (preempted, migrated or resized; its record is writable, its progress written
     * down to now) falls back to its last snapshot ({@link MoveCost}): both its true and its predicted done fractions
     * lose the progress made on the placement since then.
     */
    void loseSinceSnapshot(ActiveJobs.Entry e) {
        JobRecord j = e.record;
        long lost = moveCost.lostMillis(now - j.getRunStartMillis());
        if (j.getRunStartMillis() < 0 || lost == 0) return;
        double predicted = e.predictedSeconds(catalog.index());
        j.setDone(Math.max(0, j.getDone() - lost / 1000.0 / (predicted * e.actualFactor())));
        j.setModelDone(Math.max(0, j.getModelDone() - lost / 1000.0 / predicted));
        e.changed();
    }

    /** Replay: the real end of a running job on its placement, and a timer for it (its progress is as of now). */
    void setEnd(ActiveJobs.Entry e) {
        JobRecord j = e.record;
        double actualRemaining =
                e.model().timeOn(j.getType(), j.getGpus()) * e.actualFactor() * Math.max(0, 1 - j.getDone());
        long from = Math.max(now, j.getProgressMillis());
        long end = from + Math.max(1, (long) Math.ceil(actualRemaining * 1000 - 1e-6));
        j.setEndMillis(end);
        jobs.reindex(e);
        timers.register(end);
    }

    // ---------------------------------------------------------------- nodes

    /** The key's up nodes changed: the topology is built again when next asked. */
    void nodesChanged() {
        topology = null;
    }

    /** The cached topology, or null when none is built (the shell keeps it for the next step). */
    Topology cachedTopology() {
        return topology;
    }

    /** The key's cached topology, or a new one from the up nodes in state (after a node event or a restore); null when none is up. */
    Topology topology() {
        if (topology == null || topology.slots != state.getNodes().size()) {
            List<NodeSlot> slots = state.getNodes();
            List<Node> nodes = new ArrayList<>(slots.size());
            int[] slotOfNode = new int[slots.size()];
            for (int i = 0; i < slots.size(); i++) {
                NodeSlot n = slots.get(i);
                if (!n.getUp()) continue;
                slotOfNode[nodes.size()] = i;
                nodes.add(new Node(n.getId(), n.getFixedType(), n.getAllowedTypes()));
            }
            if (nodes.isEmpty()) return null; // no node is up: nothing can be scheduled
            Cluster cluster = new Cluster(catalog.types(), nodes);
            Topology built = new Topology(cluster, slots.size(), java.util.Arrays.copyOf(slotOfNode, nodes.size()));
            for (int n = 0; n < nodes.size(); n++) {
                String t = slots.get(built.slotOfNode[n]).getCurrentType();
                built.currentType[n] = t == null ? -1 : cluster.typeIndex(t);
            }
            for (ActiveJobs.Entry e : jobs.inOrder()) {
                if (e.running()) built.load.add(e.nodeIndex(cluster), e.typeIndex(cluster), e.record.getGpus());
            }
            topology = built;
        }
        return topology;
    }

    /**
     * A job of {@code gpus} GPUs came to this node as this type (negative: left it): the node's load changes, and its
     * type is checked at the next update of node types. Without a topology nothing is kept: the next one is built
     * from the jobs as they are then.
     */
    void moved(String node, String type, int gpus) {
        if (topology == null) return;
        int n = topology.cluster.nodeIndex(node);
        topology.load.add(n, topology.cluster.typeIndex(type), gpus);
        topology.touched.add(n);
    }

    /**
     * The type each up node runs as after the schedule: the type the policy gave it ({@code scheduledType}) while it
     * hosts jobs, else none. Only nodes some placement changed on since the last update can change (all of them after
     * a rebuild).
     */
    void updateNodeTypes(Topology topology, IntUnaryOperator scheduledType) {
        Cluster cluster = topology.cluster;
        List<NodeSlot> slots = state.getNodes();
        IntConsumer update = n -> {
            int t = scheduledType.applyAsInt(n);
            int type = topology.load.used(n) && t >= 0 ? t : -1;
            if (type != topology.currentType[n]) {
                topology.currentType[n] = type;
                slots.get(topology.slotOfNode[n])
                        .setCurrentType(type < 0 ? null : cluster.type(type).name());
            }
        };
        if (topology.allTouched) {
            for (int n = 0; n < cluster.nodeCount(); n++) update.accept(n);
        } else {
            for (int n : topology.touched) update.accept(n);
        }
        topology.touched.clear();
        topology.allTouched = false;
    }

    // ---------------------------------------------------------------- decisions

    PlacementDecision.Builder decision(
            JobRecord j,
            DecisionAction action,
            String node,
            String type,
            int gpus,
            String previousNode,
            Double expectedCompletion,
            Double expectedCost) {
        return PlacementDecision.newBuilder()
                .setTime(nowSeconds())
                .setJob(j.getSpec().getId())
                .setAction(action)
                .setNode(node)
                .setType(type)
                .setGpus(gpus)
                .setPreviousNode(previousNode)
                .setExpectedCompletion(expectedCompletion)
                .setExpectedCost(expectedCost)
                .setPolicy(policy)
                .setController(controller)
                .setSeq(0)
                .setReason(null);
    }

    /** Numbers the decision in the key's sequence and hands it on. */
    void emit(PlacementDecision d) {
        state.setSeq(state.getSeq() + 1);
        d.setSeq(state.getSeq());
        output.decision(d);
    }
}
