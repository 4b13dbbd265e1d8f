package org.gpusched.streaming;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import org.gpusched.core.model.Cluster;
import org.gpusched.core.model.JobTimes;

/**
 * The part of a key's cluster an optimizer is asked about under {@link SchedulerConfig.OptimizerScope#NODES_WITH_ROOM}
 * (and under {@link SchedulerConfig.OptimizerScope#AUTO}, the default, for a controller of more than {@value
 * #WHOLE_CLUSTER_NODES} nodes), as a cluster of its own ({@link Cluster#restrictedTo}) with the map between its node
 * indices and the topology's:
 * <ul>
 *   <li>every used node with a free GPU;</li>
 *   <li>of the full nodes whose jobs could run on fewer GPUs than they hold (the post-processing hands a node's idle
 *       GPUs to its jobs, so a node is often full of jobs that would give GPUs back), as many as it takes for the GPUs
 *       they could give back to cover {@value #NEED_MARGIN} times the fewest GPUs of the waiting candidates and of the
 *       jobs on nodes with free GPUs (which may move to free their node): those that could give back most first, then
 *       by index;</li>
 *   <li>whatever the queue, the full rightsizable nodes whose jobs could give back at least 1/{@value
 *       #UNDERUSED_SHARE} of their GPUs: the whole-cluster optimizer would pack their jobs onto fewer VMs;</li>
 *   <li>the nodes that are off, only when the free GPUs of used nodes and those the full nodes above give back are
 *       fewer than {@value #NEED_MARGIN} times what the waiting candidates need: a node switched on for a job that could
 *       have shared one is a lease the whole-cluster optimizer would not pay;</li>
 *   <li>the nodes of running jobs that will end late where they run but would not on their fastest configuration
 *       ({@code rescue}): growing or moving them may still bring them in on time;</li>
 *   <li>where GPU models are bound to nodes, for the jobs on time on some models only (waiting, or rescued), nodes of
 *       those models until they hold the GPUs those jobs want there ({@link ModelDemand}).</li>
 * </ul>
 * The jobs of the other nodes keep running where they are. An event thus costs the cluster's spare room and the queue
 * it has to place, not the cluster's size. While a waiting job is short of time (it would end late even on its fastest
 * configuration started one period from now), the full nodes are brought in to {@value #PRESSED_MARGIN} times the
 * GPUs wanted, and the nodes that are off with them. Otherwise the scope is every node while the waiting jobs at their
 * fewest GPUs outnumber the free GPUs and those the full nodes could give back: then making room may take preempting a
 * job of a full node, and which one is the optimizer's choice. (Every node for a pressed job took 51.6 s of the
 * 298 s of optimizer time of the 100,000-job benchmark, in 425 calls; docs/benchmarks-scale.md compares the costs.)
 * Built per event, never kept.
 */
final class RoomScope {
    /**
     * Full nodes are brought in until they could give back this many times the GPUs wanted: the best packing is not
     * always on the node that gives back most. 1 cost 11.6 % more than the whole cluster on the first 1,000 jobs of
     * the 1,000-node benchmark, 2 cost 8.9 %, 4 cost 3.9 % (one seed each; docs/benchmarks-scale.md).
     */
    static final int NEED_MARGIN = 2;
    /**
     * The margin while a waiting job is short of time: making room for it may take shrinking or moving jobs of more
     * full nodes, and the nodes that are off are brought in too.
     */
    static final int PRESSED_MARGIN = 4;
    /**
     * A full rightsizable node (a VM) comes in whatever the queue when its jobs could give back at least 1/{@value} of
     * its GPUs: two such VMs may fit on one, whose lease ends, and without them a draining cluster stayed spread over
     * twice as many VMs as the whole-cluster optimizer kept (docs/benchmarks-scale.md: 2 cost +10.8 % at most on
     * eleven 1,000-VM instances, 4 +4.9 %, 8 +6.5 %, none +27.2 %). Not for fixed nodes: packing them saves only idle
     * power, and the moves it made cost the fixed 1,000-node instances 7-12 % more.
     */
    static final int UNDERUSED_SHARE = 4;
    /**
     * Controllers of at most this many nodes are asked whole under {@link SchedulerConfig.OptimizerScope#AUTO}: a
     * whole-cluster call there costs a few milliseconds (p50 4-17 ms at 50-100 nodes, docs/benchmarks-scale.md), and
     * the scope, cheaper on average, was 11 % dearer than the whole cluster on one such instance.
     */
    static final int WHOLE_CLUSTER_NODES = 128;

    /** Whether {@code setting} asks an optimizer about a scope of the topology's cluster rather than all of it. */
    static boolean scoped(SchedulerConfig.OptimizerScope setting, Topology topology) {
        return switch (setting) {
            case ALL_NODES -> false;
            case NODES_WITH_ROOM -> true;
            case AUTO -> topology.cluster.nodeCount() > WHOLE_CLUSTER_NODES;
        };
    }

    final Cluster cluster;
    /** Per node of the topology's cluster, its index in {@link #cluster}, or -1 when it is left out. */
    final int[] scopeNode;
    /** Per node of {@link #cluster}, the type it runs as now (-1: off), as the topology says. */
    final int[] currentType;

    private RoomScope(Cluster cluster, int[] scopeNode, int[] currentType) {
        this.cluster = cluster;
        this.scopeNode = scopeNode;
        this.currentType = currentType;
    }

    /**
     * The scope of {@code topology}, or null when it holds no node. {@code fewest}, {@code rescue} and {@code slack}:
     * per topology node, the fewest GPUs its jobs could run on, whether it is brought in for a late job, and the most
     * time one of its jobs has to spare ({@link ProblemBuilder.RunningByNode}). {@code candidates}: the jobs the
     * optimizer would be asked about on the whole cluster (it reads the waiting ones alone, so these may be all it is
     * given), the waiting ones ranked ({@link ActiveJobs.Entry#waitRank}: due date minus fastest remaining time). A
     * waiting candidate whose rank is below {@code pressedBy} (now + H) is short of time and widens the scope. {@code
     * demand} (null: the scope is chosen by GPU counts alone) holds the GPUs the rescued running jobs want per GPU
     * model ({@link ModelDemand}); the waiting candidates', started at {@code now}, are added to it, and the scope holds
     * room on the models they are on time on.
     */
    static RoomScope of(
            Topology topology,
            int[] fewest,
            List<ActiveJobs.Entry> candidates,
            double now,
            double pressedBy,
            boolean[] rescue,
            double[] slack,
            ModelDemand demand) {
        Cluster whole = topology.cluster;
        int nodes = whole.nodeCount();
        int waitingNeed = 0;
        boolean pressed = false;
        for (ActiveJobs.Entry e : candidates) {
            if (e.indexedAsRunning()) continue;
            if (e.waitRank < pressedBy) pressed = true;
            waitingNeed += fewestGpus(e.times(whole), whole);
            if (demand != null) {
                double left = ControllerFacts.leftWhileWaiting(e);
                // on time everywhere, or late even on its fastest: no model to make room on
                if (now + e.slowestSeconds * left > e.dueSeconds && e.waitRank >= now)
                    demand.add(e.times(whole), now, left, e.dueSeconds);
            }
        }
        int margin = pressed ? PRESSED_MARGIN : NEED_MARGIN;
        int need = waitingNeed;
        int free = 0, givable = 0, usedFree = 0;
        int[] spare = new int[nodes];
        int[] byGivable = new int[whole.maxGpus() + 1];
        for (int n = 0; n < nodes; n++) {
            if (!topology.load.full(n)) {
                spare[n] = -1;
                need += fewest[n]; // its jobs may move to free the node
                if (topology.load.used(n)) {
                    int f = topology.load.capacity(n) - topology.load.busy(n);
                    free += f;
                    usedFree += f;
                } else {
                    free += topology.mostGpus[n];
                }
                continue;
            }
            spare[n] = topology.load.capacity(n) - fewest[n];
            if (spare[n] > 0) byGivable[spare[n]]++;
            givable += Math.max(0, spare[n]);
        }
        // the waiting jobs cannot all fit without preempting a job of a full node: a choice among every job
        if (free + givable < waitingNeed && !pressed) return everyNode(topology);
        need *= margin;
        // the fewest GPUs that still admit a full node: most givable first, ties to the lowest index
        int threshold = whole.maxGpus() + 1, ties = 0, covered = 0;
        while (covered < need && threshold > 1) {
            threshold--;
            int take = Math.min(byGivable[threshold], (need - covered + threshold - 1) / threshold);
            covered += take * threshold;
            ties = take;
        }
        // switching a node on is the last resort: while the used nodes' room holds the queue twice over, new VMs would
        // only leave the jobs they would take spread over more nodes than the whole-cluster optimizer would use
        boolean offNodesWanted = pressed || usedFree + covered < waitingNeed * margin;
        int[] scopeNode = new int[nodes]; // marked 0 when in, numbered below
        for (int n = 0; n < nodes; n++) {
            boolean in = spare[n] < 0 || spare[n] > threshold || (spare[n] == threshold && ties-- > 0);
            if (!offNodesWanted && !topology.load.used(n)) in = false;
            if (rescue[n]) in = true;
            if (spare[n] > 0
                    && whole.candidateTypes(n).length > 1
                    && spare[n] * UNDERUSED_SHARE >= topology.load.capacity(n)) in = true;
            scopeNode[n] = in ? 0 : -1;
        }
        if (demand != null && demand.any()) roomOnModels(topology, demand, spare, slack, scopeNode);
        int[] kept = new int[nodes];
        int count = 0;
        for (int n = 0; n < nodes; n++) {
            if (scopeNode[n] < 0) continue;
            scopeNode[n] = count;
            kept[count++] = n;
        }
        if (count == 0) return null;
        int[] topologyNode = Arrays.copyOf(kept, count);
        int[] currentType = new int[count];
        for (int i = 0; i < count; i++) currentType[i] = topology.currentType[topologyNode[i]];
        Cluster cluster = count == nodes ? whole : whole.restrictedTo(topologyNode);
        return new RoomScope(cluster, scopeNode, currentType);
    }

    /**
     * Brings in, for each GPU model some job is on time on and not on others, nodes of that model until what the scope
     * holds of it (free GPUs of used nodes, GPUs full nodes could give back, nodes that are off) covers what those jobs
     * want there: first full nodes, counted whole, those whose jobs have the most time to spare ({@code slack}: due
     * date less predicted end, the most of a node's jobs) first, ties to the lowest index; then nodes that are off.
     * Once, not {@value #NEED_MARGIN} times, what is wanted: every node brought in has its jobs re-decided, and twice
     * cost 0.3 % more over fifteen {@code andreas} instances (docs/benchmarks-scale.md). Marks them in {@code
     * scopeNode} (0, numbered by the caller).
     */
    private static void roomOnModels(
            Topology topology, ModelDemand demand, int[] spare, double[] slack, int[] scopeNode) {
        int nodes = scopeNode.length;
        for (int m = 0; m < demand.models(); m++) {
            if (demand.need(m) == 0) continue;
            int want = demand.need(m);
            int room = 0;
            List<Integer> full = new ArrayList<>();
            for (int n = 0; n < nodes; n++) {
                if (!onModel(topology, demand, n, m)) continue;
                if (scopeNode[n] >= 0) room += roomOf(topology, spare, n);
                else if (spare[n] >= 0) full.add(n);
            }
            // jobs with time to spare can shrink, move to another model or wait for the job that needs this one
            full.sort(Comparator.<Integer>comparingDouble(n -> -slack[n]).thenComparingInt(n -> n));
            for (int i = 0; i < full.size() && room < want; i++) {
                int n = full.get(i);
                scopeNode[n] = 0;
                room += topology.load.capacity(n);
            }
            for (int n = 0; n < nodes && room < want; n++) {
                if (scopeNode[n] < 0 && !topology.load.used(n) && demand.serves(n, m)) {
                    scopeNode[n] = 0;
                    room += topology.mostGpus[n];
                }
            }
        }
    }

    /** Whether node n runs as model m now, or, when off, can. */
    private static boolean onModel(Topology topology, ModelDemand demand, int n, int m) {
        return topology.load.used(n) ? demand.modelOf(topology.load.type(n)) == m : demand.serves(n, m);
    }

    /** The GPUs a node of the scope offers: free ones of a used node, those a full one could give back, or all. */
    private static int roomOf(Topology topology, int[] spare, int n) {
        if (!topology.load.used(n)) return topology.mostGpus[n];
        return topology.load.full(n) ? Math.max(0, spare[n]) : topology.load.capacity(n) - topology.load.busy(n);
    }

    private static RoomScope everyNode(Topology topology) {
        int nodes = topology.cluster.nodeCount();
        int[] identity = new int[nodes];
        for (int n = 0; n < nodes; n++) identity[n] = n;
        return new RoomScope(topology.cluster, identity, topology.currentType.clone());
    }

    /** The fewest GPUs the job runs on, over the types some node of {@code cluster} can be. */
    private static int fewestGpus(JobTimes times, Cluster cluster) {
        int least = 0;
        for (int t = 0; t < cluster.typeCount(); t++) {
            if (!cluster.typeAvailable(t)) continue;
            int g = times.fewestGpus(t);
            if (g > 0 && (least == 0 || g < least)) least = g;
        }
        return least;
    }

    /** Whether every node of the topology is in the scope, so its cluster is the topology's own. */
    boolean whole() {
        return cluster.nodeCount() == scopeNode.length;
    }
}
