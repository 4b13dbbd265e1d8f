package org.gpusched.core.policy;

import java.util.Arrays;

/**
 * The nodes as one construction leaves them: which are switched on and as which type, their free GPUs and jobs,
 * open nodes indexed by type and free GPUs (bitsets, for first and best fit in a few word operations), off nodes
 * by candidate-type class and whether they host running jobs (so that switching a node on and finding the next off
 * node cost O(1) per class). One per construction; {@link #reset} undoes a construction by touching only the nodes
 * it switched on.
 */
final class NodePool {
    private ProblemTables tables;
    int[] nodeType = new int[0], nodeFree = new int[0], nodeJobCount = new int[0], nodeJobs = new int[0];
    /** Least job cost on each open node: its first-ending job's cost. */
    double[] nodeFirstCost = new double[0];

    private int[] bucketCount = new int[0];
    private long[] bucketBits = new long[0];
    int[] maxFreeOpen = new int[0];
    private long[] offMask = new long[0]; // nodes still off
    private int[] classOff = new int[0]; // per class, nodes still off
    private int[] classOffIdle = new int[0]; // [c * 2 + (0 idle | 1 hosting running jobs)]: still off
    private int[] classWordHint = new int[0]; // same index: no off node of that group below this word
    /** Per type, some node that can run as it is still off. */
    boolean[] typeHasOff = new boolean[0];

    private int[] sameTypePointer = new int[0];
    int[] opened = new int[0];
    int openedCount;
    int offTotal, freeOpenTotal, maxAvailable;
    private int offIdleTotal; // nodes still off that host no running job

    void prepare(ProblemTables tables) {
        this.tables = tables;
        int nodes = tables.nodes, types = tables.types, stride = tables.stride, words = tables.words;
        int classCount = tables.classCount;
        nodeType = GreedyArrays.grow(nodeType, nodes);
        nodeFree = GreedyArrays.grow(nodeFree, nodes);
        nodeJobCount = GreedyArrays.grow(nodeJobCount, nodes);
        nodeJobs = GreedyArrays.grow(nodeJobs, nodes * Math.max(1, tables.maxG));
        bucketCount = GreedyArrays.grow(bucketCount, types * stride);
        bucketBits = GreedyArrays.grow(bucketBits, types * stride * words);
        maxFreeOpen = GreedyArrays.grow(maxFreeOpen, types);
        offMask = GreedyArrays.grow(offMask, words);
        classOff = GreedyArrays.grow(classOff, classCount);
        classOffIdle = GreedyArrays.grow(classOffIdle, classCount * 2);
        classWordHint = GreedyArrays.grow(classWordHint, classCount * 2);
        typeHasOff = GreedyArrays.grow(typeHasOff, types);
        sameTypePointer = GreedyArrays.grow(sameTypePointer, types);
        opened = GreedyArrays.grow(opened, nodes);
        nodeFirstCost = GreedyArrays.grow(nodeFirstCost, nodes);
        Arrays.fill(nodeType, 0, nodes, -1);
        Arrays.fill(nodeFree, 0, nodes, 0);
        Arrays.fill(nodeJobCount, 0, nodes, 0);
        Arrays.fill(bucketCount, 0, types * stride, 0);
        Arrays.fill(bucketBits, 0, types * stride * words, 0L);
        openedCount = 0;
        resetCounters();
    }

    /** Switches every node the construction opened off again. */
    void reset() {
        for (int i = 0; i < openedCount; i++) {
            int n = opened[i];
            nodeType[n] = -1;
            nodeFree[n] = 0;
            nodeJobCount[n] = 0;
        }
        openedCount = 0;
        resetCounters();
    }

    private void resetCounters() {
        ProblemTables p = tables;
        int types = p.types;
        offTotal = p.nodes;
        freeOpenTotal = 0;
        for (int t = 0; t < types; t++) {
            maxFreeOpen[t] = 0;
            sameTypePointer[t] = p.sameTypeStart[t];
        }
        offIdleTotal = 0;
        for (int c = 0; c < p.classCount; c++) {
            classOff[c] = p.classSize[c];
            offIdleTotal += p.classSizeIdle[c * 2];
        }
        for (int i = 0; i < p.classCount * 2; i++) {
            classOffIdle[i] = p.classSizeIdle[i];
            classWordHint[i] = 0;
        }
        for (int t = 0; t < types; t++) typeHasOff[t] = p.typeClassStart[t + 1] > p.typeClassStart[t];
        for (int w = 0; w < p.words; w++) {
            int bits = Math.min(64, p.nodes - (w << 6));
            offMask[w] = bits == 64 ? -1L : (1L << bits) - 1;
        }
        recomputeMaxAvailable();
    }

    /** Called when the last off node of class c was switched on: its types may have no off node left. */
    private void classExhausted(int c) {
        ProblemTables p = tables;
        for (int t : p.nodeCandidates[p.classRepresentative[c]]) {
            boolean any = false;
            for (int i = p.typeClassStart[t]; i < p.typeClassStart[t + 1] && !any; i++)
                any = classOff[p.typeClasses[i]] > 0;
            typeHasOff[t] = any;
        }
    }

    /**
     * The off node to switch on as type t: the lowest-index node hosting no running job; else a node whose running
     * jobs already run as t; else the lowest-index other node (its running jobs will have to move). -1 if none.
     */
    int offNodeFor(int t) {
        int best = offIdleTotal == 0 ? -1 : lowestOff(t, true);
        if (best >= 0) return best;
        int ptr = sameTypePointer[t];
        int end = tables.sameTypeStart[t + 1];
        int[] sameTypeNodes = tables.sameTypeNodes;
        while (ptr < end && nodeType[sameTypeNodes[ptr]] != -1) ptr++;
        sameTypePointer[t] = ptr;
        if (ptr < end) return sameTypeNodes[ptr];
        return lowestOff(t, false);
    }

    private int lowestOff(int t, boolean idle) {
        ProblemTables p = tables;
        int words = p.words;
        int best = -1;
        for (int i = p.typeClassStart[t]; i < p.typeClassStart[t + 1]; i++) {
            int c = p.typeClasses[i];
            int group = c * 2 + (idle ? 0 : 1);
            if (classOffIdle[group] == 0) continue;
            for (int w = classWordHint[group]; w < words; w++) {
                long bits = p.classMask[c * words + w] & offMask[w] & (idle ? p.idleMask[w] : ~p.idleMask[w]);
                if (bits != 0) {
                    classWordHint[group] = w;
                    int n = (w << 6) + Long.numberOfTrailingZeros(bits);
                    if (best < 0 || n < best) best = n;
                    break;
                }
            }
        }
        return best;
    }

    /** Puts job j on node n as type t with g GPUs, switching n on if it is off; cost is the job's cost there. */
    void take(int n, int t, int g, int j, double cost) {
        if (nodeType[n] == -1) switchOn(n, t);
        else bucketRemove(t, nodeFree[n], n);
        int free = nodeFree[n] - g;
        nodeFree[n] = free;
        freeOpenTotal -= g;
        if (free > 0) bucketAdd(t, free, n);
        // only the bucket of this node changed: no bucket above max(previous maximum, free) can be non-empty
        int base = t * tables.stride;
        int max = Math.max(maxFreeOpen[t], free);
        while (max > 0 && bucketCount[base + max] == 0) max--;
        maxFreeOpen[t] = max;
        nodeJobs[n * tables.maxG + nodeJobCount[n]++] = j;
        if (cost < nodeFirstCost[n]) nodeFirstCost[n] = cost;
    }

    /** Switches off node n on as type t (kept out of {@link #take} so that the hot path stays small to inline). */
    private void switchOn(int n, int t) {
        int gpus = tables.typeGpus[t];
        nodeType[n] = t;
        nodeFree[n] = gpus;
        nodeFirstCost[n] = Double.POSITIVE_INFINITY;
        freeOpenTotal += gpus;
        opened[openedCount++] = n;
        offTotal--;
        offMask[n >>> 6] &= ~(1L << (n & 63));
        boolean idle = (tables.idleMask[n >>> 6] & (1L << (n & 63))) != 0;
        int c = tables.nodeClass[n];
        if (idle) offIdleTotal--;
        classOffIdle[c * 2 + (idle ? 0 : 1)]--;
        if (--classOff[c] == 0) classExhausted(c);
    }

    /** The lowest-index open node of type t among those with the fewest free GPUs at or above g. */
    int tightestOpen(int t, int g) {
        return lowestBit(t, smallestBucket(t, g));
    }

    private int smallestBucket(int t, int g) {
        int base = t * tables.stride;
        for (int f = g; f <= tables.typeGpus[t]; f++) if (bucketCount[base + f] > 0) return f;
        throw new IllegalStateException("no open node of type " + t + " with " + g + " free GPUs");
    }

    private int lowestBit(int t, int f) {
        int words = tables.words;
        int base = (t * tables.stride + f) * words;
        for (int w = 0; w < words; w++) {
            long bits = bucketBits[base + w];
            if (bits != 0) return (w << 6) + Long.numberOfTrailingZeros(bits);
        }
        throw new IllegalStateException("empty bucket");
    }

    /** The lowest-index open node of type t with at least g free GPUs. */
    int firstFit(int t, int g) {
        int gpus = tables.typeGpus[t];
        int words = tables.words, stride = tables.stride;
        for (int w = 0; w < words; w++) {
            long bits = 0;
            for (int f = g; f <= gpus; f++) bits |= bucketBits[(t * stride + f) * words + w];
            if (bits != 0) return (w << 6) + Long.numberOfTrailingZeros(bits);
        }
        throw new IllegalStateException("no open node of type " + t + " with " + g + " free GPUs");
    }

    /**
     * Thesis Fig. 3.3: the {@code max} most saturating open nodes of type t with at least g free GPUs (fewest free
     * first, then lowest index) into {@code found}, their best-fit draw weights into {@code weights}.
     *
     * @return how many were found
     */
    int mostSaturating(int t, int g, int max, int[] found, double[] weights) {
        int count = 0;
        int gpus = tables.typeGpus[t];
        int words = tables.words;
        for (int f = g; f <= gpus && count < max; f++) {
            int b = t * tables.stride + f;
            if (bucketCount[b] == 0) continue;
            int base = b * words;
            // the bucket holds bucketCount[b] nodes: stop at the last of them rather than at the last word
            int left = bucketCount[b];
            for (int w = 0; w < words && count < max && left > 0; w++) {
                long bits = bucketBits[base + w];
                while (bits != 0 && count < max) {
                    found[count] = (w << 6) + Long.numberOfTrailingZeros(bits);
                    weights[count] = tables.inverseIdle[f - g];
                    count++;
                    left--;
                    bits &= bits - 1;
                }
            }
        }
        return count;
    }

    void recomputeMaxAvailable() {
        int max = 0;
        for (int t = 0; t < tables.types; t++) {
            int a = typeHasOff[t] ? tables.typeGpus[t] : maxFreeOpen[t];
            if (a > max) max = a;
        }
        maxAvailable = max;
    }

    private void bucketAdd(int t, int f, int n) {
        int b = t * tables.stride + f;
        bucketCount[b]++;
        bucketBits[b * tables.words + (n >>> 6)] |= 1L << (n & 63);
    }

    private void bucketRemove(int t, int f, int n) {
        int b = t * tables.stride + f;
        bucketCount[b]--;
        bucketBits[b * tables.words + (n >>> 6)] &= ~(1L << (n & 63));
    }

    /** Empties the open-node index (the post-processing changes types and free GPUs without keeping it). */
    void clearBuckets() {
        int bucketCells = tables.types * tables.stride;
        if (bucketCells * (tables.words + 1) <= 2 * openedCount) {
            // only open nodes are in buckets: wiping the (small) tables is cheaper than visiting every open node
            Arrays.fill(bucketCount, 0, bucketCells, 0);
            Arrays.fill(bucketBits, 0, bucketCells * tables.words, 0L);
            return;
        }
        for (int i = 0; i < openedCount; i++) {
            int n = opened[i];
            if (nodeFree[n] > 0) bucketRemove(nodeType[n], nodeFree[n], n);
        }
    }
}
