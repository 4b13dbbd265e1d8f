package org.gpusched.core.policy;

import java.util.Arrays;

/**
 * Stable sort of an index array by a double key, so the optimizers can order jobs without boxing; one instance holds
 * the scratch arrays its owner's sorts reuse, so that sorting allocates nothing once they have grown. Ties keep the
 * incoming order, which callers make the job index order for determinism. With no NaN key the order is unique (a
 * stable sort by a strict weak order), so the two methods below give the same result.
 */
final class IndexSort {
    /**
     * Sorts of at least this many entries go by radix: andreas-rg sorts every call's jobs by pressure, and at 500
     * jobs a call the merge sort's unpredictable comparisons were a tenth of a million-job replay; below it the 256
     * counters of each byte pass cost more than the comparisons they save.
     */
    static final int RADIX_MIN = 128;

    private static final int INSERTION_MAX = 24;

    private int[] indexScratch = new int[0];
    private long[] keyBits = new long[0], keyBitsScratch = new long[0];
    /** Per byte of the 64-bit key, a counter per byte value; made by the first radix sort (most sorts are small). */
    private int[] counts;

    /** Sorts {@code idx[0..count)} by {@code key[idx[i]]}, ascending or descending, stably. */
    void sort(int[] idx, int count, double[] key, boolean descending) {
        if (count < 2) return;
        if (count <= INSERTION_MAX) {
            insertion(idx, 0, count, key, descending);
            return;
        }
        if (count >= RADIX_MIN && radixSort(idx, count, key, descending)) return;
        mergeSort(idx, count, key, descending);
    }

    /** The comparison sort alone, whatever the count: the reference the radix sort is tested against. */
    void mergeSort(int[] idx, int count, double[] key, boolean descending) {
        indexScratch = GreedyArrays.grow(indexScratch, count);
        mergeSort(idx, indexScratch, 0, count, key, descending);
    }

    private static boolean before(double a, double b, boolean descending) {
        return descending ? a > b : a < b;
    }

    private static void insertion(int[] idx, int from, int to, double[] key, boolean descending) {
        for (int i = from + 1; i < to; i++) {
            int v = idx[i];
            double k = key[v];
            int p = i - 1;
            while (p >= from && before(k, key[idx[p]], descending)) {
                idx[p + 1] = idx[p];
                p--;
            }
            idx[p + 1] = v;
        }
    }

    private static void mergeSort(int[] idx, int[] tmp, int from, int to, double[] key, boolean descending) {
        if (to - from <= INSERTION_MAX) {
            insertion(idx, from, to, key, descending);
            return;
        }
        int mid = (from + to) >>> 1;
        mergeSort(idx, tmp, from, mid, key, descending);
        mergeSort(idx, tmp, mid, to, key, descending);
        if (!before(key[idx[mid]], key[idx[mid - 1]], descending)) return;
        System.arraycopy(idx, from, tmp, from, to - from);
        int i = from, j = mid, o = from;
        while (i < mid && j < to) {
            // Take from the right run only when strictly before: keeps the sort stable.
            if (before(key[tmp[j]], key[tmp[i]], descending)) idx[o++] = tmp[j++];
            else idx[o++] = tmp[i++];
        }
        while (i < mid) idx[o++] = tmp[i++];
        while (j < to) idx[o++] = tmp[j++];
    }

    /**
     * Least-significant-byte radix sort of the keys' bits mapped to unsigned longs in the keys' order (stable, so ties
     * keep the incoming order), skipping each byte all keys share. False, with {@code idx} untouched, when a key is
     * NaN: the comparisons order NaN nowhere, which no bit pattern reproduces.
     */
    private boolean radixSort(int[] idx, int count, double[] key, boolean descending) {
        keyBits = GreedyArrays.grow(keyBits, count);
        keyBitsScratch = GreedyArrays.grow(keyBitsScratch, count);
        indexScratch = GreedyArrays.grow(indexScratch, count);
        if (counts == null) counts = new int[8 * 256];
        else Arrays.fill(counts, 0);
        for (int i = 0; i < count; i++) {
            double k = key[idx[i]];
            if (k != k) return false;
            // + 0.0 makes -0.0 into 0.0: the comparisons hold them equal
            long bits = Double.doubleToRawLongBits(k + 0.0);
            long ordered = bits < 0 ? ~bits : bits ^ Long.MIN_VALUE;
            if (descending) ordered = ~ordered;
            keyBits[i] = ordered;
            for (int b = 0; b < 8; b++) counts[b << 8 | (int) (ordered >>> (b << 3)) & 0xFF]++;
        }
        int[] fromIdx = idx, toIdx = indexScratch;
        long[] fromKeys = keyBits, toKeys = keyBitsScratch;
        for (int b = 0; b < 8; b++) {
            int base = b << 8, shift = b << 3;
            if (counts[base | (int) (fromKeys[0] >>> shift) & 0xFF] == count) continue;
            int start = 0;
            for (int d = base; d < base + 256; d++) {
                int c = counts[d];
                counts[d] = start;
                start += c;
            }
            for (int i = 0; i < count; i++) {
                long k = fromKeys[i];
                int at = counts[base | (int) (k >>> shift) & 0xFF]++;
                toKeys[at] = k;
                toIdx[at] = fromIdx[i];
            }
            int[] swapIdx = fromIdx;
            fromIdx = toIdx;
            toIdx = swapIdx;
            long[] swapKeys = fromKeys;
            fromKeys = toKeys;
            toKeys = swapKeys;
        }
        if (fromIdx != idx) System.arraycopy(fromIdx, 0, idx, 0, count);
        return true;
    }
}
