package org.gpusched.streaming;

import java.util.Arrays;
import java.util.List;
import org.gpusched.core.model.Cluster;
import org.gpusched.core.model.JobTimes;

/**
 * The part of a key's cluster an optimizer is asked about under {@link SchedulerConfig.OptimizerScope#NODES_WITH_ROOM},
 * as a cluster of its own ({@link Cluster#restrictedTo}) with the map between its node indices and the topology's:
 * <ul>
 *   <li>every used node with a free GPU;</li>
 *   <li>of the full nodes whose jobs could run on fewer GPUs than they hold (the post-processing hands a node's idle
 *       GPUs to its jobs, so a node is often full of jobs that would give GPUs back), as many as it takes for the GPUs
 *       they could give back to cover {@value #NEED_MARGIN} times the fewest GPUs of the waiting candidates and of the
 *       jobs on nodes with free GPUs (which may move to free their node): those that could give back most first, then
 *       by index;</li>
 *   <li>the nodes that are off, only when the free GPUs of used nodes and those the full nodes above give back are
 *       fewer than {@value #NEED_MARGIN} times what the waiting candidates need: a node switched on for a job that could
 *       have shared one is a lease the whole-cluster optimizer would not pay;</li>
 *   <li>the nodes of running jobs that will end late where they run but would not on their fastest configuration
 *       ({@code rescue}): growing or moving them may still bring them in on time.</li>
 * </ul>
 * The jobs of the other nodes keep running where they are. An event thus costs the cluster's spare room and the queue
 * it has to place, not the cluster's size. The scope is every node while a waiting job is short of time (it would end
 * late even on its fastest configuration started one period from now), or while the waiting jobs at their fewest GPUs
 * outnumber the free GPUs and those the full nodes could give back: then making room may take preempting a job of a
 * full node, and which one is the optimizer's choice. Built per event, never kept.
 */
final class RoomScope {
    /**
     * Full nodes are brought in until they could give back this many times the GPUs wanted: the best packing is not
     * always on the node that gives back most. 1 cost 11.6 % more than the whole cluster on the first 1,000 jobs of
     * the 1,000-node benchmark, 2 cost 8.9 %, 4 cost 3.9 % (one seed each; docs/benchmarks-scale.md).
     */
    static final int NEED_MARGIN = 2;

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
     * The scope of {@code topology}, or null when it holds no node; {@code running}: its running jobs;
     * {@code candidates}: the jobs the optimizer would be asked about on the whole cluster, the waiting ones ranked
     * ({@link ActiveJobs.Entry#waitRank}: due date minus fastest remaining time). Every node is in the scope when a
     * waiting candidate is short of time, its rank below {@code pressedBy} (now + H): it may need a running job
     * preempted or shrunk anywhere. {@code rescue}: per topology node, whether it is brought in for a late job
     * ({@link ProblemBuilder#nodesOfLateJobsThatCouldBeOnTime}).
     */
    static RoomScope of(
            Topology topology,
            Iterable<ActiveJobs.Entry> running,
            List<ActiveJobs.Entry> candidates,
            double pressedBy,
            boolean[] rescue) {
        Cluster whole = topology.cluster;
        int nodes = whole.nodeCount();
        int waitingNeed = 0;
        for (ActiveJobs.Entry e : candidates) {
            if (e.running()) continue;
            if (e.waitRank < pressedBy) return everyNode(topology);
            waitingNeed += fewestGpus(e.times(whole), whole);
        }
        int[] fewest = new int[nodes];
        for (ActiveJobs.Entry e : running) {
            int least = e.times(whole).fewestGpus(e.typeIndex(whole));
            int gpus = e.record.getGpus();
            fewest[e.nodeIndex(whole)] += least == 0 ? gpus : Math.min(least, gpus);
        }
        int need = waitingNeed;
        int free = 0, givable = 0, usedFree = 0;
        int[] spare = new int[nodes];
        int[] byGivable = new int[whole.maxGpus() + 1];
        for (int n = 0; n < nodes; n++) {
            if (!topology.load.full(n)) {
                spare[n] = -1;
                need += fewest[n]; // its jobs may move to free the node
                if (topology.load.used(n)) {
                    int f = whole.type(topology.load.type(n)).gpus() - topology.load.busy(n);
                    free += f;
                    usedFree += f;
                } else {
                    free += mostGpus(whole, n);
                }
                continue;
            }
            spare[n] = whole.type(topology.load.type(n)).gpus() - fewest[n];
            if (spare[n] > 0) byGivable[spare[n]]++;
            givable += Math.max(0, spare[n]);
        }
        // the waiting jobs cannot all fit without preempting a job of a full node: a choice among every job
        if (free + givable < waitingNeed) return everyNode(topology);
        need *= NEED_MARGIN;
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
        boolean offNodesWanted = usedFree + covered < waitingNeed * NEED_MARGIN;
        int[] scopeNode = new int[nodes];
        int[] kept = new int[nodes];
        int count = 0;
        for (int n = 0; n < nodes; n++) {
            boolean in = spare[n] < 0 || spare[n] > threshold || (spare[n] == threshold && ties-- > 0);
            if (!offNodesWanted && !topology.load.used(n)) in = false;
            if (rescue[n]) in = true;
            scopeNode[n] = in ? count : -1;
            if (in) kept[count++] = n;
        }
        if (count == 0) return null;
        int[] topologyNode = Arrays.copyOf(kept, count);
        int[] currentType = new int[count];
        for (int i = 0; i < count; i++) currentType[i] = topology.currentType[topologyNode[i]];
        Cluster cluster = count == nodes ? whole : whole.restrictedTo(topologyNode);
        return new RoomScope(cluster, scopeNode, currentType);
    }

    private static RoomScope everyNode(Topology topology) {
        int nodes = topology.cluster.nodeCount();
        int[] identity = new int[nodes];
        for (int n = 0; n < nodes; n++) identity[n] = n;
        return new RoomScope(topology.cluster, identity, topology.currentType.clone());
    }

    private static int mostGpus(Cluster cluster, int n) {
        int most = 0;
        for (int t : cluster.candidateTypes(n))
            most = Math.max(most, cluster.type(t).gpus());
        return most;
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
