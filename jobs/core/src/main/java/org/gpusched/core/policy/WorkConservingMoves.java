package org.gpusched.core.policy;

import java.util.Arrays;
import org.gpusched.core.model.Cluster;

/**
 * The work-conserving rule ({@link WorkConservation}) for the moves of {@code rg-ls}: given that the applied schedule
 * is work-conserving, decides whether the schedule a move yields still is, without rescanning the whole schedule.
 * After the move, a waiting job could be hosted only
 * <ul>
 *   <li>on a node the move touched (it freed GPUs or switched the node off): the waiting jobs are checked against
 *       each touched node, skipped when even the least demanding job that waited at the start of the round needs
 *       more than the node offers; or</li>
 *   <li>if the move postponed it: it is checked against every node through per-type counts kept per round (used
 *       nodes with at least g idle GPUs, off nodes that could run as the type), corrected for the touched nodes'
 *       state before and after the move.</li>
 * </ul>
 * Jobs that already waited cannot fit an untouched node: the applied schedule is work-conserving and untouched nodes
 * did not change. Scratch arrays are reused across calls.
 */
final class WorkConservingMoves {
    private static final int NONE = Integer.MAX_VALUE;
    private final LocalSearch s;
    private Cluster cluster;
    private int types, stride;
    /** [j * types + t]: the fewest GPUs job j has a time for on type t, NONE if none. */
    private int[] minGpus = new int[0];
    /** [n * types + t]: whether node n may run as type t. */
    private boolean[] candidate = new boolean[0];

    // per round, from the applied schedule
    /** [t * stride + g]: used nodes running as t with at least g idle GPUs. */
    private int[] roomCount = new int[0];
    /** [t]: off nodes that could be switched on as t. */
    private int[] offCount = new int[0];
    /** [t]: the fewest GPUs any waiting job needs on t (NONE: no waiting job runs on t). */
    private int[] leastWaiting = new int[0];

    // per evaluated move: the touched nodes' type before it (-1: off) and idle GPUs
    private int[] beforeType = new int[0], beforeIdle = new int[0];

    WorkConservingMoves(LocalSearch search) {
        this.s = search;
    }

    /** Per call, after the search has loaded its problem and start. */
    void load() {
        cluster = s.cluster;
        types = cluster.typeCount();
        stride = s.slots + 1;
        if (minGpus.length < s.jobs * types) minGpus = new int[s.jobs * types];
        for (int j = 0; j < s.jobs; j++) {
            for (int t = 0; t < types; t++) minGpus[j * types + t] = WorkConservation.minGpus(s.problem, j, t);
        }
        if (candidate.length < s.nodes * types) candidate = new boolean[s.nodes * types];
        Arrays.fill(candidate, 0, s.nodes * types, false);
        for (int n = 0; n < s.nodes; n++) for (int t : cluster.candidateTypes(n)) candidate[n * types + t] = true;
        if (roomCount.length < types * stride) roomCount = new int[types * stride];
        if (offCount.length < types) {
            offCount = new int[types];
            leastWaiting = new int[types];
        }
    }

    /** Recounts the room of the applied schedule; called at the start of every round (the last one applied a move). */
    void beginRound() {
        Arrays.fill(roomCount, 0, types * stride, 0);
        Arrays.fill(offCount, 0, types, 0);
        Arrays.fill(leastWaiting, 0, types, NONE);
        for (int n = 0; n < s.nodes; n++) {
            if (s.nodeCount[n] == 0) {
                for (int t : cluster.candidateTypes(n)) offCount[t]++;
                continue;
            }
            int t = s.nodeType[n];
            int idle = s.typeGpus[t] - s.nodeBusy[n];
            for (int g = 1; g <= idle; g++) roomCount[t * stride + g]++;
        }
        for (int j = 0; j < s.jobs; j++) {
            if (s.jobNode[j] >= 0) continue;
            for (int t = 0; t < types; t++) leastWaiting[t] = Math.min(leastWaiting[t], minGpus[j * types + t]);
        }
    }

    /** Before the move is applied: the state of the nodes it touches. */
    void recordBefore(int[] touched, int count) {
        if (beforeType.length < count) {
            beforeType = new int[touched.length];
            beforeIdle = new int[touched.length];
        }
        for (int i = 0; i < count; i++) {
            int n = touched[i];
            beforeType[i] = s.nodeCount[n] == 0 ? -1 : s.nodeType[n];
            beforeIdle[i] = beforeType[i] < 0 ? 0 : s.typeGpus[beforeType[i]] - s.nodeBusy[n];
        }
    }

    /** With the move applied: whether no job waits while some node could host it. */
    boolean holdsAfter(int[] touched, int touchedCount, int[] moveJob, int[] moveNode, int moveCount) {
        for (int i = 0; i < touchedCount; i++) {
            int n = touched[i];
            if (!mayHostAWaitingJob(n)) continue;
            for (int j = 0; j < s.jobs; j++) if (s.jobNode[j] < 0 && fitsNow(j, n)) return false;
        }
        for (int i = 0; i < moveCount; i++) {
            if (moveNode[i] < 0 && fitsSomewhere(moveJob[i], touched, touchedCount)) return false;
        }
        return true;
    }

    /** A quick necessary condition for some job that waited at the round's start to fit node n now. */
    private boolean mayHostAWaitingJob(int n) {
        if (s.nodeCount[n] > 0) {
            int t = s.nodeType[n];
            return leastWaiting[t] <= s.typeGpus[t] - s.nodeBusy[n];
        }
        for (int t : cluster.candidateTypes(n)) if (leastWaiting[t] != NONE) return true;
        return false;
    }

    private boolean fitsNow(int j, int n) {
        if (s.nodeCount[n] > 0) {
            int t = s.nodeType[n];
            return minGpus[j * types + t] <= s.typeGpus[t] - s.nodeBusy[n];
        }
        for (int t : cluster.candidateTypes(n)) if (minGpus[j * types + t] != NONE) return true;
        return false;
    }

    /** Whether job j fits some node of the moved schedule: the round's counts, corrected on the touched nodes. */
    private boolean fitsSomewhere(int j, int[] touched, int touchedCount) {
        for (int t = 0; t < types; t++) {
            int least = minGpus[j * types + t];
            if (least == NONE) continue;
            int room = roomCount[t * stride + least] + offCount[t];
            for (int i = 0; i < touchedCount; i++) {
                int n = touched[i];
                room -= hosts(beforeType[i], beforeIdle[i], n, t, least);
                int after = s.nodeCount[n] == 0 ? -1 : s.nodeType[n];
                room += hosts(after, after < 0 ? 0 : s.typeGpus[after] - s.nodeBusy[n], n, t, least);
            }
            if (room > 0) return true;
        }
        return false;
    }

    /** 1 when node n, running as {@code type} (-1: off) with {@code idle} GPUs, counts as room for g GPUs of type t. */
    private int hosts(int type, int idle, int n, int t, int g) {
        if (type < 0) return candidate[n * types + t] ? 1 : 0;
        return type == t && idle >= g ? 1 : 0;
    }
}
