package org.gpusched.core.policy;

import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.gpusched.core.model.Cluster;

/**
 * "Shrink-and-insert", an extra neighbourhood of {@code rg-ls} that is <b>ours, not the thesis'</b> (the thesis'
 * seven are in {@link LocalSearchPolicy}). Why: the randomized greedy gives early jobs their cheapest configuration,
 * often every GPU of a node, and its sub-optimal step only looks at free GPUs, so on tight clusters later jobs are
 * postponed and pay rho x w x worst-case tardiness, which dwarfs what giving a running job fewer GPUs costs. None of
 * the thesis' neighbourhoods can start a postponed job without evicting a whole running one.
 *
 * <p>For the k postponed jobs of highest postponement penalty (the {@code w} below), each round evaluates:
 * <ol>
 *   <li><b>shrink and insert</b>: on every used node, with its type or (rightsizable) another of its types, every
 *       combination of GPU counts of its running jobs that are at most their current ones (all jobs keep a time on
 *       the type; with the current type and no change this is a plain insert into idle GPUs), with {@code w} on any
 *       of its configurations that fits in the GPUs left;</li>
 *   <li><b>insert into a node switched on for it</b>: {@code w} alone on an off node, on every type and GPU count
 *       it has (one node per class of nodes with the same candidate types: they are interchangeable for f_OBJ);</li>
 *   <li><b>move one running job out to make room</b>: a running job {@code r} of a used node goes to its best other
 *       place (any type and GPU count it has, on the open node with room that lowers f_OBJ most, or on an off node
 *       switched on for it) and {@code w} takes, on the node's type, a GPU count that needs {@code r}'s GPUs;</li>
 *   <li><b>postpone one running job in its stead</b>: {@code r} is postponed and {@code w} takes, on the node's type,
 *       any GPU count that fits in {@code r}'s and the idle ones. The thesis' third neighbourhood is narrower: w must
 *       take r's exact configuration and r must have the lower pressure, so it cannot trade a running job of small
 *       postponement penalty for a waiting one of large penalty when their pressures are the other way round.</li>
 * </ol>
 * Every move is first scored here from the per-job and per-node terms of f_OBJ of the one or two nodes it touches
 * (no copy, no full evaluation); only a move scoring below the round's best so far is handed to the search's exact
 * incremental evaluation, which decides, so the best-improving semantics are those of the other neighbourhoods.
 * The GPU-count combinations of one node and type are capped at {@value #MAX_COMBINATIONS} (reached only on nodes
 * with many GPUs and many multi-GPU jobs), enumerated in a fixed order; everything is deterministic.
 * Scratch arrays are reused across rounds and calls.
 */
final class ShrinkAndInsertNeighbourhood {
    static final int MAX_COMBINATIONS = 512;

    private final LocalSearch s;
    private Cluster cluster;
    private int jobs, nodes, types, slots, stride;
    private double mu;
    /** Nodes with the same candidate types share a class: switching on any of them is the same move for f_OBJ. */
    private int[] nodeClass = new int[0];

    private int classCount;
    /** The cluster the classes were computed for: the streaming job calls again and again on the same one. */
    private Cluster classesOf;

    // per round
    private int[] waiting = new int[0];
    private int waitingCount;
    /**
     * Per waiting job a (its position in {@code waiting}), type t and GPU count g, at [(a * types + t) * stride + g]:
     * its tardiness term there minus its postponement penalty (NaN: no time there), and its execution cost there.
     */
    private double[] waitGain = new double[0], waitCost = new double[0];

    private int[] classFirstOff = new int[0];
    private int[] typeOffNode = new int[0];
    /** Per (type, g): the two open nodes of that type with >= g idle GPUs and the largest least execution cost. */
    private int[] open1 = new int[0], open2 = new int[0];

    private double[] nodeLeast = new double[0];
    /** Per running job, its best move elsewhere (relocation), computed lazily once per round. */
    private int[] relocStamp = new int[0], relocNode = new int[0], relocType = new int[0], relocGpus = new int[0];

    private double[] relocDelta = new double[0];
    private int stamp;

    // per (node, type): the node's jobs, their options and the enumerated combinations
    private int memberCount;
    private int[] members = new int[0], optCount = new int[0], optGpus = new int[0], minGpusFrom = new int[0];
    private double[] optDTerm = new double[0], optCost = new double[0];
    private int[] choice = new int[0];
    private int leafCount;
    private int[] leafBusy = new int[0], leafGpus = new int[0];
    private double[] leafDTerm = new double[0], leafMinCost = new double[0];

    ShrinkAndInsertNeighbourhood(LocalSearch search) {
        this.s = search;
    }

    /** Per call, after the search has loaded its problem and start. */
    void load(int k) {
        cluster = s.cluster;
        jobs = s.jobs;
        nodes = s.nodes;
        types = cluster.typeCount();
        slots = s.slots;
        stride = slots + 1;
        mu = s.mu;
        if (waiting.length < jobs) {
            waiting = new int[jobs];
            relocStamp = new int[jobs];
            relocNode = new int[jobs];
            relocType = new int[jobs];
            relocGpus = new int[jobs];
            relocDelta = new double[jobs];
        }
        Arrays.fill(relocStamp, 0, jobs, 0);
        stamp = 0;
        if (nodeClass.length < nodes) {
            nodeClass = new int[nodes];
            classFirstOff = new int[nodes];
            nodeLeast = new double[nodes];
            classesOf = null;
        }
        if (cluster != classesOf) {
            Map<List<Integer>, Integer> classes = new HashMap<>();
            for (int n = 0; n < nodes; n++) {
                List<Integer> key =
                        Arrays.stream(cluster.candidateTypes(n)).boxed().toList();
                nodeClass[n] = classes.computeIfAbsent(key, x -> classes.size());
            }
            classCount = classes.size();
            classesOf = cluster;
        }
        if (typeOffNode.length < types) typeOffNode = new int[types];
        if (waitGain.length < k * types * stride) {
            waitGain = new double[k * types * stride];
            waitCost = new double[k * types * stride];
        }
        if (open1.length < types * stride) {
            open1 = new int[types * stride];
            open2 = new int[types * stride];
        }
        if (members.length < slots) {
            members = new int[slots];
            optCount = new int[slots];
            minGpusFrom = new int[slots + 1];
            choice = new int[slots];
            optGpus = new int[slots * slots];
            optDTerm = new double[slots * slots];
            optCost = new double[slots * slots];
            leafGpus = new int[MAX_COMBINATIONS * slots];
        }
        if (leafBusy.length < MAX_COMBINATIONS) {
            leafBusy = new int[MAX_COMBINATIONS];
            leafDTerm = new double[MAX_COMBINATIONS];
            leafMinCost = new double[MAX_COMBINATIONS];
        }
    }

    private double tardiness(int j, double remaining) {
        return s.tardiness(j, remaining);
    }

    private double cost(int t, int g, double remaining) {
        return s.cost(t, g, remaining);
    }

    private boolean promising(double delta) {
        return s.promising(delta);
    }

    // ---------------------------------------------------------------- the round

    void explore(int k) {
        waitingCount = 0;
        for (int j = 0; j < jobs; j++) if (s.jobNode[j] < 0) waiting[waitingCount++] = j;
        if (waitingCount == 0) return;
        waitingCount = ThesisNeighbourhoods.largestFirst(waiting, waitingCount, s.postponedPenalty, k);
        for (int a = 0; a < waitingCount; a++) {
            int w = waiting[a];
            for (int t = 0; t < types; t++) {
                for (int g = 1; g <= s.typeGpus[t]; g++) {
                    int i = (a * types + t) * stride + g;
                    double r = s.problem.remaining(w, t, g);
                    waitGain[i] = Double.isNaN(r) ? Double.NaN : tardiness(w, r) - s.postponedPenalty[w];
                    waitCost[i] = Double.isNaN(r) ? Double.NaN : cost(t, g, r);
                }
            }
        }
        stamp++;
        indexNodes();
        insertIntoSwitchedOnNodes();
        for (int n = 0; n < nodes; n++) {
            if (s.nodeCount[n] == 0) continue;
            int current = s.nodeType[n];
            shrinkAndInsert(n, current);
            for (int v : cluster.candidateTypes(n)) if (v != current) shrinkAndInsert(n, v);
            moveOutAndInsert(n);
        }
    }

    /** Off nodes per class and per type; open nodes per (type, idle GPUs) by their least execution cost. */
    private void indexNodes() {
        Arrays.fill(classFirstOff, 0, classCount, -1);
        Arrays.fill(typeOffNode, 0, types, -1);
        Arrays.fill(open1, 0, types * stride, -1);
        Arrays.fill(open2, 0, types * stride, -1);
        for (int n = 0; n < nodes; n++) {
            if (s.nodeCount[n] == 0) {
                if (classFirstOff[nodeClass[n]] < 0) classFirstOff[nodeClass[n]] = n;
                for (int v : cluster.candidateTypes(n)) if (typeOffNode[v] < 0) typeOffNode[v] = n;
                continue;
            }
            int t = s.nodeType[n];
            int capacity = s.typeGpus[t];
            int idle = capacity - s.nodeBusy[n];
            double least = s.nodeLeast[n];
            nodeLeast[n] = least;
            for (int g = 1; g <= idle; g++) {
                int i = t * stride + g;
                if (open1[i] < 0 || least > nodeLeast[open1[i]]) {
                    open2[i] = open1[i];
                    open1[i] = n;
                } else if (open2[i] < 0 || least > nodeLeast[open2[i]]) {
                    open2[i] = n;
                }
            }
        }
    }

    private void insertIntoSwitchedOnNodes() {
        for (int c = 0; c < classCount; c++) {
            int m = classFirstOff[c];
            if (m < 0) continue;
            for (int v : cluster.candidateTypes(m)) {
                int gpus = s.typeGpus[v];
                for (int a = 0; a < waitingCount; a++) {
                    int w = waiting[a];
                    int base = (a * types + v) * stride;
                    for (int g = 1; g <= gpus; g++) {
                        double gain = waitGain[base + g];
                        if (Double.isNaN(gain)) continue;
                        double delta = gain + waitCost[base + g] + mu * (gpus - g);
                        if (!promising(delta)) continue;
                        s.beginMove();
                        s.addMove(w, m, v, g);
                        s.retype(m, v);
                        s.evaluate();
                    }
                }
            }
        }
    }

    /** Node n as type v: its jobs on at most their current GPU counts, plus a waiting job in the GPUs left. */
    private void shrinkAndInsert(int n, int v) {
        int current = s.nodeType[n];
        int capacity = s.typeGpus[v];
        memberCount = s.nodeCount[n];
        System.arraycopy(s.nodeJobs, n * slots, members, 0, memberCount);
        for (int i = 0; i < memberCount; i++) {
            int j = members[i];
            int count = 0;
            for (int g = s.jobGpus[j]; g >= 1; g--) { // current count first: the plain insert comes first
                double r = s.problem.remaining(j, v, g);
                if (Double.isNaN(r)) continue;
                int o = i * slots + count++;
                optGpus[o] = g;
                optDTerm[o] = tardiness(j, r) - s.jobTerm[j];
                optCost[o] = cost(v, g, r);
            }
            if (count == 0) return; // a job of the node has no configuration of at most its GPUs on v
            optCount[i] = count;
        }
        minGpusFrom[memberCount] = 0;
        for (int i = memberCount - 1; i >= 0; i--)
            minGpusFrom[i] = minGpusFrom[i + 1] + optGpus[i * slots + optCount[i] - 1];
        if (minGpusFrom[0] >= capacity) return; // no GPU can be freed for a waiting job
        leafCount = 0;
        enumerate(0, 0, 0, Double.POSITIVE_INFINITY, capacity);
        for (int leaf = 0; leaf < leafCount; leaf++) {
            int idle = capacity - leafBusy[leaf];
            for (int a = 0; a < waitingCount; a++) {
                int w = waiting[a];
                int base = (a * types + v) * stride;
                for (int g = 1; g <= idle; g++) {
                    double gain = waitGain[base + g];
                    if (Double.isNaN(gain)) continue;
                    double delta = leafDTerm[leaf]
                            + gain
                            + Math.min(leafMinCost[leaf], waitCost[base + g])
                            + mu * (idle - g)
                            - s.nodeTerm[n];
                    if (!promising(delta)) continue;
                    s.beginMove();
                    for (int i = 0; i < memberCount; i++) {
                        int gi = leafGpus[leaf * slots + i];
                        if (v != current || gi != s.jobGpus[members[i]]) s.addMove(members[i], n, v, gi);
                    }
                    s.addMove(w, n, v, g);
                    if (v != current) s.retype(n, v);
                    s.evaluate();
                }
            }
        }
    }

    private void enumerate(int i, int busy, double dTerm, double minCost, int capacity) {
        if (leafCount == MAX_COMBINATIONS) return;
        if (i == memberCount) {
            if (busy >= capacity) return;
            leafBusy[leafCount] = busy;
            leafDTerm[leafCount] = dTerm;
            leafMinCost[leafCount] = minCost;
            for (int m = 0; m < memberCount; m++) leafGpus[leafCount * slots + m] = optGpus[m * slots + choice[m]];
            leafCount++;
            return;
        }
        for (int o = 0; o < optCount[i]; o++) {
            int at = i * slots + o;
            if (busy + optGpus[at] + minGpusFrom[i + 1] >= capacity)
                continue; // no GPU would be left for the waiting job
            choice[i] = o;
            enumerate(i + 1, busy + optGpus[at], dTerm + optDTerm[at], Math.min(minCost, optCost[at]), capacity);
        }
    }

    /**
     * A job r of node n makes room for a waiting job w on the node's type: r moves to its best place elsewhere (w then
     * needs some of r's GPUs), or r is postponed in w's stead (w on any GPU count that fits in r's and the idle ones).
     */
    private void moveOutAndInsert(int n) {
        int t = s.nodeType[n];
        int capacity = s.typeGpus[t];
        int idle = capacity - s.nodeBusy[n];
        memberCount = s.nodeCount[n];
        System.arraycopy(s.nodeJobs, n * slots, members, 0, memberCount);
        for (int i = 0; i < memberCount; i++) {
            int r = members[i];
            relocate(r);
            double evictDelta = s.postponedPenalty[r] - s.jobTerm[r];
            double leastOthers = s.leastExcluding(n, r);
            int room = idle + s.jobGpus[r];
            for (int a = 0; a < waitingCount; a++) {
                int w = waiting[a];
                int base = (a * types + t) * stride;
                for (int g = 1; g <= room; g++) {
                    double gain = waitGain[base + g];
                    if (Double.isNaN(gain)) continue;
                    double inserted =
                            gain + Math.min(leastOthers, waitCost[base + g]) + mu * (room - g) - s.nodeTerm[n];
                    if (g > idle && relocNode[r] >= 0 && promising(relocDelta[r] + inserted)) {
                        s.beginMove();
                        s.addMove(r, relocNode[r], relocType[r], relocGpus[r]);
                        s.addMove(w, n, t, g);
                        if (s.nodeCount[relocNode[r]] == 0) s.retype(relocNode[r], relocType[r]);
                        s.evaluate();
                    }
                    if (promising(evictDelta + inserted)) {
                        s.beginMove();
                        s.addMove(r, -1, 0, 0);
                        s.addMove(w, n, t, g);
                        s.evaluate();
                    }
                }
            }
        }
    }

    /**
     * r's best configuration on another node, with the f_OBJ change of r's own term and of the receiving node (not
     * of r's node, which the caller scores with the job that replaces r): the open node of the type with room and
     * the largest least execution cost (f_OBJ charges a node its least one), else an off node switched on.
     */
    private void relocate(int r) {
        if (relocStamp[r] == stamp) return;
        relocStamp[r] = stamp;
        relocNode[r] = -1;
        relocDelta[r] = Double.POSITIVE_INFINITY;
        int from = s.jobNode[r];
        for (int v = 0; v < types; v++) {
            int gpus = s.typeGpus[v];
            for (int g = 1; g <= gpus; g++) {
                double rem = s.problem.remaining(r, v, g);
                if (Double.isNaN(rem)) continue;
                double own = tardiness(r, rem) - s.jobTerm[r];
                double c = cost(v, g, rem);
                int m = open1[v * stride + g];
                if (m == from) m = open2[v * stride + g];
                double delta;
                int target;
                if (m >= 0) {
                    target = m;
                    delta = own + Math.min(0, c - nodeLeast[m]) - mu * g;
                } else if (typeOffNode[v] >= 0) {
                    target = typeOffNode[v];
                    delta = own + c + mu * (gpus - g);
                } else {
                    continue;
                }
                if (delta < relocDelta[r]) {
                    relocDelta[r] = delta;
                    relocNode[r] = target;
                    relocType[r] = v;
                    relocGpus[r] = g;
                }
            }
        }
    }
}
