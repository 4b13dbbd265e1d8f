package org.gpusched.core.policy;

import java.util.Arrays;
import org.gpusched.core.random.RandomState;

/**
 * The random-draw paths of one call's randomized iterations, as a trie, so that an iteration repeating an earlier one
 * is recognized by its draws alone and not constructed again.
 *
 * <p>A construction is deterministic given the outcomes of its draws, and each draw takes exactly one uniform from
 * the iteration's random stream. So the kind of the d-th draw and its parameters (a swap probability, a
 * configuration's cumulative weights, best-fit weights) are fixed by the outcomes of the draws before it: a trie node
 * keeps them, and its children are indexed by outcome. Walking the trie takes the same uniforms the construction
 * would take; when it reaches a recorded end, the iteration would build a schedule already built by an earlier
 * iteration, which changes nothing (the solution pool keeps each distinct schedule with the first iteration that
 * built it). When the walk leaves the trie, the construction runs on the uniforms already drawn and then on fresh
 * ones of the same stream, so it builds exactly what it would without the memo. One memo serves one worker, whose
 * iterations come in increasing order. Small problems (a controller's share of a large cluster) repeat most
 * iterations; large ones rarely do, and the engine stops using the memo when it does not pay.
 */
final class DrawMemo {
    static final int COIN = 0, CUMULATIVE = 1, WEIGHTS = 2, END = 3;
    /** Largest outcome count of a draw: the engine draws among at most {@link GreedyEngine#CANDIDATES}. */
    static final int FANOUT = Math.max(2, GreedyEngine.CANDIDATES);

    private static final int ABSENT = -1;

    private final int maxNodes;
    private int size;
    private int[] kind = new int[64];
    private int[] paramStart = new int[64];
    private int[] paramCount = new int[64];
    private int[] child = new int[64 * FANOUT];
    private double[] params = new double[256];
    private int paramSize;
    private double[] drawn = new double[64];
    /** Outcomes of recorded draws that no path has taken yet (every outcome has a positive probability). */
    private int missing;

    DrawMemo(int maxNodes) {
        this.maxNodes = maxNodes;
    }

    void clear() {
        size = 0;
        paramSize = 0;
        missing = 0;
    }

    boolean full() {
        return size >= maxNodes;
    }

    int size() {
        return size;
    }

    /**
     * Whether every outcome of every recorded draw has been taken: then every further construction repeats a recorded
     * one, whatever its random stream, and the caller may skip them all.
     */
    boolean complete() {
        return size > 0 && missing == 0;
    }

    /**
     * Draws along the recorded paths. Returns -1 when a recorded end is reached (the iteration repeats an earlier
     * one), else the number of uniforms drawn, which the construction then reuses through {@link #drawn(int)}.
     */
    int walk(RandomState random) {
        if (size == 0) return 0;
        int node = 0;
        int n = 0;
        while (kind[node] != END) {
            double u = random.nextDouble();
            if (n == drawn.length) drawn = Arrays.copyOf(drawn, n * 2);
            drawn[n++] = u;
            int next = child[node * FANOUT + outcome(node, u)];
            if (next == ABSENT) return n;
            node = next;
        }
        return -1;
    }

    /** The i-th uniform taken by the last {@link #walk}. */
    double drawn(int i) {
        return drawn[i];
    }

    private int outcome(int node, double u) {
        int from = paramStart[node];
        int count = paramCount[node];
        return switch (kind[node]) {
            case COIN -> coin(u, params[from]) ? 1 : 0;
            case CUMULATIVE -> cumulativeIndex(u, params, from, count);
            case WEIGHTS -> weightedIndex(u, params, from, count);
            default -> throw new IllegalStateException("no draw at an end node");
        };
    }

    /**
     * Records a construction's draws: kinds, their parameters ({@code paramFrom[d]..paramFrom[d+1]} in
     * {@code values}) and outcomes. Nodes already present are checked against the path (a mismatch would mean the
     * construction is not a function of its draws).
     */
    void insert(int length, int[] kinds, int[] paramFrom, double[] values, int[] outcomes) {
        if (full()) return;
        int node = size == 0 ? newNode(length == 0 ? END : kinds[0], paramFrom, values, 0) : 0;
        for (int d = 0; d < length; d++) {
            if (kind[node] != kinds[d])
                throw new IllegalStateException("draw " + d + " is of another kind than recorded before");
            int slot = node * FANOUT + outcomes[d];
            int next = child[slot];
            if (next == ABSENT) {
                if (full()) return;
                next = newNode(d + 1 < length ? kinds[d + 1] : END, paramFrom, values, d + 1);
                child[slot] = next;
                missing--;
            }
            node = next;
        }
        if (kind[node] != END) throw new IllegalStateException("a construction ended where an earlier one drew again");
    }

    private int newNode(int k, int[] paramFrom, double[] values, int d) {
        if (size == kind.length) {
            int capacity = size * 2;
            kind = Arrays.copyOf(kind, capacity);
            paramStart = Arrays.copyOf(paramStart, capacity);
            paramCount = Arrays.copyOf(paramCount, capacity);
            child = Arrays.copyOf(child, capacity * FANOUT);
        }
        int node = size++;
        kind[node] = k;
        Arrays.fill(child, node * FANOUT, node * FANOUT + FANOUT, ABSENT);
        int count = k == END ? 0 : paramFrom[d + 1] - paramFrom[d];
        if (paramSize + count > params.length)
            params = Arrays.copyOf(params, Math.max(params.length * 2, paramSize + count));
        if (count > 0) System.arraycopy(values, paramFrom[d], params, paramSize, count);
        paramStart[node] = paramSize;
        paramCount[node] = count;
        paramSize += count;
        if (k != END) missing += k == COIN ? 2 : count;
        return node;
    }

    // The draws themselves, as functions of the uniform, shared by the construction and the walk so both agree bit
    // for bit.

    /** A swap happens when the uniform falls below its probability. */
    static boolean coin(double u, double probability) {
        return u < probability;
    }

    /** Index drawn from increasing cumulative weights: the number of thresholds at or below u x total. */
    static int cumulativeIndex(double u, double[] cumulative, int offset, int count) {
        double x = u * cumulative[offset + count - 1];
        int k = 0;
        for (int i = 0; i < count - 1; i++) k += x >= cumulative[offset + i] ? 1 : 0;
        return k;
    }

    /** Index drawn with probability proportional to its weight. */
    static int weightedIndex(double u, double[] w, int offset, int count) {
        double sum = 0;
        for (int i = 0; i < count; i++) sum += w[offset + i];
        double x = u * sum;
        for (int i = 0; i < count - 1; i++) {
            x -= w[offset + i];
            if (x < 0) return i;
        }
        return count - 1;
    }
}
