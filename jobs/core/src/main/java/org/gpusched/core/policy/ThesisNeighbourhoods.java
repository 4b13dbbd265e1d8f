package org.gpusched.core.policy;

import org.gpusched.core.model.NodeType;

/**
 * The thesis' seven neighbourhoods of the local search (Section 3.1.5), proposed to a {@link LocalSearch}. Lists, with
 * k = {@link PolicyConfig#localSearchK()}: J_T = running jobs that end after their due date by decreasing lateness
 * (its first k drive every neighbourhood); C = the k on-time running jobs of highest execution cost; P = running jobs
 * by decreasing pressure. The neighbourhoods, and the readings chosen:
 * <ol>
 *   <li>swap the configurations (node, type, GPUs) of a job of J_T and a job of C on different nodes;</li>
 *   <li>the same with a job of J_T and any job of P;</li>
 *   <li>postponed jobs against running ones: a postponed job takes the configuration of a running job with lower
 *       pressure, which is postponed. The thesis scans all pairs, O(J^2); we take the k postponed jobs of highest
 *       pressure (the ones the swap can help most) against all running jobs by increasing pressure, O(kJ);</li>
 *   <li>on the nodes hosting J_T's first k: another VM type (rightsizable nodes), each job keeping its GPU count;</li>
 *   <li>the same nodes with every job's GPU count doubled, on the same type (fixed or rightsizable: uses idle GPUs)
 *       or on the type with the same GPU model and twice the GPUs (rightsizable), keeping the jobs' relative power;</li>
 *   <li>likewise halved, only when every job on the node has an even GPU count;</li>
 *   <li>one job of such a node on another GPU count, same type, within the node's capacity.</li>
 * </ol>
 * The swaps and replacements are scored in O(1) from the terms they change before they are evaluated: under f_OBJ
 * from each node's least and second least execution cost, under f_W exactly (a node's term depends on its busy GPUs
 * only).
 */
final class ThesisNeighbourhoods {
    private final LocalSearch s;
    private double[] key = new double[0];
    private int[] list = new int[0], late = new int[0], costly = new int[0];
    private int lateCount, costlyCount;
    private boolean[] nodeSeen = new boolean[0];
    private int[] members = new int[0];

    ThesisNeighbourhoods(LocalSearch search) {
        this.s = search;
    }

    void load() {
        if (list.length < s.jobs) {
            key = new double[s.jobs];
            list = new int[s.jobs];
            late = new int[s.jobs];
            costly = new int[s.jobs];
        }
        if (nodeSeen.length < s.nodes) nodeSeen = new boolean[s.nodes];
        if (members.length < s.slots) members = new int[s.slots];
    }

    void explore(int k) {
        buildLists(k);
        int jobs = s.jobs;
        int[] jobNode = s.jobNode, byPressure = s.byPressure;
        // 1: J_T x C
        for (int a = 0; a < lateCount; a++) for (int b = 0; b < costlyCount; b++) trySwap(late[a], costly[b]);
        // 2: J_T x running jobs by decreasing pressure
        for (int a = 0; a < lateCount; a++) {
            for (int i = 0; i < jobs; i++) {
                int b = byPressure[i];
                if (jobNode[b] >= 0) trySwap(late[a], b);
            }
        }
        // 3: the k postponed jobs of highest pressure x running jobs by increasing pressure
        int postponedSeen = 0;
        for (int i = 0; i < jobs && postponedSeen < k; i++) {
            int waiting = byPressure[i];
            if (jobNode[waiting] >= 0) continue;
            postponedSeen++;
            for (int r = jobs - 1; r >= 0; r--) {
                int running = byPressure[r];
                if (s.pressure[running] >= s.pressure[waiting]) break;
                if (jobNode[running] >= 0) tryReplace(waiting, running);
            }
        }
        // 4-7: nodes hosting J_T's jobs
        for (int a = 0; a < lateCount; a++) {
            int n = jobNode[late[a]];
            if (nodeSeen[n]) continue;
            nodeSeen[n] = true;
            tryRetype(n);
            tryScale(n, true);
            tryScale(n, false);
            tryResize(n);
        }
        for (int a = 0; a < lateCount; a++) nodeSeen[jobNode[late[a]]] = false;
    }

    /** late = J_T's first k (decreasing lateness); costly = the k on-time running jobs of highest cost. */
    private void buildLists(int k) {
        int count = 0;
        for (int j = 0; j < s.jobs; j++) {
            if (s.jobNode[j] < 0) continue;
            double lateness = s.now + s.remaining(j) - s.due[j];
            if (lateness > 0) {
                list[count++] = j;
                key[j] = lateness;
            }
        }
        lateCount = largestFirst(list, count, key, k);
        System.arraycopy(list, 0, late, 0, lateCount);
        count = 0;
        for (int j = 0; j < s.jobs; j++) {
            if (s.jobNode[j] < 0 || s.now + s.remaining(j) - s.due[j] > 0) continue;
            list[count++] = j;
            key[j] = s.executionCost(j);
        }
        costlyCount = largestFirst(list, count, key, k);
        System.arraycopy(list, 0, costly, 0, costlyCount);
    }

    /**
     * Moves the k entries of {@code idx[0..count)} with the largest key to its front, largest first, ties in
     * their incoming order (the first k of a stable descending sort) in O(count x k); returns min(k, count).
     */
    static int largestFirst(int[] idx, int count, double[] key, int k) {
        int kept = 0;
        for (int i = 0; i < count; i++) {
            int v = idx[i];
            double kv = key[v];
            if (kept == k && !(kv > key[idx[kept - 1]])) continue;
            int at = kept < k ? kept++ : kept - 1;
            while (at > 0 && kv > key[idx[at - 1]]) {
                idx[at] = idx[at - 1];
                at--;
            }
            idx[at] = v;
        }
        return kept;
    }

    private boolean hasTime(int j, int t, int g) {
        return g >= 1 && g <= s.typeGpus[t] && !Double.isNaN(s.problem.remaining(j, t, g));
    }

    private void trySwap(int a, int b) {
        int[] jobNode = s.jobNode, jobType = s.jobType, jobGpus = s.jobGpus;
        if (a == b || jobNode[a] == jobNode[b]) return;
        if (!hasTime(a, jobType[b], jobGpus[b]) || !hasTime(b, jobType[a], jobGpus[a])) return;
        int na = jobNode[a], nb = jobNode[b];
        double score;
        if (s.ranking == Ranking.F_OBJ) {
            // both jobs' terms, and each node's least execution cost (its idle GPUs do not change)
            double ra = s.problem.remaining(a, jobType[b], jobGpus[b]);
            double rb = s.problem.remaining(b, jobType[a], jobGpus[a]);
            score = s.tardiness(a, ra)
                    - s.jobTerm[a]
                    + s.tardiness(b, rb)
                    - s.jobTerm[b]
                    + Math.min(s.leastExcluding(na, a), s.cost(jobType[a], jobGpus[a], rb))
                    + s.idleTerm(na)
                    - s.nodeTerm[na]
                    + Math.min(s.leastExcluding(nb, b), s.cost(jobType[b], jobGpus[b], ra))
                    + s.idleTerm(nb)
                    - s.nodeTerm[nb];
        } else {
            int shift = jobGpus[b] - jobGpus[a];
            score = s.termAt(a, nb, jobType[b], jobGpus[b])
                    - s.jobTerm[a]
                    + s.termAt(b, na, jobType[a], jobGpus[a])
                    - s.jobTerm[b]
                    + s.spend(s.nodeType[na], s.nodeBusy[na] + shift)
                    - s.nodeTerm[na]
                    + s.spend(s.nodeType[nb], s.nodeBusy[nb] - shift)
                    - s.nodeTerm[nb];
        }
        if (!s.promising(score)) return;
        s.beginMove();
        s.addMove(a, nb, jobType[b], jobGpus[b]);
        s.addMove(b, na, jobType[a], jobGpus[a]);
        s.evaluate();
    }

    private void tryReplace(int waiting, int running) {
        int[] jobNode = s.jobNode, jobType = s.jobType, jobGpus = s.jobGpus;
        if (!hasTime(waiting, jobType[running], jobGpus[running])) return;
        int n = jobNode[running];
        double score;
        if (s.ranking == Ranking.F_OBJ) {
            double r = s.problem.remaining(waiting, jobType[running], jobGpus[running]);
            score = s.tardiness(waiting, r)
                    - s.jobTerm[waiting]
                    + s.postponedPenalty[running]
                    - s.jobTerm[running]
                    + Math.min(s.leastExcluding(n, running), s.cost(jobType[running], jobGpus[running], r))
                    + s.idleTerm(n)
                    - s.nodeTerm[n];
        } else {
            // the node keeps its busy GPUs, so its term does not change
            score = s.termAt(waiting, n, jobType[running], jobGpus[running])
                    - s.jobTerm[waiting]
                    + s.postponedPenalty[running]
                    - s.jobTerm[running];
        }
        if (!s.promising(score)) return;
        s.beginMove();
        s.addMove(waiting, n, jobType[running], jobGpus[running]);
        s.addMove(running, -1, 0, 0);
        s.evaluate();
    }

    private void tryRetype(int n) {
        int current = s.nodeType[n];
        for (int v : s.cluster.candidateTypes(n)) {
            if (v == current || s.cluster.type(v).gpus() < s.nodeBusy[n]) continue;
            moveNodeJobs(n, v, 1, 1);
        }
    }

    /** Every job of node n with its GPUs doubled (or halved), on the same type or its twin of 2x (1/2) the GPUs. */
    private void tryScale(int n, boolean doubling) {
        int current = s.nodeType[n];
        NodeType type = s.cluster.type(current);
        int num = doubling ? 2 : 1;
        int den = doubling ? 1 : 2;
        if (!doubling) {
            for (int i = 0; i < s.nodeCount[n]; i++) if (s.jobGpus[s.nodeJobs[n * s.slots + i]] % 2 != 0) return;
        }
        moveNodeJobs(n, current, num, den);
        for (int v : s.cluster.candidateTypes(n)) {
            NodeType other = s.cluster.type(v);
            if (v == current || !other.gpuModel().equals(type.gpuModel())) continue;
            if (other.gpus() * den == type.gpus() * num) moveNodeJobs(n, v, num, den);
        }
    }

    /** Moves all jobs of node n to type v with GPU counts scaled by num/den; skipped if any has no time there. */
    private void moveNodeJobs(int n, int v, int num, int den) {
        s.beginMove();
        for (int i = 0; i < s.nodeCount[n]; i++) {
            int j = s.nodeJobs[n * s.slots + i];
            int g = s.jobGpus[j] * num / den;
            if (!hasTime(j, v, g)) return;
            s.addMove(j, n, v, g);
        }
        if (v != s.nodeType[n]) s.retype(n, v);
        s.evaluate();
    }

    private void tryResize(int n) {
        int capacity = s.cluster.type(s.nodeType[n]).gpus();
        // evaluating a move reorders the node's job list, so walk a copy of it
        int count = s.nodeCount[n];
        System.arraycopy(s.nodeJobs, n * s.slots, members, 0, count);
        for (int i = 0; i < count; i++) {
            int j = members[i];
            for (int g = 1; g <= capacity - s.nodeBusy[n] + s.jobGpus[j]; g++) {
                if (g == s.jobGpus[j] || !hasTime(j, s.jobType[j], g)) continue;
                s.beginMove();
                s.addMove(j, n, s.jobType[j], g);
                s.evaluate();
            }
        }
    }
}
